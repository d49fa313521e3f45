package engine

import (
	"context"
	"fmt"
	"math"
	"sort"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

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

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// runCapacity steps the rate up by factor from start until a probe fails
// the SLO or max is reached, then bisects between the last good and the
// first bad rate until hi/lo-1 < precision. Each probe is a stage.
func (r *runner) runCapacity(ctx context.Context, ph *scenarios.Phase, base segment, mix *scenarios.Mix) (*rundir.PhaseResult, error) {
	if ph.Capacity == nil {
		return nil, fmt.Errorf("phase %s: no capacity settings (scenarios.ApplyDefaults gives every capacity phase its defaults)", ph.Name)
	}
	pr := &rundir.PhaseResult{Name: ph.Name, Kind: ph.Kind, Start: r.time.now().UTC()}
	acc := newPhaseAcc(mix.Ops())
	cr := r.capacitySearch(ctx, ph, base, mix, "", pr, acc)
	pr.Capacity = cr
	pr.End = r.time.now().UTC()
	fillResult(&pr.Result, acc.total, acc.scheduled, acc.elapsed, acc.drain, 0, 0, r.classes)
	r.totals = append(r.totals, phaseTotal{ph.Name, acc.total})
	pr.TargetRate = cr.HighestRateHeld
	pr.Server = r.stats()
	return pr, nil
}

// phaseAcc adds up a phase's segments.
type phaseAcc struct {
	total          *metrics.Set
	scheduled      uint64
	elapsed, drain time.Duration
	tail, tailErrs int64
}

func newPhaseAcc(ops []scenarios.Op) *phaseAcc { return &phaseAcc{total: metrics.NewSet(ops)} }

// runStage runs one stage of a phase (a capacity probe, a sweep point)
// in its own span, adds it to the phase's figures, keeps its histograms
// for shard merges and appends its result to pr.Stages. The caller
// ends the span, after adding what it judged.
func (r *runner) runStage(ctx context.Context, phase string, s *segment, acc *phaseAcc, pr *rundir.PhaseResult) (rundir.StageResult, *segResult, trace.Span) {
	sctx, span := r.stageSpan(ctx, s)
	res := r.runSegment(sctx, s, r)
	acc.add(res)
	st := stageResult(s, res, r.stats())
	r.keepStageHists(phase, s.Stage, res.Total)
	pr.Stages = append(pr.Stages, st)
	return st, res, span
}

func (a *phaseAcc) add(res *segResult) {
	a.total.Merge(res.Total)
	a.scheduled += res.Scheduled
	a.elapsed += res.Elapsed
	a.drain = max(a.drain, res.Drain)
	a.tail += res.WarmTail
	a.tailErrs += res.WarmTailErrors
}

// capacitySearch runs one capacity search with ph's capacity: block and
// base's mix; its probes are stages of pr named <prefix>probe-N and
// added to acc.
func (r *runner) capacitySearch(ctx context.Context, ph *scenarios.Phase, base segment, mix *scenarios.Mix, prefix string, pr *rundir.PhaseResult, acc *phaseAcc) *rundir.CapacityResult {
	c := *ph.Capacity
	cr := &rundir.CapacityResult{}
	failedLast, recheck := false, false
	lastHeld := 0.0
	probe := func(rate float64) bool {
		var settled time.Duration
		if failedLast {
			settled = r.settle(ctx, base, mix, settleRate(lastHeld, c.Start), min(settleSlice, c.StepDuration.D()))
		}
		if ctx.Err() != nil {
			return false
		}
		i := len(pr.Stages)
		s := base
		s.Stage, s.StageIndex = fmt.Sprintf("%sprobe-%d", prefix, len(cr.Curve)+1), i+1
		s.Rate = math.Round(rate)
		s.Duration = c.StepDuration.D()
		s.Seed = base.Seed + uint64(i+1)*0x632be59bd9b4e019
		st, res, span := r.runStage(ctx, ph.Name, &s, acc, pr)
		ok, failedChecks := r.limits.Probe(judged(ph.Name, &st.Result, false, res.Total))
		var failed []string
		for _, c := range failedChecks {
			failed = append(failed, c.String())
		}
		span.SetAttributes(resultAttrs(&st.Result)...)
		span.SetAttributes(attribute.Bool("soakd.probe.passed", ok))
		span.End()
		failedLast = !ok
		if ok && s.Rate > lastHeld {
			lastHeld = s.Rate
		}
		pt := rundir.CapacityPoint{Rate: s.Rate, Achieved: st.AchievedRate, Goodput: st.GoodputRate, P99: map[string]float64{}, Passed: ok, Failed: failed,
			SettledSeconds: settled.Seconds(), DrainSeconds: res.Drain.Seconds(), Recheck: recheck}
		for op, o := range st.Ops {
			pt.P99[op] = o.Latency.P99
		}
		cr.Curve = append(cr.Curve, pt)
		return ok
	}
	cr.HighestRateHeld = verdict.SearchCapacity(c, func(rate float64) bool {
		return ctx.Err() == nil && probe(rate)
	})
	// Confirm the answer: the rate held and the first that failed, probed
	// again. A run stopped meanwhile keeps the search's answer.
	if ctx.Err() == nil && cr.HighestRateHeld > 0 {
		recheck = true
		held := verdict.ConfirmCapacity(cr.Curve, func(rate float64) bool {
			return ctx.Err() == nil && probe(rate)
		})
		if ctx.Err() == nil {
			cr.HighestRateHeld = held
		}
		cr.Confirmation = verdict.Confirmation(cr.Curve, cr.HighestRateHeld)
	}
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
func (r *runner) settle(ctx context.Context, base segment, mix *scenarios.Mix, rate float64, slice time.Duration) time.Duration {
	start := r.time.now()
	for i := 0; ctx.Err() == nil && i < settleSlices; i++ {
		s := base
		s.Stage, s.StageIndex = "settle", 0
		s.Rate, s.Duration, s.Warmup, s.Mix = rate, slice, 0, mix
		s.Seed = base.Seed ^ uint64(i+1)*0x7f4a7c159e3779b9
		res := r.runSegment(ctx, &s, progressOnly{r})
		var st rundir.Result
		fillResult(&st, res.Total, res.Scheduled, res.Elapsed, res.Drain, res.WarmTail, res.WarmTailErrors, r.classes)
		if st.Dropped == 0 && st.AchievedRate >= verdict.MinHeldRatio*s.Rate && st.Lag.P99 <= settleLag.Seconds() {
			break
		}
	}
	return r.time.since(start)
}

// progressOnly shows a settle slice on the progress line only: it is
// not measurement, so it feeds neither Prometheus nor latency.hlog.
type progressOnly struct{ r *runner }

func (p progressOnly) onInterval(seg *segment, from, to time.Time, elapsed time.Duration, w *metrics.Set, completed, done int64) {
	if p.r.opts.Progress == nil || !p.r.progress.show(seg, to.Sub(from), p.r.interval) {
		return
	}
	achieved := 0.0
	if dt := to.Sub(from).Seconds(); dt > 0 {
		achieved = float64(completed) / dt
	}
	fmt.Fprintln(p.r.opts.Progress, progressLine(seg, seg.Rate, elapsed, achieved, done, w, p.r.classes))
}
