package elastic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// Response bodies in the shapes the Elasticsearch 8 API reference shows.
const (
	rootBody = `{"name":"node-1","cluster_name":"soak-cluster","cluster_uuid":"kQFYV2lGQnS6eJ1wB6ZZAw",
		"version":{"number":"8.19.7","build_flavor":"default","build_type":"docker","lucene_version":"9.12.2",
		"minimum_wire_compatibility_version":"7.17.0","minimum_index_compatibility_version":"7.0.0"},
		"tagline":"You Know, for Search"}`
	indexCreated = `{"_index":"soakd","_id":"user1","_version":1,"result":"created",
		"_shards":{"total":2,"successful":1,"failed":0},"_seq_no":0,"_primary_term":1}`
	getFound = `{"_index":"soakd","_id":"user1","_version":1,"_seq_no":0,"_primary_term":1,"found":true,
		"_source":{"id":"user1","field0":"a","num":1}}`
	getMissing     = `{"_index":"soakd","_id":"user9","found":false}`
	indexNotFound  = `{"error":{"root_cause":[{"type":"index_not_found_exception","reason":"no such index [soakd]","resource.type":"index_expression","resource.id":"soakd","index_uuid":"_na_","index":"soakd"}],"type":"index_not_found_exception","reason":"no such index [soakd]","resource.type":"index_expression","resource.id":"soakd","index_uuid":"_na_","index":"soakd"},"status":404}`
	updated        = `{"_shards":{"total":2,"successful":1,"failed":0},"_index":"soakd","_id":"user1","_version":2,"_primary_term":1,"_seq_no":1,"result":"updated"}`
	docMissing     = `{"error":{"root_cause":[{"type":"document_missing_exception","reason":"[user9]: document missing","index_uuid":"aAsFqTI0Tc2W0LCWgPNrOA","shard":"0","index":"soakd"}],"type":"document_missing_exception","reason":"[user9]: document missing","index_uuid":"aAsFqTI0Tc2W0LCWgPNrOA","shard":"0","index":"soakd"},"status":404}`
	deleted        = `{"_shards":{"total":2,"successful":1,"failed":0},"_index":"soakd","_id":"user1","_version":2,"_primary_term":1,"_seq_no":5,"result":"deleted"}`
	deleteNotFound = `{"_shards":{"total":2,"successful":1,"failed":0},"_index":"soakd","_id":"user9","_version":1,"_primary_term":1,"_seq_no":6,"result":"not_found"}`
	searchHits     = `{"took":5,"timed_out":false,"_shards":{"total":1,"successful":1,"skipped":0,"failed":0},
		"hits":{"total":{"value":1,"relation":"eq"},"max_score":null,"hits":[{"_index":"soakd","_id":"user1","_score":null,
		"_source":{"id":"user1","field0":"alpha beta","num":1},"sort":[1]}]}}`
	rejected   = `{"error":{"root_cause":[{"type":"es_rejected_execution_exception","reason":"rejected execution of coordinating operation [coordinating_and_primary_bytes=104759862, replica_bytes=0, all_bytes=104759862, coordinating_operation_bytes=20862272, max_coordinating_and_primary_bytes=107374182]"}],"type":"es_rejected_execution_exception","reason":"rejected execution of coordinating operation [coordinating_and_primary_bytes=104759862, replica_bytes=0, all_bytes=104759862, coordinating_operation_bytes=20862272, max_coordinating_and_primary_bytes=107374182]"},"status":429}`
	createdIdx = `{"acknowledged":true,"shards_acknowledged":true,"index":"soakd"}`
)

type seen struct {
	Method, Path, Query, Body, CType, Auth string
}

// fakeES answers like Elasticsearch 8 and records every request.
type fakeES struct {
	*httptest.Server
	mu      sync.Mutex
	reqs    []seen
	handler func(w http.ResponseWriter, r *http.Request, body []byte)
	noProd  bool
}

func newFake(t *testing.T, h func(w http.ResponseWriter, r *http.Request, body []byte)) *fakeES {
	f := &fakeES{handler: h}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.reqs = append(f.reqs, seen{r.Method, r.URL.Path, r.URL.RawQuery, string(body), r.Header.Get("Content-Type"), r.Header.Get("Authorization")})
		noProd, h := f.noProd, f.handler
		f.mu.Unlock()
		if !noProd {
			w.Header().Set("X-Elastic-Product", "Elasticsearch")
		}
		w.Header().Set("Content-Type", "application/json")
		h(w, r, body)
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeES) take() []seen {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.reqs
	f.reqs = nil
	return out
}

