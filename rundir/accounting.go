package rundir

import "time"

// The accounting identity of a phase, a stage and an op: every op the
// schedule called for completed, was dropped (later than max_lag) or was
// lost (soakd was down: a resumed run's seams). Nothing else.

// Unaccounted is how far r misses Scheduled = Completed + Dropped +
// Lost: 0 when every op the schedule called for is accounted for, above
// 0 when some are missing, below 0 when some were counted twice.
func (r *Result) Unaccounted() int64 {
	return int64(r.Scheduled) - r.Completed - r.Dropped - r.Lost
}

// ScheduledOps is the op's share of the schedule: Scheduled, or in a
// summary written before it was recorded Count + Dropped + Lost.
func (o OpResult) ScheduledOps() uint64 {
	if o.Scheduled > 0 {
		return o.Scheduled
	}
	return uint64(o.Count + o.Dropped + o.Lost)
}

// Unaccounted is how far the op misses Scheduled = Count + Dropped +
// Lost (0 in a summary that did not record the op's Scheduled).
func (o OpResult) Unaccounted() int64 {
	if o.Scheduled == 0 {
		return 0
	}
	return int64(o.Scheduled) - o.Count - o.Dropped - o.Lost
}

// ShowsLost says whether a run has lost ops to show: it was resumed
// (a seam), or a phase, stage or op lost some. A run never resumed has
// none, and its text and report show no lost figures (summary.json keeps
// them all the same).
func (s *Summary) ShowsLost() bool {
	if len(s.Seams) > 0 {
		return true
	}
	for i := range s.Phases {
		p := &s.Phases[i]
		if resultLost(&p.Result) {
			return true
		}
		for j := range p.Stages {
			if resultLost(&p.Stages[j].Result) {
				return true
			}
		}
	}
	return false
}

func resultLost(r *Result) bool {
	if r.Lost != 0 {
		return true
	}
	for _, o := range r.Ops {
		if o.Lost != 0 {
			return true
		}
	}
	return false
}

// Downtime is how long soakd was down at the seam: from its last
// checkpoint to when ops were sent again.
func (sm Seam) Downtime() time.Duration { return sm.Resumed.Sub(sm.Down) }

// PhaseSeams are the seams that fell in phase, in order.
func (s *Summary) PhaseSeams(phase string) []Seam {
	var out []Seam
	for _, sm := range s.Seams {
		if sm.Phase == phase {
			out = append(out, sm)
		}
	}
	return out
}
