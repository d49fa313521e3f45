package engine

import (
	"time"

	"github.com/soakd/soakd/rundir"
)

// addRateChanges puts the live rate changes the run's Control applied
// into their phases of sum (summary.json's rate_changes): when, how far
// into the phase, in which stage, the new rate and the one it replaced. A change is never
// silent: the phase's target rate is then the time-weighted one, and
// this list says why.
func addRateChanges(sum *rundir.Summary, changes []appliedChange) {
	for _, c := range changes {
		for i := range sum.Phases {
			p := &sum.Phases[i]
			if p.Name != c.phase {
				continue
			}
			p.RateChanges = append(p.RateChanges, rundir.RateChange{At: c.at.UTC(), Stage: c.stage, Rate: c.rate, FromRate: c.from,
				OffsetSeconds: max(c.at.Sub(p.Start), time.Duration(0)).Seconds()})
			break
		}
	}
}