func reply(w http.ResponseWriter, status int, body string) {
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

// happy answers every endpoint the adapter uses with a success.
func happy(w http.ResponseWriter, r *http.Request, _ []byte) {
	switch {
	case r.URL.Path == "/":
		reply(w, 200, rootBody)
	case r.Method == http.MethodPut && strings.Contains(r.URL.Path, "/_doc/"):
		reply(w, 201, indexCreated)
	case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/_doc/user9"):
		reply(w, 404, getMissing)
	case r.Method == http.MethodGet && strings.Contains(r.URL.Path, "/_doc/"):
		reply(w, 200, getFound)
	case strings.HasSuffix(r.URL.Path, "/_update/user9"):
		reply(w, 404, docMissing)
	case strings.Contains(r.URL.Path, "/_update/"):
		reply(w, 200, updated)
	case r.Method == http.MethodDelete && strings.HasSuffix(r.URL.Path, "/user9"):
		reply(w, 404, deleteNotFound)
	case r.Method == http.MethodDelete:
		reply(w, 200, deleted)
	case strings.HasSuffix(r.URL.Path, "/_search"):
		reply(w, 200, searchHits)
	default:
		reply(w, 400, `{"error":{"root_cause":[],"type":"illegal_argument_exception","reason":"unexpected request"},"status":400}`)
	}
}

func openT(t *testing.T, url string, c scenarios.Client, a scenarios.Auth, env map[string]string) *Target {
	t.Helper()
	tg, err := targets.Open(context.Background(), scenarios.Target{Kind: "elastic", URL: url, Client: c, Auth: a},
		targets.Options{Env: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { _ = tg.Close() })
	return tg.(*Target)
}

func jsonEq(t *testing.T, what, got, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Errorf("%s: body %q is not JSON: %v", what, got, err)
		return
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("%s: bad want: %v", what, err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s: body\n got %s\nwant %s", what, got, want)
	}
}

func fields(kv ...string) []targets.Field {
	var out []targets.Field
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, targets.Field{Name: kv[i], Value: []byte(kv[i+1])})
	}
	return out
}

