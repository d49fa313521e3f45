package mongotest

import (
	"context"
	"strings"
	"testing"

	"github.com/soakd/soakd/internal/runpath"
	"github.com/soakd/soakd/internal/studytest"
	"github.com/soakd/soakd/scenarios"
)

// TestStudySearchMix: study-search-mix-mongo.yaml, with the study's
// short overrides, against FerretDB. FerretDB has no text index, so the
// run must stop before its first op, saying so (the search paths run
// only against real MongoDB: docker-compose).
func TestStudySearchMix(t *testing.T) {
	f := startFerret(t, "127.0.0.1:0", t.TempDir())
	sc, err := scenarios.LoadFile("../../../scenarios/study-search-mix-mongo.yaml")
	if err != nil {
		t.Fatal(err)
	}
	o := studytest.Short
	o.Target = testURL(f)
	if probs, err := runpath.Apply(sc, o); err != nil || len(probs) > 0 {
		t.Fatalf("overrides: %v %v", err, probs)
	}
	_, err = runpath.Run(context.Background(), runpath.Options{Scenario: sc, OutDir: t.TempDir(), Getenv: func(string) string { return "" }})
	if err == nil || !strings.Contains(err.Error(), "text index") {
		t.Fatalf("run on FerretDB: %v, want a prepare error naming the text index", err)
	}
}
