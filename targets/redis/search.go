package redis

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// Search document modes.
const (
	searchNone = iota
	searchFT1  // RediSearch 1.x: FT.ADD documents (stored as hashes)
	searchHash // RediSearch 2.x: FT.CREATE ... ON HASH, documents are HSET
	searchJSON // RediSearch 2.x + RedisJSON: ON JSON, documents are JSON.SET
)

// SearchIndex is the name of the index soakd creates.
const SearchIndex = "soakd:search"

type searchState struct {
	pref   SearchFormat // client.search: auto | json | hash
	mode   int
	index  string
	module string // "search 2.8.4" for Describe
	// corpus: documents come from record.source; the index covers its
	// text fields (record.query.from) instead of title and body.
	corpus bool
	fields []string
}

// jsonDoc is record n's JSON document: the YCSB fields and the workload's
// search document (title, body, num).
func jsonDoc(n int64, fs []targets.Field) string {
	title, body := scenarios.DocText(n)
	m := make(map[string]any, len(fs)+3)
	for _, f := range fs {
		m[f.Name] = string(f.Value)
	}
	m["title"], m["body"], m["num"] = title, body, n
	b, _ := json.Marshal(m)
	return string(b)
}

func (t *Target) searchOp(ctx context.Context, c cmdable, r *targets.Request) post {
	if t.search.mode == searchNone {
		return fail(fmt.Errorf("op search needs Prepare to find RediSearch first"))
	}
	// The engine sets the query (scenarios.SearchQuery): all its words,
	// over the index's text fields title and body.
	q := r.Query
	if q == "" {
		return fail(errors.New("op search without a query"))
	}
	n := r.PageSize
	if n <= 0 {
		n = 10
	}
	off := r.Page * n
	return done(c.Do(ctx, "FT.SEARCH", t.search.index, q, "SORTBY", "num", "LIMIT", off, n))
}

// Module is a loaded server module.
type Module struct {
	Name    string
	Version int
	Args    []string // the arguments it was loaded with
}

// Modules lists the server's modules (MODULE LIST).
func (t *Target) Modules(ctx context.Context) ([]Module, error) {
	v, err := t.adminClient().Do(ctx, "MODULE", "LIST").Slice()
	if err != nil {
		return nil, err
	}
	var out []Module
	for _, e := range v {
		var m Module
		switch x := e.(type) {
		case []any:
			for i := 0; i+1 < len(x); i += 2 {
				setModuleField(&m, fmt.Sprint(x[i]), x[i+1])
			}
		case map[any]any:
			for k, val := range x {
				setModuleField(&m, fmt.Sprint(k), val)
			}
		}
		if m.Name != "" {
			out = append(out, m)
		}
	}
	return out, nil
}

func setModuleField(m *Module, k string, v any) {
	switch k {
	case "name":
		m.Name = fmt.Sprint(v)
	case "ver":
		switch n := v.(type) {
		case int64:
			m.Version = int(n)
		default:
			m.Version, _ = strconv.Atoi(fmt.Sprint(v))
		}
	case "args":
		if as, ok := v.([]any); ok {
			for _, a := range as {
				m.Args = append(m.Args, fmt.Sprint(a))
			}
		}
	}
}

func versionString(v int) string {
	return fmt.Sprintf("%d.%d.%d", v/10000, v/100%100, v%100)
}

// Prepare finds RediSearch (and RedisJSON) when the scenario searches,
// creates the index, and pre-fills the structures the redis-benchmark
// ops read or pop (prefill.go).
func (t *Target) Prepare(ctx context.Context, sc *scenarios.Scenario) error {
	if err := t.prepareCustom(ctx, sc); err != nil {
		return err
	}
	if sc.Uses(scenarios.OpSearch) {
		if err := t.prepareSearch(ctx, sc); err != nil {
			return err
		}
	}
	return t.prefill(ctx, sc)
}

func (t *Target) prepareSearch(ctx context.Context, sc *scenarios.Scenario) error {
	mods, err := t.Modules(ctx)
	if err != nil {
		return fmt.Errorf("op search: cannot list server modules (MODULE LIST: %v); the search op needs the RediSearch module", err)
	}
	var ft, js *Module
	var names []string
	for i := range mods {
		m := &mods[i]
		names = append(names, m.Name+" "+versionString(m.Version))
		switch strings.ToLower(m.Name) {
		case "ft", "search", "searchlight":
			ft = m
		case "rejson", "redisjson":
			js = m
		}
	}
	if ft == nil {
		loaded := "none"
		if len(names) > 0 {
			loaded = strings.Join(names, ", ")
		}
		return fmt.Errorf("scenario uses op search but the server at %s has no RediSearch module (modules loaded: %s); start redis-server with --loadmodule /path/to/redisearch.so or use Redis Stack", t.url, loaded)
	}
	t.search.index = SearchIndex
	t.search.module = "RediSearch " + versionString(ft.Version)
	v2 := ft.Version >= 20000
	switch pref := t.search.pref; {
	case pref == SearchJSON:
		if js == nil {
			return fmt.Errorf("client.search is json but the server at %s has no RedisJSON (ReJSON) module", t.url)
		}
		if !v2 {
			return fmt.Errorf("client.search is json but RediSearch %s predates ON JSON (needs 2.2+)", versionString(ft.Version))
		}
		t.search.mode = searchJSON
	case pref == SearchHash && !v2, pref == "" && !v2, pref == SearchAuto && !v2:
		t.search.mode = searchFT1
	case pref == SearchHash:
		t.search.mode = searchHash
	case pref == "" || pref == SearchAuto:
		t.search.mode = searchHash
		if js != nil {
			t.search.mode = searchJSON
		}
	default:
		return fmt.Errorf("unknown client.search %q (use auto, json or hash)", pref)
	}
	if t.search.mode == searchJSON {
		t.search.module += " + RedisJSON " + versionString(js.Version)
	}
	t.search.module += " (" + describeSearchTimeout(t.searchTimeout(ctx, ft)) + ")"

	var args []any
	switch {
	case sc.HasCorpus():
		args = t.corpusIndexArgs(sc)
	case t.search.mode == searchFT1:
		args = []any{"FT.CREATE", t.search.index, "SCHEMA", "title", "TEXT", "body", "TEXT", "num", "NUMERIC", "SORTABLE"}
	case t.search.mode == searchHash:
		args = []any{"FT.CREATE", t.search.index, "ON", "HASH", "PREFIX", 1, sc.Keyspace.Prefix, "SCHEMA", "title", "TEXT", "body", "TEXT", "num", "NUMERIC", "SORTABLE"}
	case t.search.mode == searchJSON:
		args = []any{"FT.CREATE", t.search.index, "ON", "JSON", "PREFIX", 1, sc.Keyspace.Prefix, "SCHEMA",
			"$.title", "AS", "title", "TEXT", "$.body", "AS", "body", "TEXT", "$.num", "AS", "num", "NUMERIC", "SORTABLE"}
	}
	if err := t.c.Do(ctx, args...).Err(); err != nil && !strings.Contains(strings.ToLower(err.Error()), "already exists") {
		return fmt.Errorf("create search index %s: %w", t.search.index, err)
	}
	return nil
}
