package elastic_test

import (
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/soakd/soakd/internal/storetest"
	"github.com/soakd/soakd/targets"
)

// An NDJSON op log replayed through engine.Run on the ES-shaped server:
// every op is sent as its method, path (the index under key_prefix) and
// body, counted by group (method and endpoint); a GET of a document the
// replay never wrote is a miss; a scroll is skipped and listed; a
// destructive request refuses the capture.
func TestReplayElastic(t *testing.T) {
	es := &esDocs{docs: map[string]string{}, reqs: map[string]int{}}
	srv := httptest.NewServer(es)
	defer srv.Close()
	dir := t.TempDir()
	var log storetest.OpLog
	add := log.Add
	for i := range 10 {
		add(`"op": "PUT", "args": ["/products/_doc/%d", {"title": "lamp %d"}]`, i, i)
	}
	for i := range 10 {
		add(`"op": "get", "args": ["/products/_doc/%d"]`, i)
	}
	add(`"op": "GET", "args": ["/products/_doc/absent1"]`)
	add(`"op": "GET", "args": ["/products/_doc/absent2"]`)
	for range 5 {
		add(`"op": "POST", "args": ["/products/_search", {"query": {"match": {"title": "lamp"}}}]`)
	}
	for i := range 3 {
		add(`"op": "POST", "args": ["/products/_bulk", [{"index": {"_id": "b%d"}}, {"title": "bulk"}]]`, i)
	}
	add(`"op": "POST", "args": ["/_search/scroll", {"scroll_id": "abc"}]`)
	capPath := filepath.Join(dir, "ops.ndjson")
	if err := os.WriteFile(capPath, []byte(strings.Join(log.Lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sc := storetest.Parse(t, filepath.Join(dir, "r.yaml"), `name: replay-es
target: {kind: elastic, url: "`+srv.URL+`"}
phases:
  - {name: replay, kind: replay, source: ops.ndjson, format: ndjson, key_prefix: replay-, concurrency: 1}
slo: {latency: {PUT_DOC: {p99: 10s}, "*": {max: 20s}}}
`)
	ss := storetest.Open(t, sc)
	sum := ss.MustRun(sc)
	p := sum.Phases[0]
	if p.Result.Errors != 0 || p.Result.Completed != 30 {
		t.Fatalf("completed %d, errors %d: %+v", p.Result.Completed, p.Result.Errors, p.Result.Ops)
	}
	for g, want := range map[string]int64{"PUT_DOC": 10, "GET_DOC": 12, "POST_SEARCH": 5, "POST_BULK": 3} {
		if n := p.Result.Ops[g].Count; n != want {
			t.Errorf("%s: %d ops, want %d", g, n, want)
		}
	}
	if m := p.Result.Ops["GET_DOC"].Misses; m != 2 {
		t.Errorf("GET_DOC misses %d, want the 2 absent documents", m)
	}
	if p.Replay == nil || p.Replay.Skipped["POST /_search/scroll"] != 1 {
		t.Errorf("skipped %+v", p.Replay)
	}
	// The limits are judged per group: PUT_DOC's own p99, GET_DOC by "*".
	judged := map[string]bool{}
	for _, c := range p.SLO.Checks {
		judged[fmt.Sprintf("%s p%g", c.Op, c.Percentile)] = true
	}
	if !p.SLO.Passed || !judged["PUT_DOC p99"] || !judged["GET_DOC p100"] {
		t.Errorf("slo verdict %+v", p.SLO)
	}
	es.mu.Lock()
	for shape, want := range map[string]int{"PUT /replay-products/_doc/ID": 10, "GET /replay-products/_doc/ID": 12,
		"POST /replay-products/_search": 5, "POST /replay-products/_bulk": 3} {
		if es.reqs[shape] != want {
			t.Errorf("server saw %d %s, want %d (all: %v)", es.reqs[shape], shape, want, es.reqs)
		}
	}
	if len(es.docs) != 10 || es.docs["/replay-products/_doc/3"] != `{"title": "lamp 3"}` {
		t.Errorf("docs %v", es.docs)
	}
	es.mu.Unlock()

	// A destructive request refuses the capture, naming its line: at
	// validate (which indexes the capture as the run would), and at the
	// run's own index when the capture changed after validation.
	bad := filepath.Join(dir, "drop.ndjson")
	os.WriteFile(bad, []byte(log.Lines[0]+"\n"+`{"ts": 200, "op": "DELETE", "args": ["/products"]}`+"\n"), 0o644)
	src := `target: {kind: elastic, url: "` + srv.URL + `"}
phases:
  - {name: replay, kind: replay, source: drop.ndjson, format: ndjson}
`
	if _, err := targets.ParseScenario(filepath.Join(dir, "d.yaml"), []byte(src)); err == nil || !strings.Contains(err.Error(), "d.yaml:3: phases[0].source: "+bad+": line 2: DELETE /products destroys data") {
		t.Errorf("destructive capture at validate: %v", err)
	}
	os.WriteFile(bad, []byte(log.Lines[0]+"\n"), 0o644)
	sc2 := storetest.Parse(t, filepath.Join(dir, "d.yaml"), src)
	os.WriteFile(bad, []byte(log.Lines[0]+"\n"+`{"ts": 200, "op": "DELETE", "args": ["/products"]}`+"\n"), 0o644)
	_, err := ss.Run(sc2)
	if err == nil || !strings.Contains(err.Error(), "line 2: DELETE /products destroys data") {
		t.Errorf("destructive capture: %v", err)
	}
}