func TestOpsSendExactRequests(t *testing.T) {
	f := newFake(t, happy)
	tg := openT(t, f.URL, scenarios.Client{}, scenarios.Auth{}, nil)
	ctx := context.Background()

	type step struct {
		req               targets.Request
		method, path, qry string
		body              string // JSON, "" for none
		wantErr           error
	}
	for _, s := range []step{
		{targets.Request{Op: scenarios.OpInsert, KeyNum: 1, Key: []byte("user1"), Fields: fields("field0", "a \"quoted\"\n", "field1", "b")},
			"PUT", "/soakd/_doc/user1", "", `{"id":"user1","field0":"a \"quoted\"\n","field1":"b","num":1}`, nil},
		{targets.Request{Op: scenarios.OpInsert, KeyNum: 2, Key: []byte("user2"), Fields: fields("field0", "x", "num", "77")},
			"PUT", "/soakd/_doc/user2", "", `{"id":"user2","field0":"x","num":77}`, nil},
		{targets.Request{Op: scenarios.OpRead, Key: []byte("user1")}, "GET", "/soakd/_doc/user1", "", "", nil},
		{targets.Request{Op: scenarios.OpRead, Key: []byte("user9")}, "GET", "/soakd/_doc/user9", "", "", targets.ErrNotFound},
		{targets.Request{Op: scenarios.OpUpdate, Key: []byte("user1"), Fields: fields("field3", "new")},
			"POST", "/soakd/_update/user1", "", `{"doc":{"field3":"new"}}`, nil},
		{targets.Request{Op: scenarios.OpUpdate, Key: []byte("user9"), Fields: fields("field3", "new")},
			"POST", "/soakd/_update/user9", "", `{"doc":{"field3":"new"}}`, targets.ErrNotFound},
		{targets.Request{Op: scenarios.OpDelete, Key: []byte("user1")}, "DELETE", "/soakd/_doc/user1", "", "", nil},
		{targets.Request{Op: scenarios.OpDelete, Key: []byte("user9")}, "DELETE", "/soakd/_doc/user9", "", "", targets.ErrNotFound},
		{targets.Request{Op: scenarios.OpSearch, Query: "alpha beta", Page: 2, PageSize: 20},
			"POST", "/soakd/_search", "", `{"query":{"multi_match":{"query":"alpha beta","fields":["title","body"],"type":"cross_fields","operator":"and"}},"sort":[{"num":"asc"}],"size":20,"from":40}`, nil},
		{targets.Request{Op: scenarios.OpSearch, Query: "alpha beta", Fields: fields("field4", "")},
			"POST", "/soakd/_search", "", `{"query":{"multi_match":{"query":"alpha beta","fields":["title","body"],"type":"cross_fields","operator":"and"}},"sort":[{"num":"asc"}],"size":10,"from":0}`, nil},
		{targets.Request{Op: scenarios.OpScan, Key: []byte("user5"), ScanLen: 7},
			"POST", "/soakd/_search", "", `{"query":{"range":{"id":{"gte":"user5"}}},"sort":[{"id":"asc"}],"size":7}`, nil},
	} {
		err := tg.Do(ctx, &s.req)
		if s.wantErr != nil {
			if !errors.Is(err, s.wantErr) {
				t.Errorf("%s %s: err = %v, want %v", s.req.Op, s.req.Key, err, s.wantErr)
			}
		} else if err != nil {
			t.Errorf("%s %s: %v", s.req.Op, s.req.Key, err)
		}
		got := f.take()
		if len(got) != 1 {
			t.Fatalf("%s: %d requests, want 1: %+v", s.req.Op, len(got), got)
		}
		g := got[0]
		if g.Method != s.method || g.Path != s.path || g.Query != s.qry {
			t.Errorf("%s: sent %s %s?%s, want %s %s?%s", s.req.Op, g.Method, g.Path, g.Query, s.method, s.path, s.qry)
		}
		if s.body == "" {
			if g.Body != "" {
				t.Errorf("%s: unexpected body %q", s.req.Op, g.Body)
			}
		} else {
			jsonEq(t, s.req.Op.String(), g.Body, s.body)
			if g.CType != "application/json" {
				t.Errorf("%s: Content-Type %q", s.req.Op, g.CType)
			}
		}
	}

	// The adapter never makes up a query.
	if err := tg.Do(ctx, &targets.Request{Op: scenarios.OpSearch, KeyNum: 3}); err == nil || !strings.Contains(err.Error(), "without a query") {
		t.Errorf("search without a query: %v", err)
	}
	if got := f.take(); len(got) != 0 {
		t.Errorf("search without a query sent %+v", got)
	}

	// rmw: a GET then a partial update
	if err := tg.Do(ctx, &targets.Request{Op: scenarios.OpRMW, Key: []byte("user1"), Fields: fields("field2", "z")}); err != nil {
		t.Fatalf("rmw: %v", err)
	}
	got := f.take()
	if len(got) != 2 || got[0].Method != "GET" || got[0].Path != "/soakd/_doc/user1" ||
		got[1].Method != "POST" || got[1].Path != "/soakd/_update/user1" {
		t.Fatalf("rmw sent %+v", got)
	}
	jsonEq(t, "rmw update", got[1].Body, `{"doc":{"field2":"z"}}`)
	if err := tg.Do(ctx, &targets.Request{Op: scenarios.OpRMW, Key: []byte("user9"), Fields: fields("field2", "z")}); !errors.Is(err, targets.ErrNotFound) {
		t.Errorf("rmw of a missing doc: %v", err)
	}
	if got := f.take(); len(got) != 1 {
		t.Errorf("rmw of a missing doc sent %d requests, want only the GET", len(got))
	}
}

func TestReadOfMissingIndexIsNotNotFound(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, _ []byte) { reply(w, 404, indexNotFound) })
	tg := openT(t, f.URL, scenarios.Client{}, scenarios.Auth{}, nil)
	err := tg.Do(context.Background(), &targets.Request{Op: scenarios.OpRead, Key: []byte("user1")})
	if err == nil || errors.Is(err, targets.ErrNotFound) || !strings.Contains(err.Error(), "index_not_found_exception") {
		t.Errorf("read against a missing index: %v", err)
	}
	if c := targets.Classify(tg, err); c != targets.ClassOther {
		t.Errorf("classified %s", c)
	}
}

