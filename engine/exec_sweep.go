package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/verdict"
)

// sweepExec measures the phase's template once per sweep point, each
// point a stage named by its label (a capacity point: a search whose
// probes are stages <label>-probe-N), and sums the points up in
// PhaseResult.Sweep: the cross-point table and chart. A sweep of
// capacity points is judged, like a capacity phase, on the rate held.
type sweepExec struct{}

func (sweepExec) run(ctx context.Context, env *phaseEnv, pr *rundir.PhaseResult) (*metrics.Set, error) {
	ph, base := env.ph, env.base
	if _, err := env.phaseMix(); err != nil {
		return nil, err
	}
	sw := ph.Sweep
	if sw == nil || len(sw.Points) == 0 {
		return nil, fmt.Errorf("phase %s: a sweep phase needs sweep points (scenarios.Validate checks this)", ph.Name)
	}
	mixes := make([]*scenarios.Mix, len(sw.Points))
	pcts := make([]map[string]float64, len(sw.Points))
	var ops []scenarios.Op
	for j := range sw.Points {
		m, ok := ph.PointMix(j)
		if !ok {
			return nil, fmt.Errorf("phase %s: point %s: its percentages make no mix of 100 (scenarios.Validate checks this)", ph.Name, ph.PointLabel(j))
		}
		mx, err := scenarios.NewMix(m, env.ops)
		if err != nil {
			return nil, fmt.Errorf("phase %s: point %s: %w", ph.Name, ph.PointLabel(j), err)
		}
		mixes[j], pcts[j] = mx, m
		for _, op := range mx.Ops() {
			if !slices.Contains(ops, op) {
				ops = append(ops, op)
			}
		}
	}
	acc := newPhaseAcc(ops)
	out := &rundir.SweepResult{Over: sw.Over, Measure: sw.Measure}
	axis, xs, hasAxis := ph.SweepAxis()
	if hasAxis {
		out.Axis = axis
	}
	// A round of a repeated sweep runs its points in the round's order.
	var order []int
	if env.order != nil && env.round > 0 {
		order = env.order.Order(len(sw.Points), env.pi, env.round-1, 1)
	}
	if len(order) != len(sw.Points) {
		order = make([]int, len(sw.Points))
		for j := range order {
			order[j] = j
		}
	}
	// Points run in order (a round of a repeated sweep shuffles them)
	// and are listed as the scenario lists them.
	byIndex := make([]*rundir.SweepPoint, len(sw.Points))
	// Resumed: the points finished before the kill are kept, the one it
	// was killed in goes on (a capacity point: its search).
	st, between, err := env.stagedResume(acc, pr)
	if err != nil {
		return nil, err
	}
	first := 0
	var done []sweepPointDone
	var prior []rundir.CapacityPoint
	var settled time.Duration
	if st != nil {
		first, done, prior, settled = st.Done, st.Points, st.Curve, st.Settled
		for _, d := range done {
			if d.Index < 0 || d.Index >= len(byIndex) {
				return nil, &ResumeError{fmt.Sprintf("phase %s: the checkpoint's point #%d is not in the sweep", ph.Name, d.Index+1)}
			}
			byIndex[d.Index] = &d.Point
		}
	}
	keep := func(k int, curve []rundir.CapacityPoint, settled time.Duration, write bool) {
		ks := &stagedState{Done: k, Stages: pr.Stages, Acc: encodeAcc(&acc.sum), Points: done, Curve: curve, Settled: settled}
		if write {
			env.ck.stageDone(ks)
		} else {
			env.ck.setPhaseState(ks)
		}
	}
	for k := first; k < len(order); k++ {
		j := order[k]
		pt := sw.Points[j]
		if ctx.Err() != nil {
			break
		}
		label := ph.PointLabel(j)
		s := base
		s.Stage, s.StageIndex = label, len(pr.Stages)+1
		s.Mix, s.Source = mixes[j], env.mix
		s.Limit = uint64(ph.Requests)
		s.Seed = base.Seed + uint64(j+1)*0x9e3779b97f4a7c15
		fieldBytes := env.sc.Record.FieldBytes
		switch sw.Over {
		case scenarios.SweepRate:
			s.Rate = pt.Rate
		case scenarios.SweepConcurrency:
			s.Concurrency = pt.Concurrency
		case scenarios.SweepValueSize:
			fieldBytes = pt.FieldBytes
			s.Values = scenarios.NewValues(rand.New(rand.NewPCG(uint64(env.sc.Seed), 0x5eed)), fieldBytes)
		}
		if sw.Measure != scenarios.MeasureRate {
			s.Rate = 0
		}
		rp := rundir.SweepPoint{Label: label, Mix: pcts[j], TargetRate: s.Rate, Concurrency: s.Concurrency, FieldBytes: fieldBytes}
		if hasAxis {
			rp.X = xs[j]
		}
		if sw.Measure == scenarios.MeasureCapacity {
			rs := &searchResume{prior: prior, settled: settled, between: between, keep: func(curve []rundir.CapacityPoint, settled time.Duration, probed bool) {
				keep(k, curve, settled, probed)
			}}
			first := len(pr.Stages) - len(prior) // this point's first probe's stage (replayed ones included)
			prior, between = nil, false
			cr := env.capacitySearch(ctx, s, label+"-", pr, acc, rs)
			rs.end(env)
			held := cr.HighestRateHeld
			rp.HighestRateHeld = &held
			rp.Confirmation = cr.Confirmation
			// The point shows the held rate's probe (the last one that
			// ran at it and passed).
			for k := len(cr.Curve) - 1; k >= 0; k-- {
				if c := cr.Curve[k]; c.Passed && c.Rate == held {
					rundir.FillSweepPoint(&rp, &pr.Stages[first+k])
					break
				}
			}
			rp.AchievedOpsPerSec = held
			byIndex[j] = &rp
			if ctx.Err() == nil {
				done = append(done, sweepPointDone{j, rp})
				keep(k+1, nil, 0, true)
			}
			continue
		}
		segs := []segment{s}
		shardSegments(env.shard, segs)
		s = segs[0]
		if between {
			env.seamBetween(s.Stage)
			between = false
		}
		st, _, span := env.runStage(ctx, &s, acc, pr)
		span.SetAttributes(resultAttrs(&st.Result)...)
		span.End()
		rundir.FillSweepPoint(&rp, &st)
		byIndex[j] = &rp
		if ctx.Err() == nil {
			done = append(done, sweepPointDone{j, rp})
			keep(k+1, nil, 0, true)
		}
	}
	if between {
		env.seamBetween("") // resumed after its last point
	}
	for _, p := range byIndex {
		if p != nil {
			out.Points = append(out.Points, *p)
		}
	}
	pr.Sweep = out
	acc.result(&pr.Result, true, env.classes, env.ops)
	acc.sum.lost.apply(&pr.Result, env.ops)
	for _, st := range pr.Stages {
		pr.TargetRate = max(pr.TargetRate, st.TargetRate)
	}
	return acc.sum.Total, nil
}

func (sweepExec) judge(pr *rundir.PhaseResult, l *verdict.Limits, hist *metrics.Set, ops *scenarios.OpTable) *rundir.Verdict {
	if pr.Sweep == nil || pr.Sweep.Measure != scenarios.MeasureCapacity {
		return sloJudged{}.judge(pr, l, hist, ops)
	}
	// Judged at every point (the lowest rate held), not on the probes
	// that failed.
	held := -1.0
	for _, pt := range pr.Sweep.Points {
		if pt.HighestRateHeld != nil && (held < 0 || *pt.HighestRateHeld < held) {
			held = *pt.HighestRateHeld
		}
	}
	return verdict.Capacity(pr.Name, max(held, 0))
}
