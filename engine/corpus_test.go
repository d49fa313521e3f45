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
	os.WriteFile(docs, []byte("{\"id\":\"a\"}\n{\"id\":\"b\"}\n{\"id\":\"c\",\n"), 0o644)
	p := filepath.Join(dir, "s.yaml")
	os.WriteFile(p, []byte("target: {kind: embedded}\nrecord: {source: docs.ndjson, key_field: id}\nphases: [{name: load, kind: load}]\n"), 0o644)
	sc, err := scenarios.LoadFile(p)
	if err != nil {
		t.Fatal(err)
	}
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