func TestRefreshPolicy(t *testing.T) {
	for _, tc := range []struct {
		refresh Refresh
		want    string
	}{{"", ""}, {"false", ""}, {"wait_for", "refresh=wait_for"}, {"true", "refresh=true"}} {
		f := newFake(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
			if r.URL.Path == "/_bulk" {
				reply(w, 200, `{"took":3,"errors":false,"items":[{"index":{"_index":"soakd","_id":"user1","_version":1,"result":"created","_shards":{"total":2,"successful":1,"failed":0},"status":201,"_seq_no":0,"_primary_term":1}}]}`)
				return
			}
			happy(w, r, body)
		})
		tg := openT(t, f.URL, scenarios.ClientOf(scenarios.ClientCommon{}, ClientConfig{Refresh: tc.refresh}), scenarios.Auth{}, nil)
		ctx := context.Background()
		ins := &targets.Request{Op: scenarios.OpInsert, Key: []byte("user1"), Fields: fields("field0", "a")}
		for _, r := range []*targets.Request{ins,
			{Op: scenarios.OpUpdate, Key: []byte("user1"), Fields: fields("field0", "b")},
			{Op: scenarios.OpDelete, Key: []byte("user1")},
			{Op: scenarios.OpRead, Key: []byte("user1")},
			{Op: scenarios.OpSearch, Query: "a b"},
		} {
			if err := tg.Do(ctx, r); err != nil {
				t.Fatalf("refresh %q %s: %v", tc.refresh, r.Op, err)
			}
		}
		errs := make([]error, 1)
		tg.DoBatch(ctx, []*targets.Request{ins}, errs)
		if errs[0] != nil {
			t.Fatalf("bulk: %v", errs[0])
		}
		for _, g := range f.take() {
			write := g.Method != "GET" && !strings.HasSuffix(g.Path, "/_search")
			want := ""
			if write {
				want = tc.want
			}
			if g.Query != want {
				t.Errorf("refresh %q: %s %s sent query %q, want %q", tc.refresh, g.Method, g.Path, g.Query, want)
			}
		}
	}
	if _, err := targets.Open(context.Background(), scenarios.Target{Kind: "elastic", URL: "http://localhost:9200",
		Client: scenarios.ClientOf(scenarios.ClientCommon{}, ClientConfig{Refresh: "sometimes"})}, targets.Options{}); err == nil || !strings.Contains(err.Error(), "client.refresh") {
		t.Errorf("bad refresh accepted: %v", err)
	}
}

func TestBulkPartialFailure(t *testing.T) {
	bulkResp := `{"took":30,"errors":true,"items":[
		{"index":{"_index":"soakd","_id":"user1","_version":1,"result":"created","_shards":{"total":2,"successful":1,"failed":0},"status":201,"_seq_no":0,"_primary_term":1}},
		{"index":{"_index":"soakd","_id":"user2","status":429,"error":{"type":"es_rejected_execution_exception","reason":"rejected execution of primary operation [shard_detail=[soakd][0][C], shard_coordinating_and_primary_bytes=0, shard_operation_bytes=98, shard_max_coordinating_and_primary_bytes=0]"}}},
		{"index":{"_index":"soakd","_id":"user3","status":400,"error":{"type":"document_parsing_exception","reason":"[1:15] failed to parse field [num] of type [long] in document with id 'user3'"}}}]}`
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		if r.URL.Path == "/_bulk" {
			reply(w, 200, bulkResp)
			return
		}
		happy(w, r, body)
	})
	tg := openT(t, f.URL, scenarios.ClientOf(scenarios.ClientCommon{MaxBatch: 3}, ClientConfig{Refresh: "wait_for"}), scenarios.Auth{}, nil)
	if tg.MaxBatch() != 3 {
		t.Errorf("MaxBatch = %d", tg.MaxBatch())
	}
	reqs := []*targets.Request{
		{Op: scenarios.OpInsert, KeyNum: 1, Key: []byte("user1"), Fields: fields("field0", "a")},
		{Op: scenarios.OpRead, Key: []byte("user1")},
		{Op: scenarios.OpInsert, KeyNum: 2, Key: []byte("user2"), Fields: fields("field0", "b")},
		{Op: scenarios.OpInsert, KeyNum: 3, Key: []byte("user3"), Fields: fields("field0", "c")},
	}
	errs := make([]error, len(reqs))
	for i := range errs {
		errs[i] = errors.New("stale")
	}
	tg.DoBatch(context.Background(), reqs, errs)
	if errs[0] != nil || errs[1] != nil {
		t.Errorf("ok slots: %v, %v", errs[0], errs[1])
	}
	if c := targets.Classify(tg, errs[2]); errs[2] == nil || c != targets.ClassRejected {
		t.Errorf("429 item: err %v class %s, want rejected", errs[2], c)
	}
	if c := targets.Classify(tg, errs[3]); errs[3] == nil || c != targets.ClassOther || !strings.Contains(errs[3].Error(), "document_parsing_exception") {
		t.Errorf("400 item: err %v class %s", errs[3], c)
	}
	got := f.take()
	if len(got) != 2 || got[0].Method != "GET" || got[1].Method != "POST" || got[1].Path != "/_bulk" {
		t.Fatalf("requests: %+v", got)
	}
	b := got[1]
	if b.Query != "refresh=wait_for" || b.CType != "application/x-ndjson" {
		t.Errorf("bulk query %q content-type %q", b.Query, b.CType)
	}
	lines := strings.Split(b.Body, "\n")
	want := []string{
		`{"index":{"_index":"soakd","_id":"user1"}}`, `{"id":"user1","field0":"a","num":1}`,
		`{"index":{"_index":"soakd","_id":"user2"}}`, `{"id":"user2","field0":"b","num":2}`,
		`{"index":{"_index":"soakd","_id":"user3"}}`, `{"id":"user3","field0":"c","num":3}`,
		``,
	}
	if len(lines) != len(want) {
		t.Fatalf("bulk body has %d lines, want %d:\n%s", len(lines), len(want), b.Body)
	}
	for i := range want[:len(want)-1] {
		jsonEq(t, "bulk line", lines[i], want[i])
	}
	if lines[len(lines)-1] != "" {
		t.Error("bulk body must end with a newline")
	}
}

