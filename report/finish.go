package report

import (
	"time"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/verdict"
)

// FinishRun completes a finished run's summary from the logs it left in
// dir and writes summary.json and summary.txt: each steady phase's p99
// over time (FillOverTime) and every phase's change points
// (FindChangePoints; iv is the log's interval, 0 = 1 s), which exp
// (nil: none) is told of too. A log that cannot be read back (a run
// whose latency.hlog stayed .partial) only leaves those figures out;
// the error is the summary's write's.
func FinishRun(dir string, s *rundir.Summary, iv time.Duration, exp *metrics.Exporter) error {
	_ = FillOverTime(dir, s)
	err := FindChangePoints(dir, s, iv)
	verdict.ExplainChanges(dir, s) // each change point's cause (server log, self record)
	if err == nil && exp != nil {
		for _, p := range s.Phases {
			for _, c := range p.ChangePoints {
				exp.AddChangePoint(p.Name, c.Op, c.Metric, c.Up())
				exp.AddChangePointTime(p.Name, c.Op, c.Metric, c.Up(), c.At)
			}
		}
	}
	return WriteRunDir(dir, s)
}
