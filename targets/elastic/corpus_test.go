package elastic

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/soakd/soakd/corpus"
	"github.com/soakd/soakd/engine"
	"github.com/soakd/soakd/internal/testutil"
	"github.com/soakd/soakd/scenarios"
)

// A corpus search mix through engine.Run against the indexing fake: the
// documents are the corpus's (keyed by its id), the index maps the
// query fields as text, every _search asks all the words of the
// engine's corpus query over those fields, and most find documents.
func TestCorpusSearchThroughEngine(t *testing.T) {
	x := newIndexingES()
	f := newFake(t, x.handle)
	tg := openT(t, f.URL, scenarios.Client{}, scenarios.Auth{}, nil)
	src, _ := filepath.Abs("../../scenarios/testdata/corpus/docs.ndjson.gz")
	sc, err := scenarios.Parse("corpus.yaml", []byte(`
target: {kind: elastic, url: "`+f.URL+`"}
record: {source: "`+src+`", key_field: id, query: {terms: 2, from: [title, body]}}
keyspace: {records: 500, prefix: "doc:"}
phases:
  - {name: load, kind: load, concurrency: 4}
  - {name: run, kind: steady, rate: 0, requests: 100, concurrency: 4, mix: {search: 100}}
`))
	if err != nil {
		t.Fatal(err)
	}
	rec := &testutil.Recorder{Inner: tg}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sum, err := engine.Run(ctx, engine.Options{Scenario: sc, Target: rec, TargetKind: "elastic", OutDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range sum.Phases {
		if p.Errors != 0 {
			t.Fatalf("phase %s: %d errors", p.Name, p.Errors)
		}
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	jsonEq(t, "create index", x.mapping, `{"mappings":{"properties":{"id":{"type":"keyword"},"num":{"type":"long"},"title":{"type":"text"},"body":{"type":"text"}}}}`)
	c, err := corpus.Open(src, corpus.Options{KeyField: "id"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if len(x.docs) != 500 {
		t.Fatalf("%d documents", len(x.docs))
	}
	d0, _ := c.Read(0)
	got := x.docs["doc:p00001"]
	for _, fd := range d0 {
		if fd.Name == "id" {
			continue
		}
		if s, ok := got[fd.Name].(string); !ok || s != string(fd.Value) {
			t.Fatalf("doc:p00001 field %s = %v, corpus has %q", fd.Name, got[fd.Name], fd.Value)
		}
	}
	if len(x.searches) < 80 {
		t.Fatalf("%d searches", len(x.searches))
	}
	sent := map[string]bool{}
	for _, s := range testutil.Searches(rec.Sent()) {
		sent[s.Query] = true
	}
	found := 0
	for _, s := range x.searches {
		if !sent[s.query] {
			t.Fatalf("_search %q is not a query the engine made", s.query)
		}
		if s.total > 0 {
			found++
		}
	}
	if found < len(x.searches)/2 {
		t.Fatalf("%d of %d searches found documents", found, len(x.searches))
	}
}
