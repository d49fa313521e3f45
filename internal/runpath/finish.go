package runpath

import (
	"errors"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/report"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/verdict"
)

// finish is the work after the load, on what engine.Run returned (sum,
// err) and left in dir: the p99 over time and the change points from
// the finished logs, on the exporter too, summary.json and summary.txt
// (report.FinishRun), and the run's write-error note
// settled: removed once everything is written, else holding the first
// error. The error is err, or a *rundir.WriteError naming every file
// that could not be written (the summary is complete all the same).
func finish(dir string, sc *scenarios.Scenario, sum *rundir.Summary, err error, exp *metrics.Exporter) error {
	if sum == nil {
		return err // nothing ran: no summary to write
	}
	judgeWindows(dir, sc, sum)
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

// judgeWindows adds the SLO's window checks (slo.window) to sum from
// dir's latency log. A log that cannot be read back (a killed run's
// .partial) leaves them out, as it leaves out the p99 over time.
func judgeWindows(dir string, sc *scenarios.Scenario, sum *rundir.Summary) {
	if sc == nil || sc.SLO.Window <= 0 {
		return
	}
	ops, err := sc.OpTable()
	if err != nil {
		return
	}
	limits, err := verdict.New(sc.SLO, ops)
	if err != nil {
		return
	}
	_ = report.FillWindows(dir, sum, limits, sc.SLO.Window.D())
}
