package targets_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/soakd/soakd/internal/runpath"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
	_ "github.com/soakd/soakd/targets/cql"
	_ "github.com/soakd/soakd/targets/elastic"
	_ "github.com/soakd/soakd/targets/embedded"
	_ "github.com/soakd/soakd/targets/mongo"
	_ "github.com/soakd/soakd/targets/redis"
)

// TestShippedScenariosPassTheStores: every scenario in the catalog
// passes its store's client: checks, as `soakd validate` runs them.
func TestShippedScenariosPassTheStores(t *testing.T) {
	files, err := filepath.Glob("../scenarios/*.yaml")
	if err != nil || len(files) < 20 {
		t.Fatalf("catalog: %d files, %v", len(files), err)
	}
	for _, f := range files {
		if _, err := targets.LoadScenario(f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// TestEveryKindHasASchema: each built-in kind is registered, in the
// order messages name them, with a schema, so scenario validation knows
// its client: keys; the messages naming the kinds and the URL schemes
// read as they did when scenarios listed them itself.
func TestEveryKindHasASchema(t *testing.T) {
	stores := targets.Stores()
	var kinds []string
	for _, k := range stores.StoreKinds() {
		kinds = append(kinds, string(k))
		if st, ok := stores.Store(k); !ok || st.Schema == nil || st.Kind != k {
			t.Errorf("kind %s: no schema registered (%+v)", k, st)
		}
	}
	if got := strings.Join(kinds, ","); got != "embedded,redis,mongo,elastic,cql" {
		t.Errorf("kinds %s", got)
	}
	if got, want := scenarios.UnknownKind(stores, "postgres"), `unknown target kind "postgres" (use embedded, redis, mongo, elastic or cql (aliases scylla, cassandra))`; got != want {
		t.Errorf("UnknownKind:\n got %s\nwant %s", got, want)
	}
	if got, want := scenarios.SchemeHint(stores), "redis://, rediss://, mongodb://, http(s)://, cql://, cqls://"; got != want {
		t.Errorf("SchemeHint:\n got %s\nwant %s", got, want)
	}
	for u, want := range map[string]scenarios.TargetKind{
		"redis://h": "redis", "rediss://h": "redis", "unix:///s.sock": "redis", "mongodb://h": "mongo", "mongodb+srv://h": "mongo",
		"http://h:9200": "elastic", "https://h": "elastic", "cql://h/ks": "cql", "cqls://h/ks": "cql", "ftp://h": "", "": "",
	} {
		if got := scenarios.KindOfURL(stores, u); got != want {
			t.Errorf("KindOfURL(%q) = %q, want %q", u, got, want)
		}
	}
	for kind, depth := range map[scenarios.TargetKind]int{"embedded": 256, "redis": 256, "mongo": 100, "elastic": 500, "cql": 16, "scylla": 16, "cassandra": 16} {
		if st, _ := stores.Store(kind); st.DefaultMaxBatch != depth {
			t.Errorf("%s: default max_batch %d, want %d", kind, st.DefaultMaxBatch, depth)
		}
	}
	if _, err := targets.Open(context.Background(), scenarios.Target{Kind: "postgres"}, targets.Options{}); err == nil || !strings.Contains(err.Error(), `unknown target kind "postgres" (use embedded,`) {
		t.Errorf("Open(postgres): %v", err)
	}
}

// TestScenariosHoldNoStoreOptions: the schema package names no store's
// own client: option or URL parameter; they live beside their adapter
// (targets/<store>/config.go), so a new store does not edit scenarios.
func TestScenariosHoldNoStoreOptions(t *testing.T) {
	files, _ := filepath.Glob("../scenarios/*.go")
	storeWords := regexp.MustCompile(`read_preference|write_concern|master_name|index_shards|index_replicas|"refresh"|RedisMode|ReadPreference|SearchFormat|RedisProtocol|CQLURL|ParseCQL`)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if m := storeWords.Find(src); m != nil {
			t.Errorf("%s names a store's own option: %s", f, m)
		}
	}
}

// TestOverrideToAnotherStore: --target switching a scenario to another
// kind of store is checked against that store's client: keys (the
// redis-only search: would not apply to mongo, so it is refused, by
// name), and a scenario without such keys switches.
func TestOverrideToAnotherStore(t *testing.T) {
	sc, err := targets.LoadScenario("../scenarios/redis-search-mix.yaml")
	if err != nil {
		t.Fatal(err)
	}
	fes, err := runpath.Apply(sc, runpath.Overrides{Target: "mongodb://127.0.0.1:27017"})
	if err != nil || len(fes) != 1 || fes[0].Path != "target.client.search" || fes[0].Msg != "only a redis target takes search (this is a mongo target)" {
		t.Errorf("redis-search-mix.yaml on mongo: %v %v", fes, err)
	}
	sc, err = targets.LoadScenario("../scenarios/redis-caching-500k-12h.yaml") // client: {pool_size: 128}
	if err != nil {
		t.Fatal(err)
	}
	if fes, err := runpath.Apply(sc, runpath.Overrides{Target: "http://127.0.0.1:9200"}); err != nil || len(fes) > 0 {
		t.Errorf("redis-caching-500k-12h.yaml on elastic: %v %v", fes, err)
	}
}