func TestWholeBulkRejected(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, _ []byte) { reply(w, 429, rejected) })
	tg := openT(t, f.URL, scenarios.Client{}, scenarios.Auth{}, nil)
	reqs := []*targets.Request{
		{Op: scenarios.OpInsert, Key: []byte("user1")}, {Op: scenarios.OpInsert, Key: []byte("user2")},
	}
	errs := make([]error, 2)
	tg.DoBatch(context.Background(), reqs, errs)
	for i, err := range errs {
		if c := targets.Classify(tg, err); c != targets.ClassRejected {
			t.Errorf("slot %d: %v classified %s, want rejected", i, err, c)
		}
	}
	err := tg.Do(context.Background(), &targets.Request{Op: scenarios.OpInsert, Key: []byte("user1")})
	var e *Error
	if !errors.As(err, &e) || e.Status != 429 || e.Type != "es_rejected_execution_exception" {
		t.Errorf("429 insert: %v", err)
	}
	if c := targets.Classify(tg, err); c != targets.ClassRejected {
		t.Errorf("429 insert classified %s", c)
	}
}

func TestClusterDown(t *testing.T) {
	f := newFake(t, happy)
	tg := openT(t, f.URL, scenarios.ClientOf(scenarios.ClientCommon{DialTimeout: scenarios.Duration(500 * time.Millisecond)}, nil), scenarios.Auth{}, nil)
	ctx := context.Background()
	if err := tg.Do(ctx, &targets.Request{Op: scenarios.OpRead, Key: []byte("user1")}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, r := range []*targets.Request{
		{Op: scenarios.OpRead, Key: []byte("user1")},
		{Op: scenarios.OpInsert, Key: []byte("user1")},
		{Op: scenarios.OpSearch, Query: "a b"},
	} {
		err := tg.Do(ctx, r)
		if c := targets.Classify(tg, err); err == nil || c != targets.ClassConnection {
			t.Errorf("%s with the cluster down: %v classified %s, want connection", r.Op, err, c)
		}
	}
	errs := make([]error, 1)
	tg.DoBatch(ctx, []*targets.Request{{Op: scenarios.OpInsert, Key: []byte("user1")}}, errs)
	if c := targets.Classify(tg, errs[0]); c != targets.ClassConnection {
		t.Errorf("bulk with the cluster down: %v classified %s", errs[0], c)
	}
	err := tg.Prepare(ctx, &scenarios.Scenario{})
	if err == nil || !strings.Contains(err.Error(), "not usable") {
		t.Errorf("Prepare with the cluster down: %v", err)
	}
}

func TestConnectionDroppedMidRequest(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		hj, ok := w.(http.Hijacker)
		if !ok {
			t.Error("no hijacker")
			return
		}
		c, _, _ := hj.Hijack()
		_ = c.Close()
	})
	tg := openT(t, f.URL, scenarios.Client{}, scenarios.Auth{}, nil)
	err := tg.Do(context.Background(), &targets.Request{Op: scenarios.OpRead, Key: []byte("user1")})
	if c := targets.Classify(tg, err); err == nil || c != targets.ClassConnection {
		t.Errorf("dropped connection: %v classified %s", err, c)
	}
}

