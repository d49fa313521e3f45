package corpus

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	data := []byte(body)
	if strings.HasSuffix(name, ".gz") {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write(data)
		zw.Close()
		data = b.Bytes()
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const ndjson = `{"id":"a1","title":"red fox","body":"the quick red fox jumps","n":3,"tags":["x","y"],"gone":null}

{"id":"b2","title":"blue whale","body":"a blue whale sings","meta":{"k":1}}
{"id":"c3","title":"red panda","body":"red panda eats bamboo red"}
`

func fieldMap(fs []Field) map[string]string {
	m := map[string]string{}
	for _, f := range fs {
		m[f.Name] = string(f.Value)
	}
	return m
}

func TestOpenReadNDJSONAndGzip(t *testing.T) {
	for _, name := range []string{"docs.ndjson", "docs.ndjson.gz"} {
		c, err := Open(write(t, name, ndjson), Options{KeyField: "id", TextFields: []string{"title", "body"}})
		if err != nil {
			t.Fatal(err)
		}
		if c.Count() != 3 {
			t.Fatalf("%s: count %d", name, c.Count())
		}
		d, err := c.Read(0)
		if err != nil {
			t.Fatal(err)
		}
		got := fieldMap(d)
		want := map[string]string{"id": "a1", "title": "red fox", "body": "the quick red fox jumps", "n": "3", "tags": `["x","y"]`}
		if len(got) != len(want) {
			t.Fatalf("doc 0: %v", got)
		}
		for k, v := range want {
			if got[k] != v {
				t.Fatalf("doc 0 field %s = %q, want %q", k, got[k], v)
			}
		}
		if d, _ := c.Read(1); fieldMap(d)["meta"] != `{"k":1}` {
			t.Fatalf("nested: %v", fieldMap(d))
		}
		if k := string(c.AppendKey(nil, "doc:", 2)); k != "doc:c3" {
			t.Fatalf("key 2 %q", k)
		}
		if k := string(c.AppendKey(nil, "doc:", 4)); k != "doc:b2:1" {
			t.Fatalf("key 4 (second cycle) %q", k)
		}
		// "red" is the most frequent word; "the" and "a" are stop words.
		ts := c.Terms()
		if ts[0].Word != "red" || ts[0].Count != 5 {
			t.Fatalf("terms %v", ts)
		}
		for _, tm := range ts {
			if tm.Word == "the" || tm.Word == "a" {
				t.Fatalf("stop word %q in the table", tm.Word)
			}
		}
		c.Close()
	}
}

func TestOpenCSV(t *testing.T) {
	c, err := Open(write(t, "d.csv", "id,title\nx,\"hello, world\"\ny,\"two\nlines\"\n"), Options{KeyField: "id", TextFields: []string{"title"}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Count() != 2 {
		t.Fatalf("count %d", c.Count())
	}
	d, _ := c.Read(1)
	if m := fieldMap(d); m["id"] != "y" || m["title"] != "two\nlines" {
		t.Fatalf("doc 1 %v", m)
	}
	_, err = Open(write(t, "bad.csv", "id,title\nx,a\ny,b,c\n"), Options{})
	if err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Fatalf("ragged CSV: %v", err)
	}
}

func TestBadInputNamesTheLine(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{"{\"id\":1}\n{\"id\":2,}\n", "line 2: not JSON"},
		{"{\"id\":1}\n\n[1,2]\n", "line 3: not a JSON object"},
		{"{\"id\":1}\n{\"x\":2}\n", `line 2: no value for the key field "id"`},
		{"\n\n", "no documents"},
		{"", "the file is empty"},
	} {
		_, err := Open(write(t, "d.ndjson", c.body), Options{KeyField: "id"})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "d.ndjson") {
			t.Errorf("%q: %v, want %q", c.body, err, c.want)
		}
	}
	if _, err := Open(write(t, "d.ndjson", ndjson), Options{TextFields: []string{"nope"}}); err == nil || !strings.Contains(err.Error(), `no document has the text field "nope"`) {
		t.Errorf("missing text field: %v", err)
	}
	if err := Peek(filepath.Join(t.TempDir(), "missing.ndjson"), "", nil); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("Peek missing: %v", err)
	}
	if err := Peek(write(t, "d.csv", "id,title\n1,a\n"), "", []string{"body"}); err == nil || !strings.Contains(err.Error(), `no column "body"`) {
		t.Errorf("Peek CSV: %v", err)
	}
}

