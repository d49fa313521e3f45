package rundir

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The note's life over a run: reserved blank (a process killed now
// leaves a blank note: killed), reopened by the caller that writes the
// summary without losing its room, recorded (first error only, one
// line, cut to NoteBytes) or discarded once the results are written.
func TestWriteNoteLifecycle(t *testing.T) {
	dir := t.TempDir()
	n, err := ReserveWriteNote(dir)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, WriteNoteFile)
	if st, err := os.Stat(path); err != nil || st.Size() != NoteBytes || ReadWriteNote(dir) != "" {
		t.Fatalf("reserved note: %v size %d, text %q", err, st.Size(), ReadWriteNote(dir))
	}
	n.Close()

	n, err = OpenWriteNote(dir)
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); st.Size() != NoteBytes {
		t.Errorf("reopening changed the note's room: %d bytes", st.Size())
	}
	long := strings.Repeat("x", 2*NoteBytes)
	n.Record(errors.New("summary.json: no space left on device\n" + long))
	n.Record(errors.New("a later error"))
	n.Close()
	got := ReadWriteNote(dir)
	if !strings.HasPrefix(got, "summary.json: no space left on device x") || strings.Contains(got, "\n") || len(got) != NoteBytes {
		t.Errorf("recorded %d bytes %.60q..., want the first error on one line, cut to %d", len(got), got, NoteBytes)
	}

	n, err = OpenWriteNote(dir)
	if err != nil {
		t.Fatal(err)
	}
	n.Discard()
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("discarded note still there: %v", err)
	}
	// No note to open (it could not be reserved): nil, and a nil note
	// does nothing.
	n, err = OpenWriteNote(dir)
	if err == nil || n != nil {
		t.Fatalf("opened a note that is not there: %v", err)
	}
	n.Record(errors.New("x"))
	n.Close()
	n.Discard()
}