func TestTimeout(t *testing.T) {
	release := make(chan struct{})
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
		reply(w, 200, getFound)
	})
	defer close(release)
	tg := openT(t, f.URL, scenarios.ClientOf(scenarios.ClientCommon{ReadTimeout: scenarios.Duration(100 * time.Millisecond)}, nil), scenarios.Auth{}, nil)
	start := time.Now()
	err := tg.Do(context.Background(), &targets.Request{Op: scenarios.OpRead, Key: []byte("user1")})
	if c := targets.Classify(tg, err); err == nil || c != targets.ClassTimeout {
		t.Errorf("slow read: %v classified %s, want timeout", err, c)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("read timeout took %v", d)
	}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&Error{Status: 504}, targets.ClassTimeout},
		{&Error{Status: 500, Type: "process_cluster_event_timeout_exception"}, targets.ClassTimeout},
		{&Error{Status: 503, Type: "cluster_block_exception"}, targets.ClassRejected},
		{&Error{Status: 429, Type: "circuit_breaking_exception"}, targets.ClassRejected},
		{&Error{Status: 400, Type: "illegal_argument_exception"}, targets.ClassOther},
	} {
		if got := targets.Classify(tg, tc.err); got != tc.want {
			t.Errorf("Classify(%v) = %s, want %s", tc.err, got, tc.want)
		}
	}
}

func TestPrepareCreatesIndex(t *testing.T) {
	var exists atomic.Bool
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		switch {
		case r.Method == http.MethodHead && r.URL.Path == "/soak-search":
			if exists.Load() {
				w.WriteHeader(200)
			} else {
				w.WriteHeader(404)
			}
		case r.Method == http.MethodPut && r.URL.Path == "/soak-search":
			reply(w, 200, strings.ReplaceAll(createdIdx, `"soakd"`, `"soak-search"`))
		default:
			happy(w, r, body)
		}
	})
	two := 2
	tg := openT(t, f.URL, scenarios.ClientOf(scenarios.ClientCommon{}, ClientConfig{Database: "soak", Collection: "search", IndexShards: 3, IndexReplicas: &two}), scenarios.Auth{}, nil)
	sc := &scenarios.Scenario{Record: scenarios.Record{Fields: 2}}
	if err := tg.Prepare(context.Background(), sc); err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	got := f.take()
	if len(got) != 3 || got[0].Path != "/" || got[1].Method != "HEAD" || got[2].Method != "PUT" {
		t.Fatalf("Prepare sent %+v", got)
	}
	jsonEq(t, "create index", got[2].Body, `{"settings":{"number_of_shards":3,"number_of_replicas":2},
		"mappings":{"properties":{"id":{"type":"keyword"},"num":{"type":"long"},"field0":{"type":"text"},"field1":{"type":"text"}}}}`)
	if d := tg.Describe(); !strings.Contains(d, "Elasticsearch 8.19.7") || !strings.Contains(d, "soak-search") && !strings.Contains(d, "soak-cluster") {
		t.Errorf("Describe = %q", d)
	}
	exists.Store(true)
	if err := tg.Prepare(context.Background(), sc); err != nil {
		t.Fatal(err)
	}
	for _, g := range f.take() {
		if g.Method == "PUT" {
			t.Error("Prepare re-created an existing index")
		}
	}
	// Server defaults for shards/replicas when the scenario is silent.
	exists.Store(false)
	tg2 := openT(t, f.URL, scenarios.ClientOf(scenarios.ClientCommon{}, ClientConfig{Database: "soak", Collection: "search"}), scenarios.Auth{}, nil)
	if err := tg2.Prepare(context.Background(), sc); err != nil {
		t.Fatal(err)
	}
	got = f.take()
	jsonEq(t, "create index with defaults", got[len(got)-1].Body,
		`{"mappings":{"properties":{"id":{"type":"keyword"},"num":{"type":"long"},"field0":{"type":"text"},"field1":{"type":"text"}}}}`)
}

func TestNotElasticsearch(t *testing.T) {
	f := newFake(t, happy)
	f.mu.Lock()
	f.noProd = true
	f.mu.Unlock()
	tg := openT(t, f.URL, scenarios.Client{}, scenarios.Auth{}, nil)
	if err := tg.Prepare(context.Background(), &scenarios.Scenario{}); err == nil || !strings.Contains(err.Error(), "not Elasticsearch") {
		t.Errorf("Prepare against a server without X-Elastic-Product: %v", err)
	}
}

