package verdict

import "github.com/soakd/soakd/rundir"

// Floors of the change points reported inside a run: significant changes
// smaller than these are not worth a reader's attention. A shared host
// moves a latency median by 10-20% on its own (another build starting),
// so latency needs a 20% move; an open-loop rate is steady to a few ops
// unless something happened, and a 5% move of it is what the
// SoakdAchievedRateBelowTarget alert calls a miss; an error ratio often
// sits at 0, where a relative move means nothing, so it needs 1
// percentage point.
const (
	MinLatencyChange    = 0.20 // of the level before, p50/p99/p99.9
	MinRateChange       = 0.05 // of the level before
	MinErrorRatioChange = 0.01 // absolute
)

// RunChangeOptions are the detector's options for one metric of a run's
// per-interval series (rundir.MetricP50 ... rundir.MetricErrorRatio):
// the defaults with that metric's floor.
func RunChangeOptions(metric string) ChangeOptions {
	switch metric {
	case rundir.MetricErrorRatio:
		return ChangeOptions{MinAbsChange: MinErrorRatioChange}
	case rundir.MetricRate:
		return ChangeOptions{MinRelChange: MinRateChange}
	}
	return ChangeOptions{MinRelChange: MinLatencyChange}
}
