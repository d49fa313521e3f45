package embedded

import (
	"context"
	"testing"

	"github.com/soakd/soakd/engine"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// TestRestrictedStoreRuns: a Redis-protocol store without HELLO, CLIENT,
// INFO, SELECT or MULTI (SSDB's subset) still runs the redis-benchmark
// style ops through the redis adapter: the adapter degrades (no server
// stats, no description) instead of failing.
func TestRestrictedStoreRuns(t *testing.T) {
	srv, err := Start(Config{Restricted: true})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	sc, err := scenarios.Parse("ssdb.yaml", []byte(`
name: ssdb-subset
keyspace: {records: 200}
record: {fields: 1, field_bytes: 8}
phases:
  - {name: load, kind: load, concurrency: 2, mix: {set: 100}}
  - {name: ops, kind: steady, rate: 0, requests: 600, concurrency: 4, mix: {get: 30, set: 20, incr: 10, lpush: 15, rpop: 10, hset: 15}}
`))
	if err != nil {
		t.Fatal(err)
	}
	sc.Target = scenarios.Target{Kind: "redis", URL: srv.URL()}
	tg, err := targets.Open(context.Background(), sc.Target, targets.Options{})
	if err != nil {
		t.Fatalf("open on a restricted store: %v", err)
	}
	defer tg.Close()
	if d, ok := tg.(targets.Describer); ok {
		t.Logf("describe: %q", d.Describe())
	}
	sum, err := engine.Run(context.Background(), engine.Options{Scenario: sc, Target: tg, TargetKind: "redis", OutDir: t.TempDir()})
	if err != nil {
		t.Fatalf("run on a restricted store: %v", err)
	}
	p := sum.Phases[1]
	if p.Completed != 600 || p.Errors != 0 {
		t.Errorf("restricted store: %d ops, %d errors %+v, want 600 and none", p.Completed, p.Errors, p.Ops)
	}
	if sum.Phases[0].Ops["set"].Count != 200 || sum.Phases[0].Errors != 0 {
		t.Errorf("load: %+v", sum.Phases[0])
	}
}
