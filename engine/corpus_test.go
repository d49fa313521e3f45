package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// A malformed document past the first (validate only peeks at that one)
// fails the run at prepare, before any op, naming the scenario's line
// and the corpus's.
func TestCorpusBadLineFailsAtPrepare(t *testing.T) {
	dir := t.TempDir()
	docs := filepath.Join(dir, "docs.ndjson")
	os.WriteFile(docs, []byte("{\"id\":\"a\"}\n{\"id\":\"b\"}\n"), 0o644)
	p := filepath.Join(dir, "s.yaml")
	os.WriteFile(p, []byte("target: {kind: embedded}\nrecord: {source: docs.ndjson, key_field: id}\nphases: [{name: load, kind: load}]\n"), 0o644)
	sc, err := scenarios.LoadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	// Validation reads the corpus through as well (and refuses the
	// line the same way); the line is added after it here, so the run's
	// own pass is what refuses it.
	os.WriteFile(docs, []byte("{\"id\":\"a\"}\n{\"id\":\"b\"}\n{\"id\":\"c\",\n"), 0o644)
	tg, err := targets.Open(context.Background(), sc.Target, targets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	out := t.TempDir()
	_, err = Run(context.Background(), Options{Scenario: sc, Target: tg, TargetKind: sc.Target.Kind, OutDir: out})
	want := p + ":2: record.source: corpus " + docs + ": line 3: not JSON"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("Run: %v\nwant %q", err, want)
	}
	if ents, _ := os.ReadDir(out); len(ents) != 0 {
		t.Fatalf("run dir not empty after a refused corpus: %v", ents)
	}
}

// truncating is a target whose Prepare cuts the corpus file short: the
// run has already read it through, so the change shows at the first
// document read.
type truncating struct {
	targets.Target
	path string
}

func (x truncating) Prepare(context.Context, *scenarios.Scenario) error {
	return os.Truncate(x.path, 5)
}

// A corpus cut short during the run ends it, interrupted, naming the
// corpus; nothing past the original size is read.
func TestCorpusChangedDuringRun(t *testing.T) {
	dir := t.TempDir()
	docs := filepath.Join(dir, "docs.ndjson")
	var b strings.Builder
	for i := 0; i < 200; i++ {
		b.WriteString(`{"id":"k` + string(rune('a'+i%26)) + strings.Repeat("x", i) + `","v":"hello"}` + "\n")
	}
	os.WriteFile(docs, []byte(b.String()), 0o644)
	p := filepath.Join(dir, "s.yaml")
	os.WriteFile(p, []byte("target: {kind: embedded}\nkeyspace: {records: 200}\nrecord: {source: docs.ndjson, key_field: id}\nphases: [{name: load, kind: load, concurrency: 2}]\n"), 0o644)
	sc, err := scenarios.LoadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	tg, err := targets.Open(context.Background(), sc.Target, targets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	sum, err := Run(context.Background(), Options{Scenario: sc, Target: truncating{tg, docs}, TargetKind: sc.Target.Kind, OutDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "record.source: corpus "+docs) || !strings.Contains(err.Error(), "changed during the run") {
		t.Fatalf("Run: %v", err)
	}
	if sum == nil || sum.Status != "interrupted" || !strings.Contains(sum.StatusReason, "changed during the run") {
		t.Fatalf("summary: %+v", sum)
	}
}
