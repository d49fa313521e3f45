package rundir

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestCheckpointRoundTrip: a checkpoint reads back as written; none is
// ErrNoCheckpoint; another version is refused.
func TestCheckpointRoundTrip(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadCheckpoint(dir); !errors.Is(err, ErrNoCheckpoint) {
		t.Errorf("no checkpoint: %v", err)
	}
	at := time.Date(2026, 12, 6, 18, 0, 0, 0, time.UTC)
	c := &Checkpoint{Version: CheckpointVersion, Written: at, Logs: CheckpointLogs{Latency: 10, Counts: 5},
		Seams: []Seam{{Phase: "p", Down: at, Resumed: at.Add(time.Second), Lost: 7}}}
	if err := WriteCheckpoint(dir, c); err != nil {
		t.Fatal(err)
	}
	got, err := ReadCheckpoint(dir)
	if err != nil || !got.Written.Equal(at) || got.Logs != c.Logs || len(got.Seams) != 1 || got.Seams[0].Lost != 7 {
		t.Errorf("read back %+v, %v", got, err)
	}
	c.Version = CheckpointVersion + 1
	if err := WriteCheckpoint(dir, c); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadCheckpoint(dir); err == nil {
		t.Error("a checkpoint of another version was read")
	}
}

// TestReopenPartial: a killed run's log is cut back to its checkpoint's
// size and written on from there; one named already (killed before its
// summary) gets its running name back; one shorter than the checkpoint
// is refused.
func TestReopenPartial(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, CountsFile+PartialSuffix)
	if err := os.WriteFile(path, []byte("line1\nline2\npartial"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := ReopenPartial(dir, CountsFile, "line", 6)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Write([]byte("next\n")); err != nil || p.Size() != 11 {
		t.Fatalf("write: %v, size %d", err, p.Size())
	}
	if err := p.Finish(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, CountsFile)); string(b) != "line1\nnext\n" {
		t.Errorf("log %q, want the checkpoint's line and the next", b)
	}
	// Named already: renamed back and cut.
	p, err = ReopenPartial(dir, CountsFile, "line", 6)
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
	if b, _ := os.ReadFile(path); string(b) != "line1\n" {
		t.Errorf("renamed back %q", b)
	}
	if _, err := ReopenPartial(dir, CountsFile, "line", 100); err == nil {
		t.Error("a log shorter than its checkpoint was reopened")
	}
}
