package redis

import (
	"context"
	"os"
	"sort"
	"sync"
	"testing"

	goredis "github.com/redis/go-redis/v9"

	"github.com/soakd/soakd/engine"
	"github.com/soakd/soakd/internal/testutil"
	"github.com/soakd/soakd/scenarios"
)

// ftSearchHook records the query and the hit count of every FT.SEARCH
// the adapter's client sends.
type ftSearchHook struct {
	mu      sync.Mutex
	queries []string
	totals  []int64
}

func (h *ftSearchHook) DialHook(next goredis.DialHook) goredis.DialHook { return next }

func (h *ftSearchHook) ProcessHook(next goredis.ProcessHook) goredis.ProcessHook {
	return func(ctx context.Context, cmd goredis.Cmder) error {
		err := next(ctx, cmd)
		h.see(cmd)
		return err
	}
}

func (h *ftSearchHook) ProcessPipelineHook(next goredis.ProcessPipelineHook) goredis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []goredis.Cmder) error {
		err := next(ctx, cmds)
		for _, c := range cmds {
			h.see(c)
		}
		return err
	}
}

func (h *ftSearchHook) see(cmd goredis.Cmder) {
	args := cmd.Args()
	if len(args) < 3 || args[0] != "FT.SEARCH" {
		return
	}
	total := int64(-1)
	if c, ok := cmd.(*goredis.Cmd); ok {
		if v, err := c.Slice(); err == nil && len(v) > 0 {
			total, _ = v[0].(int64)
		}
	}
	q, _ := args[2].(string)
	h.mu.Lock()
	h.queries = append(h.queries, q)
	h.totals = append(h.totals, total)
	h.mu.Unlock()
}

// TestSearchMixThroughEngine runs a load and a search mix through
// engine.Run against redis-server with RediSearch 1.2: every FT.SEARCH
// carries the engine's query for its record (scenarios.SearchQuery), and
// every search finds documents.
func TestSearchMixThroughEngine(t *testing.T) {
	if _, err := os.Stat(redisearchSO); err != nil {
		t.Fatalf("%s is missing: install redis-redisearch (CI does)", redisearchSO)
	}
	s := startRedis(t, "--loadmodule", redisearchSO, "TIMEOUT", "0")
	tg := openURL(t, s)
	hook := &ftSearchHook{}
	tg.c.AddHook(hook)
	sc, err := scenarios.Parse("search.yaml", []byte(`
target: {kind: redis, url: "redis://`+s.Addr()+`"}
record: {fields: 3, field_bytes: 20}
keyspace: {records: 400, prefix: "doc:"}
phases:
  - {name: load, kind: load, concurrency: 4}
  - {name: run, kind: steady, rate: 0, requests: 300, concurrency: 4, mix: {search: 58.5, read: 31.5, update: 10}}
`))
	if err != nil {
		t.Fatal(err)
	}
	rec := &testutil.Recorder{Inner: tg}
	sum, err := engine.Run(ctxT(t), engine.Options{Scenario: sc, Target: rec, TargetKind: "redis", OutDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range sum.Phases {
		if p.Errors != 0 {
			t.Fatalf("phase %s: %d errors: %+v", p.Name, p.Errors, p.Ops)
		}
	}
	var want []string
	for _, r := range testutil.Searches(rec.Sent()) {
		want = append(want, scenarios.SearchQuery(r.KeyNum))
		if r.Query != scenarios.SearchQuery(r.KeyNum) {
			t.Fatalf("engine sent record %d's search with query %q", r.KeyNum, r.Query)
		}
	}
	hook.mu.Lock()
	got, totals := append([]string(nil), hook.queries...), append([]int64(nil), hook.totals...)
	hook.mu.Unlock()
	if len(want) < 100 {
		t.Fatalf("only %d searches", len(want))
	}
	sort.Strings(want)
	sort.Strings(got)
	if len(got) != len(want) {
		t.Fatalf("%d FT.SEARCH sent for %d search ops", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("FT.SEARCH queries differ from the engine's: %q vs %q", got[i], want[i])
		}
	}
	for i, n := range totals {
		if n < 1 {
			t.Fatalf("FT.SEARCH %d found %d documents after the load", i, n)
		}
	}
}
