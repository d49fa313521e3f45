package engine

import (
	"time"

	"github.com/soakd/soakd/rundir"
)

// A capacity search resumed after a kill (a capacity phase, or a
// capacity point of a sweep): the probes finished before it replay the
// search with their verdicts as they were (the search is a pure
// function of them), without running again; the probe it was killed
// in goes on on its absolute schedule, its settling not run again; a
// kill between two probes (or in a settling) starts the next probe
// afresh, settling first when the one before failed.

// searchResume keeps a capacity search in the run's checkpoints and
// resumes it (nil: neither).
type searchResume struct {
	// prior are the probes finished before the kill, still to replay;
	// settled is how long the running probe's settling took.
	prior   []rundir.CapacityPoint
	settled time.Duration
	// between: the checkpoint was taken between two probes (a seam
	// with nothing lost, noted at the next).
	between bool
	// keep keeps the search so far in the checkpoints: after a
	// settling (probed false), or a probe's end (probed: at once).
	keep func(curve []rundir.CapacityPoint, settled time.Duration, probed bool)
}

// replay is the next probe finished before the kill (false: none is
// left). The probes not called, which a seam cut short, go into the
// curve as they were, on the way to it.
func (rs *searchResume) replay(cr *rundir.CapacityResult) (rundir.CapacityPoint, bool) {
	for rs != nil && len(rs.prior) > 0 {
		pt := rs.prior[0]
		rs.prior = rs.prior[1:]
		if !pt.Uncalled {
			return pt, true
		}
		cr.Curve = append(cr.Curve, pt)
	}
	return rundir.CapacityPoint{}, false
}

func (rs *searchResume) kept(curve []rundir.CapacityPoint, settled time.Duration, probed bool) {
	if rs != nil && rs.keep != nil {
		rs.keep(curve, settled, probed)
	}
}

// seamBefore notes the seam of a resume between two probes, before the
// next (stage), once.
func (rs *searchResume) seamBefore(e *phaseEnv, stage string) {
	if rs != nil && rs.between {
		rs.between = false
		e.seamBetween(stage)
	}
}

// end notes the seam of a resume after the search's last probe.
func (rs *searchResume) end(e *phaseEnv) { rs.seamBefore(e, "") }

// resuming says whether stage is the one the run was killed in (its
// segment goes on from the checkpoint).
func (e *phaseEnv) resuming(stage string) bool {
	p := e.resume
	return p != nil && p.seg != nil && p.seg.st.Stage == stage
}

// upPart is a probe's result as its verdict judges it: a probe a
// resume cut (ops lost) on the ops it ran while soakd was up, its
// rates over that part of its window and its drops over those ops
// (lost ops are neither latency nor failures). called is false when
// fewer than half of its ops ran: too little evidence to call it.
func upPart(r rundir.Result) (jr rundir.Result, called bool) {
	if r.Lost <= 0 {
		return r, true
	}
	ran := int64(r.Scheduled) - r.Lost
	if ran <= 0 || 2*ran < int64(r.Scheduled) {
		return r, false
	}
	f := float64(r.Scheduled) / float64(ran)
	r.AchievedRate *= f
	r.GoodputRate *= f
	r.Scheduled = uint64(ran)
	r.Lost = 0
	return r, true
}

// calledProbes is curve without the probes not called (upPart), for
// the search's confirmation and the rate held's sums.
func calledProbes(curve []rundir.CapacityPoint) []rundir.CapacityPoint {
	out := make([]rundir.CapacityPoint, 0, len(curve))
	for _, pt := range curve {
		if !pt.Uncalled {
			out = append(out, pt)
		}
	}
	return out
}
