package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// appendingCorpus is a fake store whose Prepare appends documents to the
// corpus file (the run has read it through by then) and which records
// the key and fields of every op it is sent.
type appendingCorpus struct {
	path string
	mu   sync.Mutex
	ops  []corpusOp
}

type corpusOp struct {
	op     scenarios.Op
	key    string
	fields map[string]string
}

func (a *appendingCorpus) Prepare(context.Context, *scenarios.Scenario) error {
	f, err := os.OpenFile(a.path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	for i := 0; i < 3; i++ {
		if _, err := fmt.Fprintf(f, `{"id":"late%d","v":"late"}`+"\n", i); err != nil {
			return err
		}
	}
	return nil
}

func (a *appendingCorpus) Do(_ context.Context, r *targets.Request) error {
	o := corpusOp{op: r.Op, key: string(r.Key), fields: map[string]string{}}
	for _, f := range r.Fields {
		o.fields[f.Name] = string(f.Value)
	}
	a.mu.Lock()
	a.ops = append(a.ops, o)
	a.mu.Unlock()
	return nil
}

func (a *appendingCorpus) Close() error { return nil }

// Documents appended to the corpus after prepare read it are never
// read: the load cycles through the original documents only (the
// twelfth record is the original fifth's second key, not a new
// document's), and inserts and updates draw only original documents.
func TestCorpusAppendedDuringRunIsNotRead(t *testing.T) {
	dir := t.TempDir()
	docs := filepath.Join(dir, "docs.ndjson")
	var b strings.Builder
	for i := 0; i < 5; i++ {
		fmt.Fprintf(&b, `{"id":"k%d","v":"orig%d"}`+"\n", i, i)
	}
	if err := os.WriteFile(docs, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(p, []byte(`target: {kind: embedded}
keyspace: {records: 12, prefix: "doc:"}
record: {source: docs.ndjson, key_field: id}
phases:
  - {name: load, kind: load, concurrency: 1}
  - {name: mix, kind: steady, rate: 0, requests: 300, concurrency: 2, mix: {insert: 20, update: 40, read: 40}}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, err := scenarios.LoadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	tg := &appendingCorpus{path: docs}
	sum, err := Run(context.Background(), Options{Scenario: sc, Target: tg, TargetKind: "embedded", OutDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Status != rundir.StatusCompleted {
		t.Fatalf("status %q: %s", sum.Status, sum.StatusReason)
	}
	if st, _ := os.Stat(docs); st == nil || st.Size() <= int64(b.Len()) {
		t.Fatal("the corpus was not appended to")
	}
	tg.mu.Lock()
	ops := tg.ops
	tg.mu.Unlock()
	var loadKeys []string
	writes := 0
	for i, o := range ops {
		if strings.Contains(o.key, "late") {
			t.Fatalf("op %d (%s) on key %s: an appended document", i, o.op, o.key)
		}
		for name, v := range o.fields {
			if strings.Contains(v, "late") {
				t.Fatalf("op %d (%s) on %s wrote %s=%q from an appended document", i, o.op, o.key, name, v)
			}
		}
		if o.op != scenarios.OpInsert && o.op != scenarios.OpUpdate {
			continue
		}
		writes++
		if !strings.HasPrefix(o.fields["v"], "orig") {
			t.Fatalf("op %d (%s) on %s wrote %v: no original document", i, o.op, o.key, o.fields)
		}
		if i < 12 {
			loadKeys = append(loadKeys, o.key)
		}
	}
	want := []string{"doc:k0", "doc:k1", "doc:k2", "doc:k3", "doc:k4", "doc:k0:1", "doc:k1:1", "doc:k2:1", "doc:k3:1", "doc:k4:1", "doc:k0:2", "doc:k1:2"}
	if strings.Join(loadKeys, " ") != strings.Join(want, " ") {
		t.Fatalf("load keys %v, want %v", loadKeys, want)
	}
	if writes < 12+100 {
		t.Fatalf("only %d inserts and updates", writes)
	}
}
