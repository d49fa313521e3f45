package engine

import (
	"bytes"
	"errors"
	"io"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
)

// runLogs are the logs a run writes as it goes: latency.hlog and
// counts.csv, a line of each per interval (the collector's, under mu),
// and the reserved write-error note.
type runLogs struct {
	mu   sync.Mutex
	hlog *hdr.HistogramLogWriter // writes into buf
	// enc encodes the interval lines.
	enc metrics.HlogEncoder
	// Each interval's lines go to buf and then to file in one Write (a
	// failed write ends the log: rundir.PartialFile).
	file *rundir.PartialFile
	buf  bytes.Buffer
	// note is the run's reserved write-error note (rundir.WriteNote):
	// the first write error goes into it, so a run dir left without
	// summary.json says why (nil when it could not be reserved).
	note   *rundir.WriteNote
	counts *countsLog
}

// create makes the logs' partial files in dir (wrap, when set, wraps
// the latency log's file: tests).
func (l *runLogs) create(dir string, wrap func(io.Writer) io.Writer) (err error) {
	if l.file, err = rundir.CreatePartial(dir, rundir.LatencyLog, "record"); err != nil {
		return err
	}
	if l.counts, err = newCountsLog(dir); err != nil {
		l.file.Discard()
		return err
	}
	if wrap != nil {
		l.file.Wrap(wrap)
	}
	return nil
}

// start writes latency.hlog's header for a run started at start.
func (l *runLogs) start(start time.Time) {
	l.hlog = newLatencyLog(&l.buf, start)
	l.flush()
}

// discard removes the logs and the note (a run that did not start).
func (l *runLogs) discard() {
	l.file.Discard()
	l.counts.discard()
	l.note.Discard()
}

// abandon closes the logs as a killed run's: they stay .partial.
func (l *runLogs) abandon() {
	l.mu.Lock()
	l.file.Close()
	l.counts.f.Close()
	l.mu.Unlock()
	l.note.Close()
}

// finish names the logs (a log that stopped on a write error keeps its
// .partial name: it holds the intervals up to the error) and settles
// the note with the first error of them and of earlier, an error of
// another file of the run; it returns them all.
func (l *runLogs) finish(earlier error) error {
	l.mu.Lock()
	lerr := l.file.Finish()
	cerr := l.counts.finish()
	l.mu.Unlock()
	err := errors.Join(earlier, lerr, cerr)
	l.note.Record(err)
	l.note.Close()
	return err
}

// flush writes what buf holds in one Write, so the log ends on a
// record boundary (rundir.PartialFile). mu is held (or the run has not
// started).
func (l *runLogs) flush() {
	l.note.Record(l.file.Write(l.buf.Bytes()))
	l.buf.Reset()
}

// interval writes one interval's lines, window w from from to to of
// phase, pausing between units of work (pauser).
func (l *runLogs) interval(phase string, from, to time.Time, w *metrics.Set, classes []string, ops *scenarios.OpTable, pause func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.file.Err() == nil { // after a write error the log has ended
		base := l.hlog.BaseTime()
		start := float64(from.UnixMilli()-base) / 1000
		end := float64(to.UnixMilli()-base) / 1000
		l.enc.Pause = pause
		l.buf.Write(w.AppendHlog(l.buf.AvailableBuffer(), phase, ops, start, end-start, &l.enc))
		l.enc.Pause = nil
		l.flush()
	}
	l.counts.add(phase, from, to, w, classes, ops)
}

// newLatencyLog starts latency.hlog's header on w. The log's BaseTime
// line holds whole seconds only, so interval timestamps are written
// relative to the start's whole second: a reader adding them to BaseTime
// (Java's HistogramLogProcessor, hdrhistogram-go) gets the true times.
func newLatencyLog(w io.Writer, start time.Time) *hdr.HistogramLogWriter {
	lw := hdr.NewHistogramLogWriter(w)
	_ = lw.OutputLogFormatVersion()
	_ = lw.OutputComment("soakd latency log: values in ns; tags are <phase>.<op>.latency (from intended start) and <phase>.<op>.service (from send)")
	_ = lw.OutputStartTime(start.UnixMilli())
	base := start.UnixMilli() / 1000 * 1000
	_ = lw.OutputBaseTime(base)
	lw.SetBaseTime(base)
	_ = lw.OutputLegend()
	return lw
}

// reopen opens a killed run's logs in dir to go on writing them, cut
// back to the checkpoint's sizes at (wrap: as create's).
func (l *runLogs) reopen(dir string, at rundir.CheckpointLogs, wrap func(io.Writer) io.Writer) (err error) {
	if l.file, err = rundir.ReopenPartial(dir, rundir.LatencyLog, "record", at.Latency); err != nil {
		return err
	}
	f, err := rundir.ReopenPartial(dir, rundir.CountsFile, "line", at.Counts)
	if err != nil {
		l.file.Close()
		return err
	}
	l.counts = &countsLog{f: f}
	if wrap != nil {
		l.file.Wrap(wrap)
	}
	return nil
}

// resumeAt goes on with latency.hlog of a run started at start: its
// header is written already; the intervals are relative to the same
// base time.
func (l *runLogs) resumeAt(start time.Time) {
	l.hlog = hdr.NewHistogramLogWriter(&l.buf)
	l.hlog.SetBaseTime(start.UnixMilli() / 1000 * 1000)
}

// sizes are the logs' sizes now, for a checkpoint taken after the
// interval just written.
func (l *runLogs) sizes() rundir.CheckpointLogs {
	l.mu.Lock()
	defer l.mu.Unlock()
	return rundir.CheckpointLogs{Latency: l.file.Size(), Counts: l.counts.f.Size()}
}

// sync flushes the logs to disk (not under mu: it waits on the disk,
// the collector does not wait for it).
func (l *runLogs) sync() error {
	if err := l.file.Sync(); err != nil {
		return err
	}
	return l.counts.f.Sync()
}

// noteErr records err in the run's write-error note (the first error
// is kept).
func (l *runLogs) noteErr(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.note.Record(err)
}
