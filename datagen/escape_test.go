package datagen

import (
	"encoding/json"
	"math/rand/v2"
	"net/url"
	"strings"
	"testing"

	"github.com/soakd/soakd/scenarios"
)

// Values holding JSON or URL syntax land as one value where they are
// rendered: escaped as string content in a JSON string, quoted when
// bare unless a lone scalar, percent-encoded in a path or query; redis
// arguments stay raw.
func TestRenderEscapesForPlace(t *testing.T) {
	src := `name: t
target: {kind: %s, url: "%s"}
keyspace: {records: 5, prefix: 'k"}/'}
bindings:
  v: {gen: 'choice:a"b,}]{,x/../y,12,true,"s",{"$gt":1}'}
ops:
  e: {elastic: {method: PUT, path: "/i/_doc/{v}?routing={v}&k={key}", body: '{"a": "{v}", "b": {v}, "{v}": [{key}]}'}}
  m: {mongo: {command: '{"find": "c", "filter": {"x": "{v}", "y": {v}, "z{v}": "{key}"}}'}}
  r: {redis: [SET, "{key}", "{v}"]}
phases:
  - {name: s, kind: steady, rate: 10, duration: 1s, mix: {e: 50, m: 50}}
`
	values := map[string]bool{`a"b`: true, `}]{`: true, `x/../y`: true, `12`: true, `true`: true, `"s"`: true, `{"$gt":1}`: true}
	for _, k := range []scenarios.TargetKind{scenarios.KindElastic, scenarios.KindMongo, scenarios.KindRedis} {
		url := map[scenarios.TargetKind]string{scenarios.KindElastic: "http://127.0.0.1:9200", scenarios.KindMongo: "mongodb://127.0.0.1:27017", scenarios.KindRedis: "redis://127.0.0.1:6379"}[k]
		s := strings.Replace(strings.Replace(src, "%s", string(k), 1), "%s", url, 1)
		s = strings.Replace(s, "mix: {e: 50, m: 50}", "mix: {"+string(k[0])+": 100}", 1)
		sc, err := scenarios.Parse("t.yaml", []byte(s))
		if err != nil {
			t.Fatal(err)
		}
		p, err := Compile(sc, k)
		if err != nil {
			t.Fatal(err)
		}
		r := NewRenderer(p)
		rng := rand.New(rand.NewPCG(3, 4))
		var buf []byte
		var parts [][]byte
		for i := 0; i < 100; i++ {
			switch k {
			case scenarios.KindElastic:
				buf, parts = r.Render(opOf(t, sc, "e"), []byte(`k"}/1`), 0, rng, buf[:0], parts[:0])
				checkElastic(t, string(parts[0]), string(parts[1]), values)
			case scenarios.KindMongo:
				buf, parts = r.Render(opOf(t, sc, "m"), []byte(`k"}/1`), 0, rng, buf[:0], parts[:0])
				var doc map[string]any
				if err := json.Unmarshal(parts[0], &doc); err != nil || len(doc) != 2 {
					t.Fatalf("%s: %v", parts[0], err)
				}
				var c struct {
					Filter map[string]any `json:"filter"`
				}
				_ = json.Unmarshal(parts[0], &c)
				x, _ := c.Filter["x"].(string)
				if len(c.Filter) != 3 || !values[x] || c.Filter["z"+x] != `k"}/1` {
					t.Fatalf("%s: filter %v", parts[0], c.Filter)
				}
			default:
				buf, parts = r.Render(opOf(t, sc, "r"), []byte(`k"}/1`), 0, rng, buf[:0], parts[:0])
				if string(parts[1]) != `k"}/1` || !values[string(parts[2])] {
					t.Fatalf("redis parts %q", parts)
				}
			}
		}
	}
}

func checkElastic(t *testing.T, path, body string, values map[string]bool) {
	t.Helper()
	u, err := url.Parse(path)
	if err != nil {
		t.Fatal(err)
	}
	segs := strings.Split(u.EscapedPath(), "/")
	if len(segs) != 4 {
		t.Fatalf("path %s: %d segments", path, len(segs))
	}
	id, _ := url.PathUnescape(segs[3])
	q := u.Query()
	if !values[id] || q.Get("routing") != id || q.Get("k") != `k"}/1` || len(q) != 2 {
		t.Fatalf("path %s: id %q query %v", path, id, q)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(body), &doc); err != nil || len(doc) != 3 {
		t.Fatalf("body %s: %v", body, err)
	}
	a, _ := doc["a"].(string)
	if a != id {
		t.Fatalf("body %s: a %q, id %q", body, a, id)
	}
	// Bare: a lone scalar stays itself, anything else is a string.
	switch b := doc["b"].(type) {
	case string:
		if b != id && `"`+b+`"` != id {
			t.Fatalf("body %s: b %q", body, b)
		}
	case float64, bool:
	default:
		t.Fatalf("body %s: b %v", body, b)
	}
	if k, ok := doc[id].([]any); !ok || len(k) != 1 || k[0] != `k"}/1` {
		t.Fatalf("body %s: key %v", body, doc[id])
	}
}

// FuzzKeyKeepsStructure: whatever bytes {key} holds, the elastic body
// stays an object of the template's three keys with the key as a
// string, and the path keeps its segments (go test -fuzz
// FuzzKeyKeepsStructure ./datagen/ explores further; the seeds run with
// the tests).
func FuzzKeyKeepsStructure(f *testing.F) {
	for _, s := range []string{"", `"`, `\`, `"}, "x": {"`, "\x00\n\t", "../../_all", "a/b?c#d", "%2e%2e", "\xff\xfe", "{key}", "1", "true", `"s"`} {
		f.Add(s)
	}
	sc, err := scenarios.Parse("t.yaml", []byte(`name: t
target: {kind: elastic, url: "http://127.0.0.1:9200"}
keyspace: {records: 5}
ops:
  e: {elastic: {method: PUT, path: "/i/_doc/{key}?r={key}", body: '{"a": "{key}", "b": {key}, "{key}": 1}'}}
phases:
  - {name: s, kind: steady, rate: 10, duration: 1s, mix: {e: 100}}
`))
	if err != nil {
		f.Fatal(err)
	}
	p, err := Compile(sc, scenarios.KindElastic)
	if err != nil {
		f.Fatal(err)
	}
	op := opOf(f, sc, "e")
	f.Fuzz(func(t *testing.T, key string) {
		r := NewRenderer(p)
		_, parts := r.Render(op, []byte(key), 0, rand.New(rand.NewPCG(1, 1)), nil, nil)
		path, body := string(parts[0]), string(parts[1])
		u, err := url.Parse(path)
		if err != nil || strings.Count(u.EscapedPath(), "/") != 3 || len(u.Query()) != 1 {
			t.Fatalf("key %q: path %s (%v)", key, path, err)
		}
		var doc map[string]any
		if err := json.Unmarshal([]byte(body), &doc); err != nil {
			t.Fatalf("key %q: body %s: %v", key, body, err)
		}
		want := 3
		if k := jsonKeyOf(key); k == "a" || k == "b" {
			want = 2 // the key names one of the template's own keys
		}
		if len(doc) != want {
			t.Fatalf("key %q: body %s has %d keys", key, body, len(doc))
		}
	})
}

// jsonKeyOf is key as it reads back from a JSON string.
func jsonKeyOf(key string) string {
	var s string
	_ = json.Unmarshal(append(appendJSONContent([]byte{'"'}, []byte(key)), '"'), &s)
	return s
}
