package engine

import (
	"context"
	"fmt"
	"math"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/verdict"
)

// Settling between capacity probes (the search's defaults are the
// scenario's: scenarios.ApplyDefaults).
const (
	// After a failed probe the store settles: short slices at a low
	// rate until one completes its ops inside its window with schedule
	// lag p99 under settleLag, for at most settleSlices slices, so the next probe
	// does not inherit the failed one's backlog.
	settleSlice  = time.Second
	settleLag    = 10 * time.Millisecond
	settleSlices = 10
)

// capacityExec runs a capacity phase: it steps the rate up by factor
// from start until a probe fails the SLO or max is reached, then bisects
// between the last good and the first bad rate until hi/lo-1 <
// precision. Each probe is a stage. The phase is judged on the rate it
// held.
type capacityExec struct{}

func (capacityExec) run(ctx context.Context, env *phaseEnv, pr *rundir.PhaseResult) (*metrics.Set, error) {
	ph := env.ph
	if ph.Capacity == nil {
		return nil, fmt.Errorf("phase %s: no capacity settings (scenarios.ApplyDefaults gives every capacity phase its defaults)", ph.Name)
	}
	mix, err := env.phaseMix()
	if err != nil {
		return nil, err
	}
	base := env.base
	base.Mix, base.Source = mix, env.mix
	acc := newPhaseAcc(mix.Ops())
	// Resumed: the probes finished before the kill replay the search up
	// to the one it was killed in (searchResume).
	st, between, err := env.stagedResume(acc, pr)
	if err != nil {
		return nil, err
	}
	sr := &searchResume{between: between, keep: func(curve []rundir.CapacityPoint, settled time.Duration, probed bool) {
		keep := &stagedState{Stages: pr.Stages, Acc: encodeAcc(&acc.sum), Curve: curve, Settled: settled}
		if probed {
			env.ck.stageDone(keep)
		} else {
			env.ck.setPhaseState(keep)
		}
	}}
	if st != nil {
		sr.prior, sr.settled = st.Curve, st.Settled
	}
	cr := env.capacitySearch(ctx, base, "", pr, acc, sr)
	sr.end(env)
	pr.Capacity = cr
	acc.result(&pr.Result, false, env.classes, env.ops)
	acc.sum.lost.apply(&pr.Result, env.ops)
	pr.TargetRate = cr.HighestRateHeld
	return acc.sum.Total, nil
}

func (capacityExec) judge(pr *rundir.PhaseResult, l *verdict.Limits, hist *metrics.Set, ops *scenarios.OpTable) *rundir.Verdict {
	if pr.Capacity == nil {
		return sloJudged{}.judge(pr, l, hist, ops)
	}
	return verdict.Capacity(pr.Name, pr.Capacity.HighestRateHeld)
}

