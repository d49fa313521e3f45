package redis

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/soakd/soakd/engine"
	"github.com/soakd/soakd/targets"
)

// jsonCorpus has numbers, booleans, nested objects and arrays, a null
// (left out), a missing field and a field whose name needs the bracket
// form of a JSONPath.
var jsonCorpus = []string{
	`{"id":"p1","title":"red lamp","body":"a red lamp for the desk","price":12.5,"stock":3,"in_stock":true,"tags":["home","light"],"meta":{"color":"red","dims":[10,20]},"sale-price":9}`,
	`{"id":"p2","title":"blue chair","body":"a chair in blue","price":40,"stock":0,"in_stock":false,"tags":[],"meta":{"color":"blue"},"gone":null}`,
	`{"id":"p3","title":"green desk","body":"oak desk, green legs","price":199.99,"in_stock":true,"meta":{"color":"green","parts":{"legs":4}}}`,
	`{"id":"p4","title":"red chair","body":"red \"quoted\" chair","price":35,"stock":7,"in_stock":true,"tags":["seat"],"sale-price":30}`,
}

// corpusDocs is jsonCorpus decoded: what a JSON document written from
// it must hold (nulls left out).
func corpusDocs(t *testing.T) []map[string]any {
	var out []map[string]any
	for _, l := range jsonCorpus {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		maps.DeleteFunc(m, func(_ string, v any) bool { return v == nil })
		out = append(out, m)
	}
	return out
}

// fieldOfPath is the field a top-level JSONPath names ($.f or $["f"]).
func fieldOfPath(t *testing.T, p string) string {
	if f, ok := strings.CutPrefix(p, "$."); ok {
		return f
	}
	if q, ok := strings.CutPrefix(p, "$["); ok && strings.HasSuffix(q, "]") {
		f, err := strconv.Unquote(strings.TrimSuffix(q, "]"))
		if err != nil {
			t.Fatalf("path %q: %v", p, err)
		}
		return f
	}
	t.Fatalf("path %q is not a top-level field", p)
	return ""
}