// A file that grows during a run is read only up to its size at Open;
// one cut short is reported, not read as fewer documents.
func TestChangedFile(t *testing.T) {
	p := write(t, "d.ndjson", ndjson)
	c, err := Open(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"id":"z9","title":"late"}` + "\n")
	f.Close()
	if c.Count() != 3 {
		t.Fatal(c.Count())
	}
	if d, err := c.Read(2); err != nil || fieldMap(d)["id"] != "c3" {
		t.Fatalf("last doc %v %v", d, err)
	}
	if err := os.Truncate(p, 10); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Read(2); err == nil || !strings.Contains(err.Error(), "changed during the run") {
		t.Fatalf("truncated: %v", err)
	}
}

func TestQueriesDeterministic(t *testing.T) {
	c, err := Open("../scenarios/testdata/corpus/docs.ndjson.gz", Options{KeyField: "id", TextFields: []string{"title", "body"}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	q1, _ := c.NewQueries(2, Zipfian)
	q2, _ := c.NewQueries(2, Zipfian)
	qu, _ := c.NewQueries(2, Uniform)
	top := map[string]bool{}
	for _, tm := range c.Terms()[:20] {
		top[tm.Word] = true
	}
	inTop, same := 0, 0
	for i := uint64(0); i < 1000; i++ {
		a, b := q1.Query(7, i), q2.Query(7, i)
		if a != b {
			t.Fatalf("query %d: %q vs %q", i, a, b)
		}
		w := strings.Fields(a)
		if len(w) != 2 || w[0] == w[1] {
			t.Fatalf("query %q", a)
		}
		if top[w[0]] {
			inTop++
		}
		if qu.Query(7, i) == a {
			same++
		}
	}
	// Zipfian over ranks: the 20 most frequent of 4000 terms take a
	// good share of the draws; uniform draws differ.
	if inTop < 250 || same > 50 {
		t.Fatalf("zipfian: %d of 1000 first terms among the top 20; %d equal to uniform's", inTop, same)
	}
	if q1.Query(8, 0) == q1.Query(7, 0) && q1.Query(8, 1) == q1.Query(7, 1) {
		t.Fatal("seed does not change the queries")
	}
}

// BenchmarkRead reads documents of the shipped corpus by index (the
// cost an insert or update adds per op).
func BenchmarkRead(b *testing.B) {
	c, err := Open("../scenarios/testdata/corpus/docs.ndjson.gz", Options{KeyField: "id"})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := c.Read(int64(i*7919) % c.Count()); err != nil {
			b.Fatal(err)
		}
	}
}

func TestKeyMemoryCapped(t *testing.T) {
	_, err := Open(write(t, "d.ndjson", ndjson), Options{KeyField: "id", MaxKeyBytes: 12})
	if err == nil || !strings.Contains(err.Error(), "line 4: the keys (field id) take more than 12 bytes") {
		t.Fatalf("%v", err)
	}
}

// Field.JSON marks the values that are JSON text (numbers, booleans,
// objects, arrays), so a JSON store can keep their types; strings and
// every CSV value are text.
func TestFieldJSONMarks(t *testing.T) {
	c, err := Open(write(t, "d.ndjson", `{"id":"a1","s":"42","n":42,"b":true,"o":{"k":[1,"x"]},"a":[],"z":null}`+"\n"), Options{KeyField: "id"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	d, err := c.Read(0)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"id": false, "s": false, "n": true, "b": true, "o": true, "a": true}
	if len(d) != len(want) {
		t.Fatalf("fields %v", d)
	}
	for _, f := range d {
		if w, ok := want[f.Name]; !ok || f.JSON != w {
			t.Errorf("field %s (%s): JSON %v", f.Name, f.Value, f.JSON)
		}
	}
	cc, err := Open(write(t, "d.csv", "id,n\na1,42\n"), Options{KeyField: "id"})
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	d, err = cc.Read(0)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range d {
		if f.JSON {
			t.Errorf("CSV field %s marked JSON", f.Name)
		}
	}
}
