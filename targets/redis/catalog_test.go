package redis

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// runScenarioOps prepares a real redis-server (with RediSearch when the
// scenario searches) for sc and runs each op of its mixes once.
func runScenarioOps(t *testing.T, sc *scenarios.Scenario) {
	t.Helper()
	var args []string
	if sc.Uses(scenarios.OpSearch) {
		if _, err := os.Stat(redisearchSO); err != nil {
			t.Fatalf("%s searches but %s is missing: install redis-redisearch (CI does)", sc.File, redisearchSO)
		}
		args = []string{"--loadmodule", redisearchSO}
	}
	s := startRedis(t, args...)
	tg := openTarget(t, scenarios.Target{URL: s.URL(), Client: sc.Target.Client}, targets.Options{})
	ctx := ctxT(t)
	if err := tg.Prepare(ctx, sc); err != nil {
		t.Errorf("%s: Prepare: %v", sc.File, err)
		return
	}
	fs := make([]targets.Field, sc.Record.Fields)
	for i := range fs {
		fs[i] = targets.Field{Name: scenarios.FieldName(i), Value: make([]byte, sc.Record.FieldBytes)}
	}
	for _, p := range sc.Phases {
		for name := range p.Mix {
			op, _ := scenarios.ParseBuiltinOp(name)
			for n := int64(1); n <= 2; n++ {
				r := &targets.Request{Op: op, KeyNum: n, Key: scenarios.AppendKey(nil, sc.Keyspace.Prefix, n, sc.Keyspace.Ordered), Fields: fs, ScanLen: sc.Keyspace.ScanLength}
				if op == scenarios.OpSearch {
					r.Query = scenarios.SearchQuery(n)
				}
				if op == scenarios.OpRead || op == scenarios.OpRMW {
					ins := *r
					ins.Op = scenarios.OpInsert
					if err := tg.Do(ctx, &ins); err != nil {
						t.Errorf("%s: insert: %v", sc.File, err)
					}
				}
				if err := tg.Do(ctx, r); err != nil && !errors.Is(err, targets.ErrNotFound) {
					t.Errorf("%s: phase %s op %s: %v", sc.File, p.Name, name, err)
				}
			}
		}
	}
}

// TestRedisScenarioCatalog loads every shipped scenarios/redis-*.yaml
// strictly and checks each uses only ops this adapter runs.
func TestRedisScenarioCatalog(t *testing.T) {
	files, err := filepath.Glob("../../scenarios/redis-*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 16 {
		t.Fatalf("found %d redis scenarios: %v", len(files), files)
	}
	for _, f := range files {
		sc, err := scenarios.LoadFile(f)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if sc.Target.Kind != "redis" {
			t.Errorf("%s: kind %s", f, sc.Target.Kind)
		}
		runScenarioOps(t, sc)
	}
	suite, err := scenarios.LoadFile("../../scenarios/redis-benchmark-suite.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var ops []string
	for _, p := range suite.Phases {
		if p.Concurrency != 50 || p.Rate != 0 || p.Requests != 100000 || p.Duration != 0 {
			t.Errorf("suite phase %s: concurrency %d rate %g requests %d duration %s, want 50 clients closed loop, 100000 requests (redis-benchmark -c 50 -n 100000)",
				p.Name, p.Concurrency, p.Rate, p.Requests, p.Duration)
		}
		for name := range p.Mix {
			ops = append(ops, name)
		}
	}
	// redis-benchmark 7's test order; ping is PING_MBULK.
	want := "ping_inline ping set get incr lpush rpush lpop rpop sadd hset spop zadd zpopmin lpush lrange_100 lrange_300 lrange_500 lrange_600 mset"
	if got := strings.Join(ops, " "); got != want {
		t.Errorf("suite ops %q, want %q", got, want)
	}
	aof, err := scenarios.LoadFile("../../scenarios/redis-benchmark-aof.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if m := aof.Target.Managed; m == nil || strings.Join(m.Persistences, ",") != "none,aof:everysec" {
		t.Errorf("aof scenario managed block: %+v", m)
	}
}
