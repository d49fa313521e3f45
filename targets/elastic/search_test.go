package elastic

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/soakd/soakd/engine"
	"github.com/soakd/soakd/internal/testutil"
	"github.com/soakd/soakd/scenarios"
)

// indexingES is an Elasticsearch 8 stand-in that keeps the documents it
// is sent (PUT _doc, _bulk, _update) and answers multi_match searches
// over them: every query term in one of the named fields (cross_fields,
// operator and), sorted by num, from/size, in the _search response
// shape of the API reference.
type indexingES struct {
	// index is the index name it serves as "soakd" (empty: soakd).
	index    string
	mu       sync.Mutex
	mapping  string
	docs     map[string]map[string]any
	searches []esSearch
}

type esSearch struct {
	query string
	total int
}

func newIndexingES() *indexingES { return &indexingES{docs: map[string]map[string]any{}} }

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	reply(w, status, string(b))
}

func (x *indexingES) handle(w http.ResponseWriter, r *http.Request, body []byte) {
	x.mu.Lock()
	defer x.mu.Unlock()
	p := r.URL.Path
	if rest, ok := strings.CutPrefix(p, "/"+x.index); x.index != "" && ok && (rest == "" || rest[0] == '/') {
		p = "/soakd" + rest
	}
	switch {
	case p == "/":
		reply(w, 200, rootBody)
	case r.Method == http.MethodHead && p == "/soakd":
		if x.mapping == "" {
			w.WriteHeader(404)
		} else {
			w.WriteHeader(200)
		}
	case r.Method == http.MethodPut && p == "/soakd":
		x.mapping = string(body)
		reply(w, 200, createdIdx)
	case r.Method == http.MethodPut && strings.HasPrefix(p, "/soakd/_doc/"):
		var d map[string]any
		if err := json.Unmarshal(body, &d); err != nil {
			reply(w, 400, `{"error":{"root_cause":[],"type":"mapper_parsing_exception","reason":"failed to parse"},"status":400}`)
			return
		}
		x.docs[strings.TrimPrefix(p, "/soakd/_doc/")] = d
		reply(w, 201, indexCreated)
	case r.Method == http.MethodPost && p == "/_bulk":
		x.bulk(w, body)
	case r.Method == http.MethodGet && strings.HasPrefix(p, "/soakd/_doc/"):
		if _, ok := x.docs[strings.TrimPrefix(p, "/soakd/_doc/")]; !ok {
			reply(w, 404, getMissing)
			return
		}
		reply(w, 200, getFound)
	case r.Method == http.MethodPost && strings.HasPrefix(p, "/soakd/_update/"):
		d, ok := x.docs[strings.TrimPrefix(p, "/soakd/_update/")]
		if !ok {
			reply(w, 404, docMissing)
			return
		}
		var u struct {
			Doc map[string]any `json:"doc"`
		}
		_ = json.Unmarshal(body, &u)
		for k, v := range u.Doc {
			d[k] = v
		}
		reply(w, 200, updated)
	case r.Method == http.MethodPost && p == "/soakd/_search":
		x.search(w, body)
	default:
		reply(w, 400, `{"error":{"root_cause":[],"type":"illegal_argument_exception","reason":"unexpected request"},"status":400}`)
	}
}

func (x *indexingES) bulk(w http.ResponseWriter, body []byte) {
	type item struct {
		Index  string `json:"_index"`
		ID     string `json:"_id"`
		Ver    int    `json:"_version"`
		Result string `json:"result"`
		Status int    `json:"status"`
	}
	var items []map[string]item
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var action struct {
			Index struct {
				Index string `json:"_index"`
				ID    string `json:"_id"`
			} `json:"index"`
		}
		if err := json.Unmarshal(sc.Bytes(), &action); err != nil || !sc.Scan() {
			reply(w, 400, `{"error":{"root_cause":[],"type":"illegal_argument_exception","reason":"bad bulk"},"status":400}`)
			return
		}
		var d map[string]any
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			reply(w, 400, `{"error":{"root_cause":[],"type":"illegal_argument_exception","reason":"bad bulk doc"},"status":400}`)
			return
		}
		x.docs[action.Index.ID] = d
		items = append(items, map[string]item{"index": {action.Index.Index, action.Index.ID, 1, "created", 201}})
	}
	writeJSON(w, 200, map[string]any{"took": 3, "errors": false, "items": items})
}

func terms(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	})
}

