package rundir

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// PartialSuffix marks a log the run is still writing (or was killed
// writing): latency.hlog.partial, counts.csv.partial.
const PartialSuffix = ".partial"

// PartialFile is a log written as the run goes (latency.hlog,
// counts.csv). It is written under its .partial name, one Write per
// record, so the file always ends on a whole record: a failed or short
// write (a full disk) is cut back to the last whole record and ends the
// log, which keeps its .partial name. Finish names it for good. A
// process killed mid-run leaves the .partial file, readable up to its
// last whole record.
//
// A PartialFile is not safe for concurrent use: its writer serialises
// the calls.
type PartialFile struct {
	f     *os.File
	out   io.Writer // f, or what Wrap made of it
	final string    // the name Finish gives it
	unit  string    // what a record is, for the error ("record", "line")
	off   int64     // bytes of whole records written
	err   error     // the error that ended the log
}

// CreatePartial creates dir/<name>.partial for the log that Finish
// names dir/<name>. unit names a record in the error that ends the log
// ("record", "line").
func CreatePartial(dir, name, unit string) (*PartialFile, error) {
	final := filepath.Join(dir, name)
	f, err := os.Create(final + PartialSuffix)
	if err != nil {
		return nil, err
	}
	return &PartialFile{f: f, out: f, final: final, unit: unit}, nil
}

// Wrap puts wrap(file) between the log and its file (tests: a writer
// that fails part-way, like a disk filling up). Call it before the
// first Write.
func (p *PartialFile) Wrap(wrap func(io.Writer) io.Writer) { p.out = wrap(p.f) }

// Write writes rec, one or more whole records, in one Write. The write
// that fails (or is short) cuts the file back to its last whole record,
// ends the log and returns the error; once ended, Write writes nothing
// and returns nil (Err has the error).
func (p *PartialFile) Write(rec []byte) error {
	if p.err != nil || len(rec) == 0 {
		return nil
	}
	n, err := p.out.Write(rec)
	if err == nil && n < len(rec) {
		err = io.ErrShortWrite
	}
	if err == nil {
		p.off += int64(n)
		return nil
	}
	p.err = fmt.Errorf("%s: writing stopped after %d bytes, on the last whole %s: %w", filepath.Base(p.f.Name()), p.off, p.unit, err)
	if n > 0 {
		if terr := p.f.Truncate(p.off); terr != nil {
			p.err = fmt.Errorf("%w (and cutting back the torn %s failed: %v)", p.err, p.unit, terr)
		}
	}
	return p.err
}

// Err is the error that ended the log, nil while it is whole.
func (p *PartialFile) Err() error { return p.err }

// Finish syncs and closes the log and gives it its final name. A log
// that a write error ended keeps its .partial name (it holds the
// records up to the error) and that error is returned.
func (p *PartialFile) Finish() error {
	if p.err != nil {
		_ = p.f.Sync()
		_ = p.f.Close()
		return p.err
	}
	if err := p.f.Sync(); err != nil {
		_ = p.f.Close()
		return err
	}
	if err := p.f.Close(); err != nil {
		return err
	}
	return os.Rename(p.f.Name(), p.final)
}

// Close closes the log under its .partial name, as a killed run leaves
// it (a run that failed part-way in a process that runs on).
func (p *PartialFile) Close() { _ = p.f.Close() }

// Discard closes and removes the log of a run that never started.
func (p *PartialFile) Discard() {
	_ = p.f.Close()
	_ = os.Remove(p.f.Name())
}