func TestAuth(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		reply(w, 401, `{"error":{"root_cause":[{"type":"security_exception","reason":"unable to authenticate with provided credentials and anonymous access is not allowed for this request"}],"type":"security_exception","reason":"unable to authenticate with provided credentials"},"status":401}`)
	})
	env := map[string]string{"ES_KEY": "VnVhQ2ZHY0JDZGJrUW0tZTVhT3g6dWkybHAyYXhUTm1zeWFrdzl0dk5udw==", "ES_USER": "elastic", "ES_PASS": "hunter2-secret"}
	tg := openT(t, f.URL, scenarios.Client{}, scenarios.Auth{APIKeyEnv: "ES_KEY"}, env)
	err := tg.Do(context.Background(), &targets.Request{Op: scenarios.OpRead, Key: []byte("user1")})
	if err == nil || strings.Contains(err.Error(), env["ES_KEY"]) {
		t.Errorf("api key auth failure: %v", err)
	}
	tg2 := openT(t, f.URL, scenarios.Client{}, scenarios.Auth{UsernameEnv: "ES_USER", PasswordEnv: "ES_PASS"}, env)
	_ = tg2.Do(context.Background(), &targets.Request{Op: scenarios.OpRead, Key: []byte("user1")})
	got := f.take()
	if len(got) != 2 {
		t.Fatalf("%d requests", len(got))
	}
	if !strings.EqualFold(strings.SplitN(got[0].Auth, " ", 2)[0], "ApiKey") || !strings.HasSuffix(got[0].Auth, " "+env["ES_KEY"]) {
		t.Errorf("api key header %q", got[0].Auth)
	}
	if !strings.HasPrefix(got[1].Auth, "Basic ") {
		t.Errorf("basic auth header %q", got[1].Auth)
	}
	leak := tg2.scrub(errors.New("failed with password hunter2-secret"))
	if strings.Contains(leak.Error(), "hunter2-secret") {
		t.Errorf("scrub left the password: %v", leak)
	}
	if _, err := targets.Open(context.Background(), scenarios.Target{Kind: "elastic", URL: f.URL, Auth: scenarios.Auth{APIKeyEnv: "NOPE"}},
		targets.Options{Env: func(string) string { return "" }}); err == nil || !strings.Contains(err.Error(), "NOPE, which is empty") {
		t.Errorf("empty api key env: %v", err)
	}
}

func TestOpenRefusesBadURL(t *testing.T) {
	for _, u := range []string{"mongodb://localhost", "localhost:9200", "http://", "https://user:pw@[::1"} {
		_, err := targets.Open(context.Background(), scenarios.Target{Kind: "elastic", URL: u}, targets.Options{})
		if err == nil {
			t.Errorf("%q accepted", u)
		} else if strings.Contains(err.Error(), ":pw@") {
			t.Errorf("%q: error leaks the password: %v", u, err)
		}
	}
	if _, err := targets.Open(context.Background(), scenarios.Target{Kind: "elastic", URL: "http://localhost:9200",
		Client: scenarios.ClientOf(scenarios.ClientCommon{}, ClientConfig{Collection: "Bad/Name"})}, targets.Options{}); err == nil {
		t.Error("bad index name accepted")
	}
}