func (x *indexingES) search(w http.ResponseWriter, body []byte) {
	var req struct {
		Query struct {
			MultiMatch *struct {
				Query    string   `json:"query"`
				Fields   []string `json:"fields"`
				Type     string   `json:"type"`
				Operator string   `json:"operator"`
			} `json:"multi_match"`
		} `json:"query"`
		Size int `json:"size"`
		From int `json:"from"`
	}
	if err := json.Unmarshal(body, &req); err != nil || req.Query.MultiMatch == nil || req.Query.MultiMatch.Operator != "and" {
		reply(w, 400, `{"error":{"root_cause":[],"type":"parsing_exception","reason":"unknown query"},"status":400}`)
		return
	}
	mm := req.Query.MultiMatch
	type hit struct {
		id  string
		num float64
		src map[string]any
	}
	var hits []hit
	for id, d := range x.docs {
		have := map[string]bool{}
		for _, f := range mm.Fields {
			s, _ := d[f].(string)
			for _, t := range terms(s) {
				have[t] = true
			}
		}
		all := len(terms(mm.Query)) > 0
		for _, t := range terms(mm.Query) {
			all = all && have[t]
		}
		if all {
			n, _ := d["num"].(float64)
			hits = append(hits, hit{id, n, d})
		}
	}
	sort.Slice(hits, func(i, j int) bool { return hits[i].num < hits[j].num })
	x.searches = append(x.searches, esSearch{mm.Query, len(hits)})
	page := []map[string]any{}
	for i := req.From; i < len(hits) && i < req.From+req.Size; i++ {
		h := hits[i]
		page = append(page, map[string]any{"_index": "soakd", "_id": h.id, "_score": nil, "_source": h.src, "sort": []any{h.num}})
	}
	writeJSON(w, 200, map[string]any{
		"took": 2, "timed_out": false,
		"_shards": map[string]int{"total": 1, "successful": 1, "skipped": 0, "failed": 0},
		"hits":    map[string]any{"total": map[string]any{"value": len(hits), "relation": "eq"}, "max_score": nil, "hits": page},
	})
}

// TestSearchMixThroughEngine loads documents and runs a search mix
// through engine.Run against the indexing fake: the index has the
// title/body/num shape, every document carries its record's title and
// body, every _search holds the engine's query for its record
// (scenarios.SearchQuery), and every search finds documents.
func TestSearchMixThroughEngine(t *testing.T) {
	x := newIndexingES()
	f := newFake(t, x.handle)
	tg := openT(t, f.URL, scenarios.Client{}, scenarios.Auth{}, nil)
	sc, err := scenarios.Parse("search.yaml", []byte(`
target: {kind: elastic, url: "`+f.URL+`"}
record: {fields: 2, field_bytes: 20}
keyspace: {records: 400}
phases:
  - {name: load, kind: load, concurrency: 4}
  - {name: run, kind: steady, rate: 0, requests: 300, concurrency: 4, mix: {search: 58.5, read: 31.5, update: 10}}
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
			t.Fatalf("phase %s: %d errors: %+v", p.Name, p.Errors, p.Ops)
		}
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	jsonEq(t, "create index", x.mapping, `{"mappings":{"properties":{"id":{"type":"keyword"},"num":{"type":"long"},
		"title":{"type":"text"},"body":{"type":"text"},
		"field0":{"type":"text","index":false},"field1":{"type":"text","index":false}}}}`)
	if len(x.docs) != 400 {
		t.Fatalf("%d documents after loading 400", len(x.docs))
	}
	for id, d := range x.docs {
		n, _ := d["num"].(float64)
		title, body := scenarios.DocText(int64(n))
		if d["title"] != title || d["body"] != body || id != string(scenarios.AppendKey(nil, "user", int64(n), false)) {
			t.Fatalf("document %s: %v, want title %q body %q", id, d, title, body)
		}
	}
	var want, got []string
	for _, r := range testutil.Searches(rec.Sent()) {
		want = append(want, scenarios.SearchQuery(r.KeyNum))
	}
	for _, s := range x.searches {
		got = append(got, s.query)
		if s.total < 1 {
			t.Fatalf("search %q found nothing after the load", s.query)
		}
	}
	if len(want) < 100 || len(got) != len(want) {
		t.Fatalf("%d _search requests for %d search ops", len(got), len(want))
	}
	sort.Strings(want)
	sort.Strings(got)
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("_search queries differ from the engine's: %q vs %q", got[i], want[i])
		}
	}
}
