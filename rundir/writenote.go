package rundir

import (
	"bytes"
	"os"
	"path/filepath"
)

// WriteNoteFile holds the error that stopped a run's writes (a full
// disk). It is created at the run's start already NoteBytes long, so
// the error later goes into blocks the file owns: recording it needs no
// free space. A run that writes its results removes it; a blank one
// left behind means the process died (killed), a filled one that the
// results could not be written.
const WriteNoteFile = "write-error.note"

// NoteBytes is the room reserved for the error's text.
const NoteBytes = 1024

// WriteNote is a run's reserved write-error note.
type WriteNote struct {
	f        *os.File
	recorded bool
}

// ReserveWriteNote creates dir's write-error note, NoteBytes of spaces,
// synced to disk.
func ReserveWriteNote(dir string) (*WriteNote, error) {
	f, err := os.OpenFile(filepath.Join(dir, WriteNoteFile), os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, err
	}
	if _, err := f.Write(bytes.Repeat([]byte{' '}, NoteBytes)); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return &WriteNote{f: f}, nil
}

// OpenWriteNote opens dir's note as the run left it (reserved, maybe
// recorded), without touching its room: the caller that writes the
// summary after the run records its own error there, or discards it.
// Recording into it records over what is there.
func OpenWriteNote(dir string) (*WriteNote, error) {
	f, err := os.OpenFile(filepath.Join(dir, WriteNoteFile), os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	return &WriteNote{f: f}, nil
}

// Record writes err's text over the reserved room (cut to fit) and
// syncs it. Only the first error is kept: it is the cause. Nil-safe.
func (n *WriteNote) Record(err error) {
	if n == nil || n.f == nil || n.recorded || err == nil {
		return
	}
	msg := []byte(err.Error())
	if len(msg) > NoteBytes {
		msg = msg[:NoteBytes]
	}
	msg = bytes.ReplaceAll(msg, []byte{'\n'}, []byte{' '})
	if _, werr := n.f.WriteAt(msg, 0); werr == nil {
		_ = n.f.Sync()
		n.recorded = true
	}
}

// Close closes the note, keeping the file (blank or recorded).
// Nil-safe.
func (n *WriteNote) Close() {
	if n == nil || n.f == nil {
		return
	}
	_ = n.f.Close()
	n.f = nil
}

// Discard closes and removes the note: the run's results were written.
// Nil-safe.
func (n *WriteNote) Discard() {
	if n == nil || n.f == nil {
		return
	}
	name := n.f.Name()
	n.Close()
	_ = os.Remove(name)
}

// ReadWriteNote returns the error recorded in dir's write-error note,
// "" when there is none or it is blank.
func ReadWriteNote(dir string) string {
	data, err := os.ReadFile(filepath.Join(dir, WriteNoteFile))
	if err != nil {
		return ""
	}
	return string(bytes.TrimSpace(data))
}
