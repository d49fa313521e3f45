package daemon

import (
	"github.com/soakd/soakd/verdict"
)

// The regression verdict is the verdict package's; the daemon stores it
// in the index and serves it from the API under these names.
type (
	Verdict        = verdict.Regression
	OpVerdict      = verdict.OpRegression
	QuantCheck     = verdict.QuantCheck
	RegressOptions = verdict.RegressOptions
)