func TestServerStats(t *testing.T) {
	// Two nodes; the second lacks query_cache and the old collector, so
	// those sums come from the first only; nothing reports "segments".
	stats := `{"_nodes":{"total":2,"successful":2,"failed":0},"cluster_name":"soak-cluster","nodes":{
	 "aaa":{"timestamp":1700000000000,"name":"n1","roles":["data","master"],
	  "indices":{"docs":{"count":10,"deleted":0},
	   "indexing":{"index_total":100,"index_time_in_millis":2500,"index_current":0,"index_failed":0},
	   "search":{"open_contexts":0,"query_total":40,"query_time_in_millis":800,"query_current":0,"fetch_total":40},
	   "query_cache":{"memory_size_in_bytes":0,"total_count":9,"hit_count":6,"miss_count":3,"cache_size":0,"cache_count":0,"evictions":0}},
	  "jvm":{"timestamp":1700000000000,"uptime_in_millis":1000,
	   "mem":{"heap_used_in_bytes":1000,"heap_used_percent":10,"heap_committed_in_bytes":4000,"heap_max_in_bytes":10000},
	   "gc":{"collectors":{"young":{"collection_count":5,"collection_time_in_millis":50},"old":{"collection_count":1,"collection_time_in_millis":200}}}}},
	 "bbb":{"timestamp":1700000000000,"name":"n2","roles":["data"],
	  "indices":{"indexing":{"index_total":50,"index_time_in_millis":500},"search":{"query_total":10,"query_time_in_millis":100}},
	  "jvm":{"mem":{"heap_used_in_bytes":3000,"heap_max_in_bytes":10000},
	   "gc":{"collectors":{"young":{"collection_count":7,"collection_time_in_millis":70}}}}}}}`
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		if r.URL.Path == "/_nodes/stats/jvm,indices" {
			reply(w, 200, stats)
			return
		}
		reply(w, 404, `{}`)
	})
	tg := openT(t, f.URL, scenarios.Client{}, scenarios.Auth{}, nil)
	got, err := tg.ServerStats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{
		"nodes":               2,
		"jvm_heap_used_bytes": 4000, "jvm_heap_max_bytes": 20000,
		"jvm_gc_young_collections_total": 12, "jvm_gc_young_collection_seconds_total": 0.12,
		"jvm_gc_old_collections_total": 1, "jvm_gc_old_collection_seconds_total": 0.2,
		"indexing_index_total": 150, "indexing_index_time_seconds_total": 3,
		"search_query_total": 50, "search_query_time_seconds_total": 0.9,
		"query_cache_hit_total": 6, "query_cache_miss_total": 3,
	}
	if len(got) != len(want) {
		t.Errorf("stats has %d figures, want %d: %v", len(got), len(want), got)
	}
	for k, v := range want {
		g, ok := got[k]
		if !ok || g < v-1e-9 || g > v+1e-9 {
			t.Errorf("%s = %v (present %v), want %v", k, g, ok, v)
		}
	}
	for _, k := range []string{"segments_count", "segments_memory_bytes"} {
		if _, ok := got[k]; ok {
			t.Errorf("%s present though no node reports it", k)
		}
	}
	f.mu.Lock()
	f.handler = func(w http.ResponseWriter, r *http.Request, _ []byte) { reply(w, 429, rejected) }
	f.mu.Unlock()
	if _, err := tg.ServerStats(context.Background()); err == nil {
		t.Error("ServerStats on a 429 returned no error")
	}
}

func TestAppendString(t *testing.T) {
	for _, s := range []string{"plain", `q"uo\te`, "tab\tnl\nctl\x01", "ünïcødé"} {
		var back string
		if err := json.Unmarshal(appendString(nil, s), &back); err != nil || back != s {
			t.Errorf("appendString(%q) round-trips to %q, %v", s, back, err)
		}
	}
	if !bytes.Equal(appendString(nil, "a"), []byte(`"a"`)) {
		t.Error("appendString(a)")
	}
}

// TestCatalog loads every shipped elastic scenario and opens its target.
func TestCatalog(t *testing.T) {
	files, err := filepath.Glob("../../scenarios/elastic-*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, f := range files {
		have[filepath.Base(f)] = true
	}
	for _, w := range []string{"elastic-search-mix.yaml", "elastic-search-mix-250.yaml", "elastic-search-mix-6000.yaml", "elastic-ycsb-a.yaml"} {
		if !have[w] {
			t.Errorf("scenarios/%s is missing", w)
		}
	}
	for _, f := range files {
		sc, err := scenarios.LoadFile(f)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if sc.Target.Kind != "elastic" {
			t.Errorf("%s: kind %q", f, sc.Target.Kind)
		}
		tg, err := targets.Open(context.Background(), sc.Target, targets.Options{})
		if err != nil {
			t.Errorf("%s: open: %v", f, err)
			continue
		}
		_ = tg.Close()
	}
	sc, err := scenarios.LoadFile("../../scenarios/elastic-search-mix-6000.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if sc.Phases[1].Rate != 6000 || sc.Phases[1].Mix["update"] != 10 {
		t.Errorf("6000 variant: rate %v mix %v", sc.Phases[1].Rate, sc.Phases[1].Mix)
	}
}

func BenchmarkAppendDoc(b *testing.B) {
	r := &targets.Request{Op: scenarios.OpInsert, KeyNum: 12345, Key: []byte("user12345")}
	for i := 0; i < 10; i++ {
		r.Fields = append(r.Fields, targets.Field{Name: scenarios.FieldName(i), Value: bytes.Repeat([]byte("x"), 100)})
	}
	buf := make([]byte, 0, 4096)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		buf = appendDoc(buf[:0], r, true)
	}
}
