package redis

import (
	"os"
	"strings"
	"testing"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"

	"github.com/soakd/soakd/internal/testutil"
)

const redisearchSO = "/usr/lib/redis/modules/redisearch.so"

func searchScenario() *scenarios.Scenario {
	return &scenarios.Scenario{
		Keyspace: scenarios.Keyspace{Prefix: "user"},
		Phases: []scenarios.Phase{
			{Name: "load", Kind: scenarios.PhaseLoad, Mix: map[string]float64{"insert": 100}},
			{Name: "run", Kind: scenarios.PhaseSteady, Mix: map[string]float64{"search": 65, "read": 35}},
		},
	}
}

func TestSearchRediSearch1(t *testing.T) {
	testutil.NeedFile(t, redisearchSO)
	s := startRedis(t, "--loadmodule", redisearchSO, "TIMEOUT", "0")
	tg := openURL(t, s)
	rc := rawClient(t, s)
	ctx := ctxT(t)
	if err := tg.Prepare(ctx, searchScenario()); err != nil {
		t.Fatal(err)
	}
	if tg.search.mode != searchFT1 || !strings.Contains(tg.Describe(), "RediSearch 1.2") {
		t.Fatalf("mode %d, describe %q", tg.search.mode, tg.Describe())
	}
	// Prepare is idempotent (index already exists).
	if err := tg.Prepare(ctx, searchScenario()); err != nil {
		t.Fatal(err)
	}
	for n := int64(0); n < 200; n++ {
		if err := tg.Do(ctx, insertReq(n)); err != nil {
			t.Fatalf("insert: %v", err)
		}
	}
	title, body := scenarios.DocText(17)
	if got := rc.HGetAll(ctx, string(key(17))).Val(); got["title"] != title || got["body"] != body || got["num"] != "17" || got["field0"] != "v17-0" {
		t.Fatalf("document 17: %v", got)
	}
	// A query made of record 17's title words finds it.
	res, err := rc.Do(ctx, "FT.SEARCH", SearchIndex, title, "SORTBY", "num", "LIMIT", 0, 1000, "NOCONTENT").Slice()
	if err != nil || res[0].(int64) < 1 {
		t.Fatalf("FT.SEARCH %q: %v %v", title, res, err)
	}
	found := false
	for _, id := range res[1:] {
		found = found || id == string(key(17))
	}
	if !found {
		t.Fatalf("record 17 not found by its title %q", title)
	}
	for _, r := range []*targets.Request{
		{Op: scenarios.OpSearch, KeyNum: 3, Query: title, Page: 0, PageSize: 5},
		{Op: scenarios.OpSearch, KeyNum: 9, Query: scenarios.SearchQuery(9)},
		{Op: scenarios.OpSearch, KeyNum: 9, Query: scenarios.SearchQuery(9), Page: 2, PageSize: 10},
		{Op: scenarios.OpRead, KeyNum: 17, Key: key(17)},
	} {
		if err := tg.Do(ctx, r); err != nil {
			t.Fatalf("%s: %v", r.Op, err)
		}
	}
	// The adapter never makes up a query.
	if err := tg.Do(ctx, &targets.Request{Op: scenarios.OpSearch, KeyNum: 9}); err == nil || !strings.Contains(err.Error(), "without a query") {
		t.Fatalf("search without a query: %v", err)
	}
	// Updates go through FT.ADD ... PARTIAL so the index sees them.
	up := &targets.Request{Op: scenarios.OpUpdate, KeyNum: 17, Key: key(17), Fields: []targets.Field{{Name: "title", Value: []byte("zzuniqueword")}}}
	if err := tg.Do(ctx, up); err != nil {
		t.Fatal(err)
	}
	res, err = rc.Do(ctx, "FT.SEARCH", SearchIndex, "zzuniqueword", "NOCONTENT").Slice()
	if err != nil || res[0].(int64) != 1 || res[1] != string(key(17)) {
		t.Fatalf("updated doc not indexed: %v %v", res, err)
	}
	if rc.HGet(ctx, string(key(17)), "field1").Val() != "v17-1" {
		t.Fatal("partial update dropped other fields")
	}
	if err := tg.Do(ctx, &targets.Request{Op: scenarios.OpDelete, KeyNum: 17, Key: key(17)}); err != nil {
		t.Fatal(err)
	}
	res, _ = rc.Do(ctx, "FT.SEARCH", SearchIndex, "zzuniqueword", "NOCONTENT").Slice()
	if res[0].(int64) != 0 || rc.Exists(ctx, string(key(17))).Val() != 0 {
		t.Fatalf("delete left the document: %v", res)
	}
	// Batches of searches go through one pipeline.
	reqs := []*targets.Request{{Op: scenarios.OpSearch, KeyNum: 1, Query: scenarios.SearchQuery(1)}, {Op: scenarios.OpSearch, KeyNum: 2, Query: scenarios.SearchQuery(2)}, {Op: scenarios.OpRead, KeyNum: 3, Key: key(3)}}
	errs := make([]error, 3)
	tg.DoBatch(ctx, reqs, errs)
	for _, e := range errs {
		if e != nil {
			t.Fatal(e)
		}
	}
}

func TestSearchWithoutModuleFailsAtPrepare(t *testing.T) {
	s := startRedis(t)
	tg := openURL(t, s)
	err := tg.Prepare(ctxT(t), searchScenario())
	if err == nil || !strings.Contains(err.Error(), "RediSearch") || !strings.Contains(err.Error(), "no RediSearch module") {
		t.Fatalf("Prepare: %v", err)
	}
	// A scenario without search needs no module.
	if err := tg.Prepare(ctxT(t), &scenarios.Scenario{Phases: []scenarios.Phase{{Mix: map[string]float64{"read": 100}}}}); err != nil {
		t.Fatal(err)
	}
	// JSON documents need RedisJSON, which is not installed here.
	if _, err := os.Stat(redisearchSO); err == nil {
		s2 := startRedis(t, "--loadmodule", redisearchSO, "TIMEOUT", "0")
		tg2 := openTarget(t, scenarios.Target{URL: s2.URL(), Client: scenarios.ClientOf(scenarios.ClientCommon{}, ClientConfig{Search: "json"})}, targets.Options{})
		if err := tg2.Prepare(ctxT(t), searchScenario()); err == nil || !strings.Contains(err.Error(), "RedisJSON") {
			t.Fatalf("json without RedisJSON: %v", err)
		}
	}
}
