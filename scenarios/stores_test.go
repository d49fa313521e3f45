package scenarios

import (
	"slices"
	"strings"
	"testing"
)

// testStores is a store registry for tests: each Store as an adapter
// declares it. Package targets implements the real one.
type testStores []Store

func (ts testStores) Store(k TargetKind) (Store, bool) {
	for _, st := range ts {
		if st.Kind == k || slices.Contains(st.Aliases, k) {
			return st, true
		}
	}
	return Store{}, false
}

func (ts testStores) StoreKinds() []TargetKind {
	out := make([]TargetKind, len(ts))
	for i, st := range ts {
		out[i] = st.Kind
	}
	return out
}

// likeBuiltins declares stores the way soakd's own adapters do, for
// the tests that need their names, aliases, schemes or pipelines.
var likeBuiltins = testStores{
	{Kind: KindEmbedded, DefaultMaxBatch: 256},
	{Kind: KindRedis, URLSchemes: []string{"redis", "rediss", "unix"}, SchemeHint: "redis://, rediss://", DefaultMaxBatch: 256},
	{Kind: KindMongo, URLSchemes: []string{"mongodb", "mongodb+srv"}, SchemeHint: "mongodb://", DefaultMaxBatch: 100},
	{Kind: KindElastic, URLSchemes: []string{"http", "https"}, SchemeHint: "http(s)://", DefaultMaxBatch: 500},
	{Kind: KindCQL, Aliases: []TargetKind{"scylla", "cassandra"}, URLSchemes: []string{"cql", "cqls"}, DefaultMaxBatch: 16},
}

// TestKindsFromTheStores: target.kind, its aliases, the kind a URL
// selects, the messages naming them and the pipeline the memory bound
// assumes all come from the stores the scenario is read with.
func TestKindsFromTheStores(t *testing.T) {
	const phases = "phases: [{name: a, kind: steady, rate: 10, duration: 1s, mix: {read: 100}}]\n"
	_, err := ParseWith("bad.yaml", []byte("target: {kind: postgres}\n"+phases), likeBuiltins)
	if want := `bad.yaml:1: target.kind: unknown target kind "postgres" (use embedded, redis, mongo, elastic or cql (aliases scylla, cassandra))`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("kind postgres: %v\nwant %s", err, want)
	}
	if got, want := SchemeHint(likeBuiltins), "redis://, rediss://, mongodb://, http(s)://, cql://, cqls://"; got != want {
		t.Errorf("SchemeHint = %q, want %q", got, want)
	}
	for _, c := range []struct{ target, kind, store string }{
		{"{url: 'mongodb+srv://h/db'}", "mongo", "mongo"},
		{"{url: 'unix:///tmp/r.sock'}", "redis", "redis"},
		{"{kind: scylla, url: 'cql://h/ks'}", "scylla", "cql"},
		{"{}", "embedded", "embedded"},
	} {
		sc, err := ParseWith("k.yaml", []byte("target: "+c.target+"\n"+phases), likeBuiltins)
		if err != nil {
			t.Errorf("%s: %v", c.target, err)
			continue
		}
		if string(sc.Target.Kind) != c.kind || string(sc.StoreKind()) != c.store {
			t.Errorf("%s: kind %s, store %s; want %s, %s", c.target, sc.Target.Kind, sc.StoreKind(), c.kind, c.store)
		}
	}
	_, err = ParseWith("m.yaml", []byte("target: {kind: cassandra, url: 'http://h:9200'}\n"+phases), likeBuiltins)
	if err == nil || !strings.Contains(err.Error(), "m.yaml:1: target.url: URL scheme is for elastic but target.kind is cassandra") {
		t.Errorf("cassandra at http://: %v", err)
	}
	// The pipeline depth of the memory bound is the store's.
	big := "record: {fields: 10, field_bytes: 10000}\nkeyspace: {records: 100}\nphases: [{kind: steady, duration: 1s, rate: 1000, concurrency: 10000, mix: {read: 100}}]\n"
	for kind, depth := range map[string]string{"mongo": "100", "elastic": "500", "scylla": "16"} {
		_, err := ParseWith("d.yaml", []byte("target: {kind: "+kind+"}\n"+big), likeBuiltins)
		if err == nil || !strings.Contains(err.Error(), "a pipeline of "+depth+" records") {
			t.Errorf("%s: %v", kind, err)
		}
	}
}

// TestKindsWithoutTheStores: read without a registry (plain Parse, as
// tests do) a kind is taken as written and checked when the target
// opens; only a URL without a kind cannot be placed, and says so.
func TestKindsWithoutTheStores(t *testing.T) {
	const phases = "phases: [{name: a, kind: steady, rate: 10, duration: 1s, mix: {read: 100}}]\n"
	sc, err := Parse("p.yaml", []byte("target: {kind: postgres, url: 'pg://h'}\n"+phases))
	if err != nil || sc.Target.Kind != "postgres" || sc.StoreKind() != "postgres" {
		t.Errorf("postgres without the stores: %v", err)
	}
	if sc, err := Parse("e.yaml", []byte(phases)); err != nil || sc.Target.Kind != KindEmbedded {
		t.Errorf("no target: %v", err)
	}
	_, err = Parse("u.yaml", []byte("target: {url: 'redis://h:6379'}\n"+phases))
	if err == nil || !strings.Contains(err.Error(), "u.yaml:1: target.kind: not given, and the URL's scheme names a store only when the scenario is read with the store registry") {
		t.Errorf("url without kind: %v", err)
	}
}
