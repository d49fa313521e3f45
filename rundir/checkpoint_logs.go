package rundir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Size is the bytes of whole records written to the log so far.
func (p *PartialFile) Size() int64 { return p.off }

// Sync flushes the log to disk (a checkpoint's offsets must not point
// past what a crash of the host keeps).
func (p *PartialFile) Sync() error { return p.f.Sync() }

// ReopenPartial opens dir/<name>.partial, a killed run's log, to go on
// writing it from its checkpoint (dir/<name> when the run was killed
// after naming it, before its summary: renamed back): it is cut back to
// off bytes (what was written after the checkpoint is dropped). A log
// shorter than off is refused: the checkpoint counts records it no
// longer holds.
func ReopenPartial(dir, name, unit string, off int64) (*PartialFile, error) {
	final := filepath.Join(dir, name)
	if _, err := os.Stat(final + PartialSuffix); errors.Is(err, os.ErrNotExist) {
		// Killed after its logs were named, before its summary: they
		// go back to their running names.
		if err := os.Rename(final, final+PartialSuffix); err != nil {
			return nil, err
		}
	}
	f, err := os.OpenFile(final+PartialSuffix, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if fi.Size() < off {
		f.Close()
		return nil, fmt.Errorf("%s: %d bytes, shorter than its checkpoint's %d", f.Name(), fi.Size(), off)
	}
	if err := f.Truncate(off); err != nil {
		f.Close()
		return nil, err
	}
	if _, err := f.Seek(off, 0); err != nil {
		f.Close()
		return nil, err
	}
	return &PartialFile{f: f, out: f, final: final, unit: unit, off: off}, nil
}
