package elastic_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/soakd/soakd/internal/storetest"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
	_ "github.com/soakd/soakd/targets/elastic"
)

// esDocs is an Elasticsearch-shaped server holding documents in memory:
// the root, index HEAD, PUT/GET of /{index}/_doc/{id}, _count and
// _search over every document, and _bulk (which reports errors: true
// for any line holding "fail").
type esDocs struct {
	mu   sync.Mutex
	docs map[string]string
	reqs map[string]int // "METHOD path-shape" -> requests
}

func (e *esDocs) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	w.Header().Set("X-Elastic-Product", "Elasticsearch")
	w.Header().Set("Content-Type", "application/json")
	e.mu.Lock()
	defer e.mu.Unlock()
	p := r.URL.Path
	shape := p
	if i := strings.Index(p, "/_doc/"); i >= 0 {
		shape = p[:i+6] + "ID"
	}
	e.reqs[r.Method+" "+shape]++
	switch {
	case p == "/":
		fmt.Fprint(w, `{"name":"n","cluster_name":"c","version":{"number":"8.13.0"},"tagline":"You Know, for Search"}`)
	case r.Method == http.MethodHead:
		w.WriteHeader(200)
	case r.Method == http.MethodPut && strings.Contains(p, "/_doc/"):
		e.docs[p] = string(body)
		w.WriteHeader(201)
		fmt.Fprint(w, `{"result":"created","_shards":{"total":1,"successful":1,"failed":0}}`)
	case r.Method == http.MethodGet && strings.Contains(p, "/_doc/"):
		if _, ok := e.docs[p]; !ok {
			w.WriteHeader(404)
			fmt.Fprint(w, `{"_index":"i","_id":"x","found":false}`)
			return
		}
		fmt.Fprint(w, `{"_index":"i","_id":"x","found":true,"_source":{}}`)
	case strings.HasSuffix(p, "/_count"):
		if strings.Contains(string(body), "nothing") {
			fmt.Fprint(w, `{"count":0,"_shards":{"failed":0}}`)
			return
		}
		fmt.Fprintf(w, `{"count":%d,"_shards":{"failed":0}}`, len(e.docs))
	case strings.HasSuffix(p, "/_search"):
		if strings.Contains(string(body), "broken") {
			fmt.Fprint(w, `{"took":1,"timed_out":false,"_shards":{"total":2,"successful":1,"failed":1},"hits":{"total":{"value":0},"hits":[]}}`)
			return
		}
		fmt.Fprintf(w, `{"took":1,"timed_out":false,"_shards":{"failed":0},"hits":{"total":{"value":%d},"hits":[{"_id":"a"}]}}`, len(e.docs))
	case strings.HasSuffix(p, "/_bulk"):
		fmt.Fprintf(w, `{"took":1,"errors":%v,"items":[]}`, strings.Contains(string(body), "fail"))
	default:
		w.WriteHeader(400)
		fmt.Fprint(w, `{"error":{"type":"illegal_argument_exception","reason":"unexpected request"},"status":400}`)
	}
}

// Custom elastic ops through engine.Run: PUT and GET of documents, a
// count and a search, NDJSON bulk; 404s and counts of 0 as misses by
// miss_when; failed shards and bulk item errors as errors.
func TestCustomElasticOps(t *testing.T) {
	es := &esDocs{docs: map[string]string{}, reqs: map[string]int{}}
	srv := httptest.NewServer(es)
	defer srv.Close()
	sc := storetest.Parse(t, "custom.yaml", `name: custom-es
target: {kind: elastic, url: "`+srv.URL+`", client: {collection: products}}
keyspace: {records: 100}
ops:
  put: {elastic: {method: PUT, path: "/products/_doc/{key}", body: '{"name": "{text:2}", "price": {float:1:100}, "tag": "{choice:a,b}"}'}}
  fetch: {elastic: {path: "/products/_doc/absent{seq}"}, miss_when: nil}
  fetch_strict: {elastic: {path: "/products/_doc/absent{seq}"}}
  count_none: {elastic: {path: "/products/_count", body: '{"query": {"term": {"tag": "nothing"}}}'}, miss_when: zero}
  find: {elastic: {path: "/products/_search", body: '{"query": {"match": {"name": "{text:1}"}}}'}, miss_when: empty}
  broken: {elastic: {path: "/products/_search", body: '{"query": {"match": {"name": "broken"}}}'}}
  bulk_ok: {elastic: {path: "/_bulk", body: "{\"index\": {\"_index\": \"products\"}}\n{\"n\": {int:1:9}}"}}
  bulk_bad: {elastic: {path: "/_bulk", body: "{\"index\": {\"_index\": \"products\"}}\n{\"n\": \"fail\"}"}}
phases:
  - {name: fill, kind: steady, requests: 50, concurrency: 2, mix: {put: 100}}
  - {name: mixed, kind: steady, requests: 700, concurrency: 4,
     mix: {fetch: 15, fetch_strict: 15, count_none: 15, find: 15, broken: 10, bulk_ok: 15, bulk_bad: 15}}
`)
	sum := storetest.Run(t, sc)
	if r := sum.Phases[0].Result; r.Errors != 0 || r.Ops["put"].Count != 50 {
		t.Fatalf("fill: %+v", r.Ops)
	}
	ops := sum.Phases[1].Result.Ops
	for name, want := range map[string]string{"fetch": "miss", "fetch_strict": "error", "count_none": "miss", "find": "ok",
		"broken": "error", "bulk_ok": "ok", "bulk_bad": "error"} {
		o := ops[name]
		if got := storetest.Outcome(o); got != want {
			t.Errorf("%s: %d ops, %d misses, errors %v: want every one %s", name, o.Count, o.Misses, o.Errors, want)
		}
	}
	if n := ops["fetch_strict"].Errors[targets.ClassNotFound]; n != ops["fetch_strict"].Count {
		t.Errorf("fetch_strict errors %v, want not_found", ops["fetch_strict"].Errors)
	}
	es.mu.Lock()
	defer es.mu.Unlock()
	if es.reqs["PUT /products/_doc/ID"] != 50 || len(es.docs) == 0 {
		t.Errorf("requests %v, %d docs", es.reqs, len(es.docs))
	}
	for _, d := range es.docs {
		if !strings.Contains(d, `"price": `) || strings.Contains(d, "{") && strings.Contains(d, "{text") {
			t.Errorf("stored %s", d)
		}
	}
}

// The shipped custom elastic scenario runs, shortened, against the
// ES-shaped server: every op runs and none fails.
func TestCustomElasticShippedScenario(t *testing.T) {
	es := &esDocs{docs: map[string]string{}, reqs: map[string]int{}}
	srv := httptest.NewServer(es)
	defer srv.Close()
	sc := storetest.Load(t, "../../scenarios/custom-catalog-elastic.yaml")
	sc.Target.URL = srv.URL
	for i := range sc.Phases {
		p := &sc.Phases[i]
		if p.Requests > 0 {
			p.Requests = 200
		} else {
			p.Duration, p.Warmup, p.Rate = scenarios.Duration(time.Second), 0, 500
		}
	}
	sum := storetest.Run(t, sc)
	for i, p := range sum.Phases {
		if p.Result.Errors != 0 {
			t.Errorf("phase %s: %d errors: %+v", p.Name, p.Result.Errors, p.Result.Ops)
		}
		for name := range sc.Phases[i].Mix {
			if p.Result.Ops[name].Count == 0 {
				t.Errorf("phase %s: op %s never ran", p.Name, name)
			}
		}
	}
}
