package scenarios

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// The exact form loads, the path relative to the scenario's
// directory; bad corpora and specs are refused at validate with the
// scenario's file:line: field.
func TestCorpusSpecValidate(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("docs.ndjson", `{"id":"a","title":"red fox"}`+"\n")
	write("empty.ndjson", "")
	write("blank.ndjson", "\n\n")
	write("bad.ndjson", "{\"id\":1,}\n")
	write("docs.csv", "id,title\n1,red\n")
	write("late.ndjson", `{"id":"a","title":"red fox"}`+"\n"+`{"id":"b","title":"blue"}`+"\n"+`{"id":"c", "title": }`+"\n")
	write("dupe.ndjson", `{"id":"a","title":"red fox"}`+"\n"+`{"id":"a","title":"blue"}`+"\n")
	write("nokey.ndjson", `{"id":"a","title":"red fox"}`+"\n"+`{"title":"blue"}`+"\n")
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.ndjson"), 0o600); err != nil {
		t.Fatal(err)
	}
	ok := write("ok.yaml", "record: {source: docs.ndjson, key_field: id}\nphases: [{name: load, kind: load}]\n")
	sc, err := LoadFile(ok)
	if err != nil {
		t.Fatal(err)
	}
	if sc.CorpusPath() != filepath.Join(dir, "docs.ndjson") || !sc.HasCorpus() {
		t.Fatalf("corpus path %q", sc.CorpusPath())
	}
	for _, c := range []struct{ yaml, want string }{
		{"record:\n  source: missing.ndjson\n", ":2: record.source: corpus " + filepath.Join(dir, "missing.ndjson") + " does not exist"},
		{"record:\n  source: empty.ndjson\n", ":2: record.source: corpus " + filepath.Join(dir, "empty.ndjson") + ": the file is empty"},
		{"record:\n  source: blank.ndjson\n", ":2: record.source: corpus " + filepath.Join(dir, "blank.ndjson") + ": no documents"},
		{"record:\n  source: bad.ndjson\n", ":2: record.source: corpus " + filepath.Join(dir, "bad.ndjson") + ": line 1: not JSON"},
		{"record:\n  source: docs.ndjson\n  key_field: sku\n", `:2: record.source: corpus ` + filepath.Join(dir, "docs.ndjson") + ` : the first document has no key field "sku"`},
		{"record:\n  source: docs.csv\n  query: {from: [body]}\n", `no column "body"`},
		{"record:\n  key_field: id\n", ":2: record.key_field: needs record.source"},
		// validate reads the whole corpus as the run would, not only its
		// first document, and names the document's line.
		{"record:\n  source: late.ndjson\n", ":2: record.source: corpus " + filepath.Join(dir, "late.ndjson") + ": line 3: "},
		{"record:\n  source: dupe.ndjson\n  key_field: id\n", ":2: record.source: corpus " + filepath.Join(dir, "dupe.ndjson") + ": "},
		{"record:\n  source: nokey.ndjson\n  key_field: id\n", ":2: record.source: corpus " + filepath.Join(dir, "nokey.ndjson") + ": line 2: no value for the key field"},
		{"record:\n  source: fifo.ndjson\n", ":2: record.source: corpus " + filepath.Join(dir, "fifo.ndjson") + ": open " + filepath.Join(dir, "fifo.ndjson") + ": not a regular file (a FIFO)"},
		{"record:\n  source: docs.ndjson\n  query: {terms: 99, from: [title], distribution: pareto}\n", ":3: record.query.distribution: unknown term distribution"},
		{"record:\n  source: docs.ndjson\n  query: {terms: 99, from: [title]}\n", ":3: record.query.terms: must be between 1 and 16"},
		{"record:\n  source: docs.ndjson\nphases: [{name: s, kind: steady, duration: 1s, mix: {search: 100}}]\n", ":1: record.query: a scenario that searches a corpus must say"},
	} {
		p := write("bad.yaml", c.yaml)
		_, err := LoadFile(p)
		want := strings.ReplaceAll(c.want, " : ", ": ")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q:\n got %v\nwant %q", c.yaml, err, want)
		}
	}
}

func TestCorpusPlaceholderNeedsSource(t *testing.T) {
	_, err := Parse("p.yaml", []byte("target: {kind: redis}\nops:\n  put: {redis: [SET, \"{key}\", \"{corpus:title}\"]}\nphases: [{name: s, kind: steady, duration: 1s, mix: {put: 100}}]\n"))
	if err == nil || !strings.Contains(err.Error(), "p.yaml:3: ops.put.redis: {corpus:...} draws from record.source") {
		t.Fatalf("%v", err)
	}
	if _, err := ParseTemplate("{corpus}", nil); err == nil || !strings.Contains(err.Error(), "write {corpus:field}") {
		t.Fatalf("{corpus}: %v", err)
	}
}
