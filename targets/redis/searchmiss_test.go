package redis

import (
	"context"
	"testing"
	"time"

	"github.com/soakd/soakd/engine"
	"github.com/soakd/soakd/internal/testutil"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// An FT.SEARCH with no hits (the reply [0]) is a miss under miss_when
// zero and empty, on both client paths, like a GET of nothing under
// nil; a search with hits is a success, and [0] under nil is not a miss.
func TestSearchNoHitsIsMiss(t *testing.T) {
	testutil.NeedFile(t, redisearchSO)
	s := startRedis(t, "--loadmodule", redisearchSO)
	rc := rawClient(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := rc.Do(ctx, "FT.CREATE", "nohits", "SCHEMA", "title", "TEXT").Err(); err != nil {
		t.Fatal(err)
	}
	if err := rc.Do(ctx, "FT.ADD", "nohits", "doc1", "1.0", "FIELDS", "title", "hello world").Err(); err != nil {
		t.Fatal(err)
	}
	for _, p := range Protocols {
		t.Run(string(p), func(t *testing.T) {
			sc, err := scenarios.Parse("search-miss.yaml", []byte(`name: search-miss
keyspace: {records: 10}
ops:
  none_zero: {redis: [FT.SEARCH, nohits, zzzqqq], miss_when: zero}
  none_empty: {redis: [FT.SEARCH, nohits, zzzqqq], miss_when: empty}
  none_nil: {redis: [FT.SEARCH, nohits, zzzqqq], miss_when: nil}
  hit_zero: {redis: [FT.SEARCH, nohits, hello], miss_when: zero}
  hit_empty: {redis: [FT.SEARCH, nohits, world], miss_when: empty}
phases:
  - {name: s, kind: steady, requests: 200, concurrency: 2, mix: {none_zero: 20, none_empty: 20, none_nil: 20, hit_zero: 20, hit_empty: 20}}
`))
			if err != nil {
				t.Fatal(err)
			}
			sc.Target = scenarios.Target{Kind: "redis", URL: s.URL(), Client: scenarios.ClientOf(scenarios.ClientCommon{}, ClientConfig{Protocol: p})}
			tg := openTarget(t, sc.Target, targets.Options{})
			sum, err := engine.Run(ctx, engine.Options{Scenario: sc, Target: tg, TargetKind: sc.Target.Kind, OutDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			r := sum.Phases[0].Result
			if r.Errors != 0 {
				t.Fatalf("%d errors: %+v", r.Errors, r.Ops)
			}
			for name, all := range map[string]bool{"none_zero": true, "none_empty": true, "none_nil": false, "hit_zero": false, "hit_empty": false} {
				o := r.Ops[name]
				want := int64(0)
				if all {
					want = o.Count
				}
				if o.Count == 0 || o.Misses != want {
					t.Errorf("%s: %d misses of %d, want %d", name, o.Misses, o.Count, want)
				}
			}
		})
	}
}
