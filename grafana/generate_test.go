package grafana

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// TestCommittedJSONIsGenerated regenerates every dashboard into a temp
// dir and compares it with grafana/dashboards/: the committed JSON is
// exactly what the code builds, and nothing else is there.
func TestCommittedJSONIsGenerated(t *testing.T) {
	dir := t.TempDir()
	if err := WriteAll(dir); err != nil {
		t.Fatal(err)
	}
	want, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	got, _ := filepath.Glob("dashboards/*.json")
	names := func(fs []string) []string {
		out := make([]string, len(fs))
		for i, f := range fs {
			out[i] = filepath.Base(f)
		}
		sort.Strings(out)
		return out
	}
	if a, b := names(want), names(got); !equal(a, b) {
		t.Fatalf("dashboards/ holds %v, the generator writes %v: run go generate ./grafana", b, a)
	}
	for _, f := range want {
		gen, _ := os.ReadFile(f)
		committed, err := os.ReadFile(filepath.Join("dashboards", filepath.Base(f)))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(gen, committed) {
			t.Errorf("dashboards/%s differs from the generated one (first difference at line %d): run go generate ./grafana",
				filepath.Base(f), firstDiffLine(gen, committed))
		}
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func firstDiffLine(a, b []byte) int {
	la, lb := bytes.Split(a, []byte("\n")), bytes.Split(b, []byte("\n"))
	for i := range min(len(la), len(lb)) {
		if !bytes.Equal(la[i], lb[i]) {
			return i + 1
		}
	}
	return min(len(la), len(lb)) + 1
}
