package runpath

import (
	"errors"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/report"
	"github.com/soakd/soakd/rundir"
)

// finish is the work after the load, on what engine.Run returned (sum,
// err) and left in dir: the p99 over time and the change points from
// the finished logs, on the exporter too, summary.json and summary.txt
// (report.FinishRun), and the run's write-error note
// settled: removed once everything is written, else holding the first
// error. The error is err, or a *rundir.WriteError naming every file
// that could not be written (the summary is complete all the same).
func finish(dir string, sum *rundir.Summary, err error, exp *metrics.Exporter) error {
	if sum == nil {
		return err // nothing ran: no summary to write
	}
	serr := report.FinishRun(dir, sum, 0, exp)
	var logs *rundir.WriteError
	if errors.As(err, &logs) {
		// The engine's logs failed first: the note holds their error.
		if serr != nil {
			return &rundir.WriteError{Dir: dir, Err: errors.Join(logs.Err, serr)}
		}
		return err
	}
	note, _ := rundir.OpenWriteNote(dir)
	if serr != nil {
		note.Record(serr)
		note.Close()
		return &rundir.WriteError{Dir: dir, Err: serr}
	}
	note.Discard()
	return err
}
