package daemon

import (
	"github.com/soakd/soakd/verdict"
)

// The regression verdict is the verdict package's; the daemon stores it
// in the index and serves it from the API under these names. (Verdict,
// in verdict and rundir, is a run's SLO verdict: a different thing.)
type (
	Regression     = verdict.Regression
	OpRegression   = verdict.OpRegression
	QuantCheck     = verdict.QuantCheck
	RegressOptions = verdict.RegressOptions
)