// capacitySearch runs one capacity search with the phase's capacity:
// block and base's mix; its probes are stages of pr named
// <prefix>probe-N and added to acc. rs keeps the search in the run's
// checkpoints and resumes it (resume_capacity.go).
func (e *phaseEnv) capacitySearch(ctx context.Context, base segment, prefix string, pr *rundir.PhaseResult, acc *phaseAcc, rs *searchResume) *rundir.CapacityResult {
	c := *e.ph.Capacity
	cr := &rundir.CapacityResult{}
	failedLast, recheck := false, false
	lastHeld := 0.0
	noted := func(pt rundir.CapacityPoint) bool {
		cr.Curve = append(cr.Curve, pt)
		failedLast = !pt.Passed
		if pt.Passed && pt.Rate > lastHeld {
			lastHeld = pt.Rate
		}
		return pt.Passed
	}
	var probe func(rate float64) bool
	probe = func(rate float64) bool {
		if pt, ok := rs.replay(cr); ok {
			return noted(pt)
		}
		i := len(pr.Stages)
		s := base
		s.Stage, s.StageIndex = fmt.Sprintf("%sprobe-%d", prefix, len(cr.Curve)+1), i+1
		var settled time.Duration
		if e.resuming(s.Stage) {
			settled = rs.settled // settled before the kill
		} else {
			rs.seamBefore(e, s.Stage)
			if failedLast {
				settled = e.settle(ctx, base, settleRate(lastHeld, c.Start), min(settleSlice, c.StepDuration.D()))
				rs.kept(cr.Curve, settled, false)
			}
		}
		if ctx.Err() != nil {
			return false
		}
		s.Rate = math.Round(rate)
		s.Duration = c.StepDuration.D()
		s.Seed = base.Seed + uint64(i+1)*0x632be59bd9b4e019
		st, res, span := e.runStage(ctx, &s, acc, pr)
		// A probe a resume cut is judged on the ops it ran (its lost
		// ones are neither latency nor failures), unless too few ran.
		jr, called := upPart(st.Result)
		ok, failedChecks := false, []rundir.Check(nil)
		if called {
			ok, failedChecks = e.limits.Probe(judged(e.ph.Name, &jr, false, res.Total, e.ops))
		}
		var failed []string
		for _, c := range failedChecks {
			failed = append(failed, c.String())
		}
		if !called {
			failed = []string{fmt.Sprintf("seam: %d of its %d ops were lost to a kill, too few ran to call it: probed again", st.Lost, st.Scheduled)}
		}
		span.SetAttributes(resultAttrs(&st.Result)...)
		span.SetAttributes(attribute.Bool("soakd.probe.passed", ok))
		span.End()
		pt := rundir.CapacityPoint{Rate: s.Rate, Achieved: st.AchievedRate, Goodput: st.GoodputRate, P99: map[string]float64{}, Passed: ok, Failed: failed,
			SettledSeconds: settled.Seconds(), DrainSeconds: res.Drain.Seconds(), Recheck: recheck, Lost: st.Lost, Uncalled: !called}
		if st.Self != nil {
			pt.Bound = st.Self.Bound
		}
		for op, o := range st.Ops {
			pt.P99[op] = o.Latency.P99
		}
		if !called {
			cr.Curve = append(cr.Curve, pt)
			rs.kept(cr.Curve, 0, ctx.Err() == nil)
			return ctx.Err() == nil && probe(rate)
		}
		noted(pt)
		rs.kept(cr.Curve, 0, ctx.Err() == nil)
		return ok
	}
	cr.HighestRateHeld = verdict.SearchCapacity(c, func(rate float64) bool {
		return ctx.Err() == nil && probe(rate)
	})
	// Confirm the answer: the rate held and the first that failed, probed
	// again. A run stopped meanwhile keeps the search's answer.
	if ctx.Err() == nil && cr.HighestRateHeld > 0 {
		recheck = true
		held := verdict.ConfirmCapacity(calledProbes(cr.Curve), func(rate float64) bool {
			return ctx.Err() == nil && probe(rate)
		})
		if ctx.Err() == nil {
			cr.HighestRateHeld = held
		}
		cr.Confirmation = verdict.Confirmation(calledProbes(cr.Curve), cr.HighestRateHeld)
	}
	cr.Bound, cr.Note = verdict.LimitBound(calledProbes(cr.Curve), cr.HighestRateHeld)
	return cr
}

// settleRate is the rate a settle slice runs at: a tenth of the highest
// rate held so far (of start when none has been).
func settleRate(held, start float64) float64 {
	r := held
	if r <= 0 {
		r = start
	}
	return math.Max(verdict.MinCapacityRate, math.Round(r/10))
}

// settle runs low-rate slices after a failed probe until one keeps up
// (achieved >= MinHeldRatio, nothing dropped, lag p99 under settleLag)
// or settleSlices have run, so the next probe starts on a store that has
// drained. Its ops are not part of the phase's figures. It returns how
// long it took.
func (e *phaseEnv) settle(ctx context.Context, base segment, rate float64, slice time.Duration) time.Duration {
	start := e.time.now()
	for i := 0; ctx.Err() == nil && i < settleSlices; i++ {
		s := base
		s.Stage, s.StageIndex = "settle", 0
		s.Rate, s.Duration, s.Warmup = rate, slice, 0
		s.Seed = base.Seed ^ uint64(i+1)*0x7f4a7c159e3779b9
		res := e.stages.unmeasured(ctx, &s)
		var st rundir.Result
		fillResult(&st, res.Total, e.ops, res.Scheduled, res.Elapsed, res.Drain, res.WarmTail, res.WarmTailErrors, e.classes)
		if st.Dropped == 0 && st.AchievedRate >= verdict.MinHeldRatio*s.Rate && st.Lag.P99 <= settleLag.Seconds() {
			break
		}
	}
	return e.time.since(start)
}
