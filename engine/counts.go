package engine

import (
	"time"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// countsLog writes counts.csv (rundir.CountsFile) as the run goes: each
// interval's completed ops and errors per op, the series the error
// ratio's change points come from. Like latency.hlog it is a
// rundir.PartialFile: one Write per interval, cut back to its last
// whole line and ended on a failed write.
type countsLog struct {
	f   *rundir.PartialFile
	buf []byte
}

func newCountsLog(dir string) (*countsLog, error) {
	f, err := rundir.CreatePartial(dir, rundir.CountsFile, "line")
	if err != nil {
		return nil, err
	}
	c := &countsLog{f: f}
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

// flush writes the buffer in one Write (a failed write ends the log:
// rundir.PartialFile).
func (c *countsLog) flush() {
	_ = c.f.Write(c.buf)
	c.buf = c.buf[:0]
}

// finish closes the log and names it counts.csv; a log that stopped on a
// write error keeps its .partial name and the error is returned.
func (c *countsLog) finish() error { return c.f.Finish() }

// discard removes the log of a run that never started.
func (c *countsLog) discard() { c.f.Discard() }
