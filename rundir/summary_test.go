package rundir

import (
	"os"
	"path/filepath"
	"testing"
)

// WriteFileAtomic replaces the file whole and leaves no temp file.
func TestWriteFileAtomicReplaces(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.json")
	for _, body := range []string{"first, and longer", "second"} {
		if err := WriteFileAtomic(p, []byte(body)); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(p); string(got) != body {
			t.Fatalf("file holds %q, want %q", got, body)
		}
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Fatalf("dir holds %d entries, want the file alone", len(ents))
	}
	if err := WriteFileAtomic(filepath.Join(dir, "missing", "f"), nil); err == nil {
		t.Fatal("a write into a missing directory succeeded")
	}
}

// A stage's memory comes from the names the stores' stats use, the
// cgroup's swap before the process's; no figure at all is no record.
func TestStageMemoryOf(t *testing.T) {
	if StageMemoryOf(map[string]float64{"ops": 1}) != nil {
		t.Fatal("stats without memory figures made a record")
	}
	m := StageMemoryOf(map[string]float64{"used_memory_bytes": 100, "process_swap_bytes": 7, "cgroup_swap_usage_bytes": 9})
	if m == nil || *m.UsedBytes != 100 || *m.SwapBytes != 9 || m.RSSBytes != nil {
		t.Fatalf("memory %+v", m)
	}
	if m := StageMemoryOf(map[string]float64{"process_swap_bytes": 7}); m == nil || *m.SwapBytes != 7 {
		t.Fatalf("process swap alone: %+v", m)
	}
}
