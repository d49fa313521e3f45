package datagen

import (
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/soakd/soakd/scenarios"
)

func compile(t testing.TB, src string) (*Program, *scenarios.Scenario) {
	t.Helper()
	sc, err := scenarios.Parse("t.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	p, err := Compile(sc, scenarios.KindRedis)
	if err != nil {
		t.Fatal(err)
	}
	return p, sc
}

func opOf(t testing.TB, sc *scenarios.Scenario, name string) scenarios.Op {
	names, err := sc.OpTable()
	if err != nil {
		t.Fatal(err)
	}
	o, ok := names.Lookup(name)
	if !ok {
		t.Fatalf("no op %s", name)
	}
	return o
}

// Each placeholder renders what it says; a named binding is one value
// per op wherever the op uses it; static parts alias the template.
func TestRenderPlaceholders(t *testing.T) {
	p, sc := compile(t, `name: t
target: {kind: redis, url: "redis://127.0.0.1:6379"}
keyspace: {records: 100}
bindings:
  u: {key: uniform, records: 3, prefix: "user"}
  c: {gen: "choice:x=1,y=1000000"}
ops:
  all:
    redis: [SET, "{u}|{u}|{c}", "{int:-3:3}|{float:1:2}|{seq}|{bytes:5}|{text:3}|{choice:a,b}|{uuid}|{now_ms}|{key}|{{x}"]
phases:
  - {name: s, kind: steady, rate: 10, duration: 1s, mix: {all: 100}}
`)
	r := NewRenderer(p)
	rng := rand.New(rand.NewPCG(1, 2))
	var buf []byte
	var parts [][]byte
	for i := 0; i < 200; i++ {
		buf, parts = r.Render(opOf(t, sc, "all"), []byte("key7"), uint64(i), rng, buf[:0], parts[:0])
		if len(parts) != 3 || string(parts[0]) != "SET" {
			t.Fatalf("parts %q", parts)
		}
		a := strings.Split(string(parts[1]), "|")
		if a[0] != a[1] || !strings.HasPrefix(a[0], "user") || (a[0] != "user0" && a[0] != "user1" && a[0] != "user2") {
			t.Fatalf("binding u rendered %q", parts[1])
		}
		if a[2] != "x" && a[2] != "y" {
			t.Fatalf("choice binding %q", a[2])
		}
		f := strings.Split(string(parts[2]), "|")
		if n, err := strconv.Atoi(f[0]); err != nil || n < -3 || n > 3 {
			t.Fatalf("int %q", f[0])
		}
		if v, err := strconv.ParseFloat(f[1], 64); err != nil || v < 1 || v >= 2 {
			t.Fatalf("float %q", f[1])
		}
		if f[2] != strconv.Itoa(i) {
			t.Fatalf("seq %q, want %d", f[2], i)
		}
		if len(f[3]) != 5 || len(strings.Fields(f[4])) != 3 || (f[5] != "a" && f[5] != "b") {
			t.Fatalf("bytes/text/choice %q", f[3:6])
		}
		if len(f[6]) != 36 || f[6][14] != '4' || strings.Count(f[6], "-") != 4 {
			t.Fatalf("uuid %q", f[6])
		}
		if ms, err := strconv.ParseInt(f[7], 10, 64); err != nil || ms < 1.7e12 {
			t.Fatalf("now_ms %q", f[7])
		}
		if f[8] != "key7" || f[9] != "{x}" {
			t.Fatalf("key / escape %q", f[8:])
		}
	}
}

// Weights hold: a 1:3 choice draws the second about three times as
// often (a fixed seed, so the count is exact run to run).
func TestRenderChoiceWeights(t *testing.T) {
	p, sc := compile(t, `name: t
ops:
  c: {redis: [GET, "{choice:a=1,b=3}"]}
phases:
  - {name: s, kind: steady, rate: 10, duration: 1s, mix: {c: 100}}
`)
	r := NewRenderer(p)
	rng := rand.New(rand.NewPCG(7, 7))
	var buf []byte
	var parts [][]byte
	b := 0
	for i := 0; i < 10000; i++ {
		buf, parts = r.Render(opOf(t, sc, "c"), nil, 0, rng, buf[:0], parts[:0])
		if string(parts[1]) == "b" {
			b++
		}
	}
	if b < 7300 || b > 7700 {
		t.Fatalf("b drawn %d times of 10000, want about 7500", b)
	}
}

// The program renders only the ops with a form for its kind.
func TestCompileSkipsOtherKinds(t *testing.T) {
	_, sc := compile(t, `name: t
ops:
  c: {redis: [GET, "{key}"]}
phases:
  - {name: s, kind: steady, rate: 10, duration: 1s, mix: {c: 100}}
`)
	p, err := Compile(sc, scenarios.KindMongo)
	if err != nil {
		t.Fatal(err)
	}
	if p.Has(opOf(t, sc, "c")) {
		t.Fatal("mongo program renders a redis-only op")
	}
}

// BenchmarkRenderGetKey renders the compiled [GET, "{key}"]: the cost a
// custom op adds to the built-in get's request filling (0 allocs/op).
func BenchmarkRenderGetKey(b *testing.B) {
	p, sc := compile(b, `name: t
ops:
  g: {redis: [GET, "{key}"]}
phases:
  - {name: s, kind: steady, rate: 10, duration: 1s, mix: {g: 100}}
`)
	r := NewRenderer(p)
	rng := rand.New(rand.NewPCG(1, 1))
	op := opOf(b, sc, "g")
	key := scenarios.AppendKey(nil, "user", 12345, false)
	buf, parts := make([]byte, 0, 64), make([][]byte, 0, 4)
	b.ReportAllocs()
	for b.Loop() {
		buf, parts = r.Render(op, key, 1, rng, buf[:0], parts[:0])
	}
}

// BenchmarkRenderCart renders the cart scenario's cart_add: a zipfian
// binding and an int range.
func BenchmarkRenderCart(b *testing.B) {
	p, sc := compile(b, `name: t
keyspace: {records: 10000, distribution: zipfian}
bindings:
  user: {key: zipfian}
ops:
  cart_add: {redis: [HINCRBY, "cart:{user}", "sku{int:1:50}", "1"]}
phases:
  - {name: s, kind: steady, rate: 10, duration: 1s, mix: {cart_add: 100}}
`)
	r := NewRenderer(p)
	rng := rand.New(rand.NewPCG(1, 1))
	op := opOf(b, sc, "cart_add")
	buf, parts := make([]byte, 0, 64), make([][]byte, 0, 4)
	b.ReportAllocs()
	for b.Loop() {
		buf, parts = r.Render(op, nil, 1, rng, buf[:0], parts[:0])
	}
}

// A choice or a binding prefix with quotes and backslashes renders as
// valid JSON in a mongo template (escaped once at compile), and as
// written in a redis one.
func TestJSONTemplatesEscapeUserValues(t *testing.T) {
	src := `name: t
bindings:
  u: {key: uniform, records: 10, prefix: "a\"b\\"}
ops:
  c:
    redis: [SET, "{u}", "{choice:x\"y}"]
    mongo: {command: '{"find": "c", "filter": {"_id": "{u}", "v": "{choice:x"y}"}}'}
phases:
  - {name: s, kind: steady, rate: 10, duration: 1s, mix: {c: 100}}
`
	sc, err := scenarios.Parse("t.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	op := opOf(t, sc, "c")
	rng := rand.New(rand.NewPCG(1, 2))
	pm, err := Compile(sc, scenarios.KindMongo)
	if err != nil {
		t.Fatal(err)
	}
	_, parts := NewRenderer(pm).Render(op, []byte("k"), 0, rng, nil, nil)
	doc := strings.Join(func() []string {
		var ss []string
		for _, p := range parts {
			ss = append(ss, string(p))
		}
		return ss
	}(), "")
	var v map[string]any
	if err := json.Unmarshal([]byte(doc), &v); err != nil {
		t.Fatalf("mongo command %s: %v", doc, err)
	}
	f := v["filter"].(map[string]any)
	if id, _ := f["_id"].(string); !strings.HasPrefix(id, `a"b\`) || f["v"] != `x"y` {
		t.Errorf("filter %v: want _id a\"b\\N and v x\"y", f)
	}
	pr, err := Compile(sc, scenarios.KindRedis)
	if err != nil {
		t.Fatal(err)
	}
	_, parts = NewRenderer(pr).Render(op, []byte("k"), 0, rng, nil, nil)
	if !strings.HasPrefix(string(parts[1]), `a"b\`) || string(parts[2]) != `x"y` {
		t.Errorf("redis args %q: want the values as written", parts)
	}
}
