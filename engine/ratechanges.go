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

// rateChanges are the run's live rate changes: those before its last
// resume (kept in its checkpoint), then its Control's.
func (r *runner) rateChanges() []appliedChange {
	return append(append([]appliedChange(nil), r.rates...), r.opts.Control.appliedChanges()...)
}

// checkpointRates are changes as a checkpoint keeps them.
func checkpointRates(changes []appliedChange) []rundir.CheckpointRateChange {
	var out []rundir.CheckpointRateChange
	for _, c := range changes {
		out = append(out, rundir.CheckpointRateChange{Phase: c.phase, Stage: c.stage, At: c.at.UTC(), Rate: c.rate, FromRate: c.from})
	}
	return out
}

// resumedRates are a checkpoint's changes back.
func resumedRates(cs []rundir.CheckpointRateChange) []appliedChange {
	var out []appliedChange
	for _, c := range cs {
		out = append(out, appliedChange{phase: c.Phase, stage: c.Stage, at: c.At, rate: c.Rate, from: c.FromRate})
	}
	return out
}
