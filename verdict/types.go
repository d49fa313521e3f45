package verdict

import "github.com/soakd/soakd/rundir"

// The checks and verdicts are the run directory's (summary.json holds
// them); the names here keep judgement code short.
type (
	Verdict = rundir.Verdict
	Check   = rundir.Check
	Cmp     = rundir.Cmp
	Metric  = rundir.Metric
)

// Comparison kinds and metrics (rundir's).
const (
	AtMost  = rundir.AtMost
	AtLeast = rundir.AtLeast
	Above   = rundir.Above

	Latency         = rundir.Latency
	AchievedRatio   = rundir.AchievedRatio
	ErrorRatio      = rundir.ErrorRatio
	DroppedRatio    = rundir.DroppedRatio
	HighestRateHeld = rundir.HighestRateHeld
	Succeeded       = rundir.Succeeded
	WindowLatency   = rundir.WindowLatency
)

// FormatSeconds renders seconds as 0, 850us, 1.20ms or 2.00s.
func FormatSeconds(sec float64) string { return rundir.FormatSeconds(sec) }
