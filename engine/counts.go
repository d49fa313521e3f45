package engine

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// countsLog writes counts.csv (rundir.CountsFile) as the run goes: each
// interval's completed ops and errors per op, the series the error
// ratio's change points come from. Like latency.hlog it is written under
// a .partial name, one Write per interval, cut back to its last whole
// line and ended on a failed write.
type countsLog struct {
	f   *os.File
	out io.Writer
	off int64
	buf []byte
	err error
}

func newCountsLog(dir string) (*countsLog, error) {
	f, err := os.Create(filepath.Join(dir, rundir.PartialCounts))
	if err != nil {
		return nil, err
	}
	c := &countsLog{f: f, out: f}
	c.buf = append(c.buf, rundir.CountsHeader...)
	c.flush()
	return c, nil
}

// add counts an interval's window: each op that completed ops in it,
// with its errors (outcome classes that are errors; misses are not).
func (c *countsLog) add(phase string, from, to time.Time, w *metrics.Set, classes []string, ops *scenarios.OpTable) {
	for op, os := range w.Ops {
		if os == nil || os.Count == 0 {
			continue
		}
		var errs int64
		for ci, n := range os.Classes {
			if ci > 0 && ci < len(classes) && targets.IsError(classes[ci]) {
				errs += n
			}
		}
		c.buf = rundir.AppendCount(c.buf, rundir.IntervalCount{Phase: phase, Op: ops.Name(scenarios.Op(op)),
			StartMs: from.UnixMilli(), EndMs: to.UnixMilli(), Ops: os.Count, Errors: errs})
	}
	c.flush()
}

// flush writes the buffer in one Write; a failed or short write cuts the
// file back to its last whole line and ends the log.
func (c *countsLog) flush() {
	defer func() { c.buf = c.buf[:0] }()
	if c.err != nil || len(c.buf) == 0 {
		return
	}
	n, err := c.out.Write(c.buf)
	if err == nil && n < len(c.buf) {
		err = io.ErrShortWrite
	}
	if err == nil {
		c.off += int64(n)
		return
	}
	c.err = fmt.Errorf("%s: writing stopped after %d bytes, on the last whole line: %w", rundir.PartialCounts, c.off, err)
	if n > 0 {
		if terr := c.f.Truncate(c.off); terr != nil {
			c.err = fmt.Errorf("%w (and cutting back the torn line failed: %v)", c.err, terr)
		}
	}
}

// finish closes the log and names it counts.csv; a log that stopped on a
// write error keeps its .partial name and the error is returned.
func (c *countsLog) finish(dir string) error {
	if c.err != nil {
		_ = c.f.Sync()
		_ = c.f.Close()
		return c.err
	}
	if err := c.f.Sync(); err != nil {
		c.f.Close()
		return err
	}
	if err := c.f.Close(); err != nil {
		return err
	}
	return os.Rename(c.f.Name(), filepath.Join(dir, rundir.CountsFile))
}

// discard removes the log of a run that never started.
func (c *countsLog) discard() {
	c.f.Close()
	os.Remove(c.f.Name())
}
