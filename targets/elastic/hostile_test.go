package elastic_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/soakd/soakd/internal/storetest"
	"github.com/soakd/soakd/targets"
	"github.com/soakd/soakd/targets/elastic"
)

// recorder is the ES-shaped server with every request's method, path as
// sent (escaped) and body kept.
type recorder struct {
	es   *esDocs
	mu   sync.Mutex
	seen []string // "METHOD escaped-path"
	body map[string][]string
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	b, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	r.seen = append(r.seen, req.Method+" "+req.URL.EscapedPath())
	r.body[req.Method+" "+req.URL.EscapedPath()] = append(r.body[req.Method+" "+req.URL.EscapedPath()], string(b))
	r.mu.Unlock()
	req.Body = io.NopCloser(bytes.NewReader(b))
	r.es.ServeHTTP(w, req)
}

// Values drawn by {key}, bindings and choices that hold JSON or path
// syntax cannot change the structure of an elastic custom op's body or
// climb out of their path segment: the bodies the server receives are
// the template's shape with the values as strings, and a DELETE whose
// value tries ../../_all is counted as an error and never sent.
func TestCustomElasticHostileValues(t *testing.T) {
	rec := &recorder{es: &esDocs{docs: map[string]string{}, reqs: map[string]int{}}, body: map[string][]string{}}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	sc := storetest.Parse(t, "hostile.yaml", `name: hostile-es
target: {kind: elastic, url: "`+srv.URL+`", client: {collection: products}}
keyspace: {records: 20, prefix: 'k", "evil": {"x": "'}
bindings:
  climb: {gen: 'choice:../../_all,..,../_all,a/../../b,x%2F..%2F..'}
  brace: {gen: 'choice:a"}}]{"script":"boom"}:x,d\\,{"q":1}'}
ops:
  put: {elastic: {method: PUT, path: "/products/_doc/{key}", body: '{"name": "{key}", "tag": "{brace}", "n": {brace}}'}}
  drop: {elastic: {method: DELETE, path: "/products/_doc/{climb}"}}
  look: {elastic: {path: "/products/_search?q={brace}", body: '{"query": {"term": {"{brace}": "{key}"}}}'}, miss_when: empty}
phases:
  - {name: hostile, kind: steady, requests: 300, concurrency: 2, mix: {put: 40, drop: 30, look: 30}}
`)
	sum := storetest.Run(t, sc)
	ops := sum.Phases[0].Result.Ops
	// Every drop fails: refused before it is sent, or (the strange id)
	// answered 400 by this server, which takes no DELETE.
	if o := ops["drop"]; o.Count == 0 || storetest.Errors(o) != o.Count {
		t.Errorf("drop: %d ops, errors %v: want every one an error", o.Count, o.Errors)
	}
	if o := ops["put"]; o.Count == 0 || storetest.Errors(o) != 0 {
		t.Errorf("put: %d ops, errors %v", o.Count, o.Errors)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	// The one value that names a document (x%2F..%2F.., a strange id)
	// goes out as that id, its '%' escaped; no other DELETE is sent.
	for _, s := range rec.seen {
		if s == "DELETE /products/_doc/x%252F..%252F.." {
			continue
		}
		if strings.HasPrefix(s, "DELETE ") || strings.Contains(s, "_all") || strings.Contains(s, "/../") || strings.HasSuffix(s, "/..") {
			t.Errorf("sent %s", s)
		}
	}
	puts := 0
	for k, bodies := range rec.body {
		if !strings.HasPrefix(k, "PUT /products/_doc/") {
			continue
		}
		if strings.Count(k, "/") != 3 {
			t.Errorf("PUT path %s has more than one id segment", k)
		}
		for _, b := range bodies {
			puts++
			var doc map[string]any
			if err := json.Unmarshal([]byte(b), &doc); err != nil {
				t.Fatalf("body %s: %v", b, err)
			}
			name, _ := doc["name"].(string)
			tag, _ := doc["tag"].(string)
			n, _ := doc["n"].(string)
			if len(doc) != 3 || !strings.HasPrefix(name, `k", "evil": {"x": "`) || tag != n || !(tag == `a"}}]{"script":"boom"}:x` || tag == `d\\` || tag == `{"q":1}`) {
				t.Errorf("body %s changed shape: %v", b, doc)
			}
		}
	}
	if puts == 0 {
		t.Error("no PUT reached the server")
	}
	for k, bodies := range rec.body {
		if !strings.HasPrefix(k, "POST /products/_search") {
			continue
		}
		for _, b := range bodies {
			var q struct {
				Query struct {
					Term map[string]string `json:"term"`
				} `json:"query"`
			}
			if err := json.Unmarshal([]byte(b), &q); err != nil || len(q.Query.Term) != 1 {
				t.Errorf("search body %s: %v %v", b, q, err)
			}
		}
	}
}

// A template that climbs is refused at validate; one that gets past it
// only by its rendered value is refused at run time (above).
func TestCustomElasticClimbRefusedAtValidate(t *testing.T) {
	for _, path := range []string{"/products/_doc/../../_all", "/products/_doc/%2E%2E/%2E%2E/_all", "/products/_doc/{key}/../.."} {
		_, err := targets.ParseScenario("climb.yaml", []byte(`name: climb
target: {kind: elastic, url: "http://127.0.0.1:9200"}
ops:
  drop: {elastic: {method: DELETE, path: "`+path+`"}}
phases:
  - {name: p, kind: steady, requests: 10, mix: {drop: 100}}
`))
		if err == nil || !strings.Contains(err.Error(), "climb") || !strings.Contains(err.Error(), "climb.yaml:4") {
			t.Errorf("DELETE %s: %v", path, err)
		}
	}
	if err := elastic.CheckPath("DELETE", "/products/_doc/a%2Fb", false); err == nil {
		t.Error("DELETE of /products/_doc/a/b passed")
	}
	if err := elastic.CheckPath("DELETE", "/products/_doc/k1?refresh=true", false); err != nil {
		t.Error(err)
	}
}