// TestCorpusJSONThroughEngine runs a corpus scenario with client.search:
// json through engine.Run against the protocol-shaped fake (RediSearch
// 2.8 and RedisJSON 2.6 as MODULE LIST reports them: no RedisJSON module
// runs here): the load writes every document with JSON.SET at the root,
// its fields' types kept (numbers, booleans, nested objects and arrays),
// under the corpus's keys and cycling past its end; reads are JSON.GET;
// an update writes all the fields of a corpus document (but the key
// field) at their paths, after an NX root so a deleted record comes
// back; no hash command is sent.
func TestCorpusJSONThroughEngine(t *testing.T) {
	f := startFake(t, [2]any{"search", 20804}, [2]any{"ReJSON", 20606})
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "docs.ndjson"), []byte(strings.Join(jsonCorpus, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(p, []byte(`name: corpus-json
target: {kind: redis, url: "`+f.url()+`", client: {search: json}}
keyspace: {records: 8, prefix: "doc:"}
record: {source: docs.ndjson, key_field: id, query: {terms: 1, from: [title, body]}}
phases:
  - {name: load, kind: load, concurrency: 1}
  - {name: mix, kind: steady, rate: 0, requests: 90, concurrency: 1, mix: {read: 40, update: 40, search: 20}}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, err := targets.LoadScenario(p)
	if err != nil {
		t.Fatal(err)
	}
	tg := openTarget(t, sc.Target, targets.Options{})
	sum, err := engine.Run(ctxT(t), engine.Options{Scenario: sc, Target: tg, TargetKind: "redis", OutDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for _, ph := range sum.Phases {
		if ph.Errors != 0 {
			t.Fatalf("phase %s: %d errors: %+v", ph.Name, ph.Errors, ph.Ops)
		}
	}
	if got := f.commands("FT.CREATE"); len(got) != 1 || got[0] != "FT.CREATE soakd:search ON JSON PREFIX 1 doc: SCHEMA $.title AS title TEXT $.body AS body TEXT $.num AS num NUMERIC SORTABLE" {
		t.Fatalf("index %q", got)
	}
	docs := corpusDocs(t)
	f.mu.Lock()
	cmds := slices.Clone(f.cmds)
	f.mu.Unlock()

	// The load: records 0-7 are documents 0-3 twice, the second time
	// under new keys; each JSON.SET at the root holds the document as
	// the file has it, and num.
	var loaded []string
	i := 0
	for ; i < len(cmds) && len(loaded) < 8; i++ {
		c := cmds[i]
		if c[0] != "JSON.SET" {
			continue
		}
		if len(c) != 4 || c[2] != "$" {
			t.Fatalf("load sent %q", c)
		}
		n := len(loaded)
		want := maps.Clone(docs[n%4])
		key := "doc:" + want["id"].(string)
		if n >= 4 {
			key += ":1"
		}
		want["num"] = float64(n)
		var got map[string]any
		if err := json.Unmarshal([]byte(c[3]), &got); err != nil {
			t.Fatalf("load of %s: %v", c[1], err)
		}
		if c[1] != key || !reflect.DeepEqual(got, want) {
			t.Fatalf("record %d: JSON.SET %s %s, want %s holding %v", n, c[1], c[3], key, want)
		}
		loaded = append(loaded, key)
	}
	if len(loaded) != 8 {
		t.Fatalf("the load wrote %d documents", len(loaded))
	}

	// The mix: one JSON.GET a read, and an update's JSON.SETs make one
	// corpus document (its key field aside) over a loaded record.
	ops := sum.Phases[1].Ops
	reads, updates := 0, 0
	var upd map[string]any
	updKey := ""
	endUpdate := func() {
		if upd == nil {
			return
		}
		match := false
		for _, d := range docs {
			d = maps.Clone(d)
			delete(d, "id")
			if reflect.DeepEqual(d, upd) {
				match = true
			}
		}
		if !match {
			t.Fatalf("update of %s wrote %v: no corpus document's fields", updKey, upd)
		}
		upd = nil
	}
	sawNested := false
	for _, c := range cmds[i:] {
		switch c[0] {
		case "HSET", "HGETALL", "HMGET", "HGET":
			t.Fatalf("a hash command over JSON: %q", c)
		case "JSON.GET":
			endUpdate()
			if len(c) != 2 || !slices.Contains(loaded, c[1]) {
				t.Fatalf("read sent %q", c)
			}
			reads++
		case "JSON.SET":
			if c[2] == "$" {
				endUpdate()
				if len(c) != 5 || c[3] != "{}" || c[4] != "NX" || !slices.Contains(loaded, c[1]) {
					t.Fatalf("update began with %q", c)
				}
				upd, updKey = map[string]any{}, c[1]
				updates++
				continue
			}
			if upd == nil || c[1] != updKey || len(c) != 4 {
				t.Fatalf("a field set outside an update: %q", c)
			}
			name := fieldOfPath(t, c[2])
			if name == "sale-price" && c[2] != `$["sale-price"]` {
				t.Fatalf("path %s", c[2])
			}
			var v any
			if err := json.Unmarshal([]byte(c[3]), &v); err != nil {
				t.Fatalf("%q: %v", c, err)
			}
			if _, ok := v.(map[string]any); ok {
				sawNested = true
			}
			upd[name] = v
		default:
			endUpdate()
		}
	}
	endUpdate()
	if int64(reads) != ops["read"].Count || int64(updates) != ops["update"].Count || reads == 0 || updates == 0 {
		t.Fatalf("%d JSON.GET and %d updates sent for %d reads and %d updates", reads, updates, ops["read"].Count, ops["update"].Count)
	}
	if !sawNested {
		t.Fatalf("no update wrote a nested object as one")
	}
	if n := len(f.commands("FT.SEARCH")); int64(n) != ops["search"].Count || n == 0 {
		t.Fatalf("%d FT.SEARCH for %d searches", n, ops["search"].Count)
	}
}

func TestJSONPath(t *testing.T) {
	for name, want := range map[string]string{
		"title": "$.title", "_x9": "$._x9", "sale-price": `$["sale-price"]`, "9lives": `$["9lives"]`,
		"a.b": `$["a.b"]`, `say "hi"\`: `$["say \"hi\"\\"]`, "": `$[""]`, "prix€": `$["prix€"]`,
	} {
		if got := jsonPath(name); got != want {
			t.Errorf("jsonPath(%q) = %s, want %s", name, got, want)
		}
	}
}
