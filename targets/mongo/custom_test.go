package mongo

import (
	"context"
	"strings"
	"testing"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// A rendered command that is not the command its template runs (a drop
// where the template finds) is refused before anything is sent, and a
// rendered command that is not extended JSON is an error too. (The
// renderer escapes values so neither can come from a value; this is the
// last check before the server.)
func TestCustomCommandMustBeTheTemplates(t *testing.T) {
	sc, err := scenarios.Parse("m.yaml", []byte(`name: m
target: {kind: mongo, url: "mongodb://127.0.0.1:1"}
ops:
  look: {mongo: {command: '{"find": "c", "filter": {"_id": "{key}"}}'}}
phases:
  - {name: s, kind: steady, rate: 1, duration: 1s, mix: {look: 100}}
`))
	if err != nil {
		t.Fatal(err)
	}
	tg := &Target{}
	if err := tg.prepareCustom(sc); err != nil {
		t.Fatal(err)
	}
	names, err := sc.OpTable()
	if err != nil {
		t.Fatal(err)
	}
	op, _ := names.Lookup("look")
	for doc, want := range map[string]string{
		`{"drop": "c"}`:                        "not the template's find",
		`{"dropDatabase": 1, "find": "c"}`:     "not the template's find",
		`{"find": "c", "filter": {"_id": "x"}`: "not extended JSON",
	} {
		err := tg.doCustom(context.Background(), &targets.Request{Op: op, Parts: [][]byte{[]byte(doc)}})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", doc, err, want)
		}
	}
}
