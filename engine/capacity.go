package engine

import (
	"context"
	"fmt"
	"math"
	"sort"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/scenarios"
)

// Capacity search defaults.
const (
	DefaultCapacityStart     = 1000
	DefaultCapacityFactor    = 2
	DefaultCapacityMax       = 10_000_000
	DefaultCapacityStep      = 10 * time.Second
	DefaultCapacityPrecision = 0.05
	maxBisectProbes          = 16
	// After a failed probe the store settles: short slices at a low
	// rate until one completes its ops inside its window with schedule
	// lag p99 under settleLag, for at most settleSlices slices, so the next probe
	// does not inherit the failed one's backlog.
	settleSlice  = time.Second
	settleLag    = 10 * time.Millisecond
	settleSlices = 10
	// minCapacityRate is the lowest rate a search tries below start.
	minCapacityRate = 1
)

// CapacityResult is a capacity phase's outcome.
type CapacityResult struct {
	HighestRateHeld float64         `json:"highest_rate_held"`
	Curve           []CapacityPoint `json:"curve"`
}

// CapacityPoint is one probe.
type CapacityPoint struct {
	Rate     float64            `json:"rate"`
	Achieved float64            `json:"achieved"`
	P99      map[string]float64 `json:"p99"`
	Passed   bool               `json:"passed"`
	Failed   []string           `json:"failed,omitempty"` // which SLO checks failed
	// SettledSeconds is how long the store was given to settle (low
	// rate, until it held the SLO again) after the previous probe
	// failed, before this one started.
	SettledSeconds float64 `json:"settled_seconds,omitempty"`
	// Drain is the probe's drain time: how long after its window its
	// last op completed.
	DrainSeconds float64 `json:"drain_seconds,omitempty"`
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// ProbePassed checks one probe's result against the scenario's SLO:
// per-op latency limits, min achieved ratio (default MinHeldRatio),
// max error ratio and max dropped ratio.
func ProbePassed(slo scenarios.SLO, res Result) (bool, []string) {
	var failed []string
	for _, op := range sortedKeys(res.Ops) {
		or := res.Ops[op]
		limits := map[string]scenarios.Duration{}
		for k, d := range slo.Latency["*"] {
			limits[k] = d
		}
		for k, d := range slo.Latency[op] {
			limits[k] = d
		}
		for _, k := range sortedKeys(limits) {
			pct, err := scenarios.ParsePercentile(k)
			if err != nil {
				continue
			}
			if v := pick(or.Latency, pct.Value); v > limits[k].D().Seconds() {
				failed = append(failed, fmt.Sprintf("%s latency %s %s > %s", op, k, fmtDur(v), fmtDur(limits[k].D().Seconds())))
			}
		}
	}
	minRatio := slo.MinAchievedRatio
	if minRatio <= 0 {
		minRatio = MinHeldRatio
	}
	if res.TargetRate > 0 {
		if ratio := res.AchievedRate / res.TargetRate; ratio < minRatio {
			failed = append(failed, fmt.Sprintf("achieved_ratio %.3f < %.3f", ratio, minRatio))
		}
	}
	if slo.MaxErrorRatio != nil && res.Completed > 0 {
		if ratio := float64(res.Errors) / float64(res.Completed); ratio > *slo.MaxErrorRatio {
			failed = append(failed, fmt.Sprintf("error_ratio %.4f > %.4f", ratio, *slo.MaxErrorRatio))
		}
	}
	if slo.MaxDroppedRatio != nil && res.Scheduled > 0 {
		if ratio := float64(res.Dropped) / float64(res.Scheduled); ratio > *slo.MaxDroppedRatio {
			failed = append(failed, fmt.Sprintf("dropped_ratio %.4f > %.4f", ratio, *slo.MaxDroppedRatio))
		}
	}
	return len(failed) == 0, failed
}

// runCapacity steps the rate up by factor from start until a probe fails
// the SLO or max is reached, then bisects between the last good and the
// first bad rate until hi/lo-1 < precision. Each probe is a stage.
func (r *runner) runCapacity(ctx context.Context, ph *scenarios.Phase, base segment, mix *scenarios.Mix) (*PhaseResult, error) {
	var c scenarios.CapacitySpec
	if ph.Capacity != nil {
		c = *ph.Capacity
	}
	if c.Start <= 0 {
		c.Start = DefaultCapacityStart
	}
	if c.Factor <= 1 {
		c.Factor = DefaultCapacityFactor
	}
	if c.Max <= 0 {
		c.Max = DefaultCapacityMax
	}
	if c.Max < c.Start {
		c.Max = c.Start
	}
	if c.StepDuration <= 0 {
		c.StepDuration = scenarios.Duration(DefaultCapacityStep)
	}
	if c.Precision <= 0 {
		c.Precision = DefaultCapacityPrecision
	}
	pr := &PhaseResult{Name: ph.Name, Kind: ph.Kind, Start: time.Now().UTC()}
	total := metrics.NewSet(mix.Ops())
	var scheduled uint64
	var elapsed, drain time.Duration
	cr := &CapacityResult{}
	failedLast := false
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
		s.Stage, s.StageIndex = fmt.Sprintf("probe-%d", i+1), i+1
		s.Rate = math.Round(rate)
		s.Duration = c.StepDuration.D()
		s.Seed = base.Seed + uint64(i+1)*0x632be59bd9b4e019
		sctx, span := r.stageSpan(ctx, &s)
		res := r.runSegment(sctx, &s, r)
		total.Merge(res.Total)
		scheduled += res.Scheduled
		elapsed += res.Elapsed
		drain = max(drain, res.Drain)
		st := stageResult(&s, res, r.stats())
		r.keepStageHists(ph.Name, s.Stage, res.Total)
		pr.Stages = append(pr.Stages, st)
		ok, failed := ProbePassed(r.sc.SLO, st.Result)
		span.SetAttributes(resultAttrs(&st.Result)...)
		span.SetAttributes(attribute.Bool("soakd.probe.passed", ok))
		span.End()
		failedLast = !ok
		if ok && s.Rate > lastHeld {
			lastHeld = s.Rate
		}
		pt := CapacityPoint{Rate: s.Rate, Achieved: st.AchievedRate, P99: map[string]float64{}, Passed: ok, Failed: failed,
			SettledSeconds: settled.Seconds(), DrainSeconds: res.Drain.Seconds()}
		for op, o := range st.Ops {
			pt.P99[op] = o.Latency.P99
		}
		cr.Curve = append(cr.Curve, pt)
		return ok
	}
	lo := searchCapacity(c, func(rate float64) bool {
		return ctx.Err() == nil && probe(rate)
	})
	cr.HighestRateHeld = lo
	pr.Capacity = cr
	pr.End = time.Now().UTC()
	fillResult(&pr.Result, total, scheduled, elapsed, drain, 0, r.classes)
	r.totals = append(r.totals, phaseTotal{ph.Name, total})
	pr.TargetRate = lo
	pr.Server = r.stats()
	return pr, nil
}

// settleRate is the rate a settle slice runs at: a tenth of the highest
// rate held so far (of start when none has been).
func settleRate(held, start float64) float64 {
	r := held
	if r <= 0 {
		r = start
	}
	return math.Max(minCapacityRate, math.Round(r/10))
}

// settle runs low-rate slices after a failed probe until one keeps up
// (achieved >= MinHeldRatio, nothing dropped, lag p99 under settleLag)
// or settleSlices have run, so the next probe starts on a store that has
// drained. Its ops are not part of the phase's figures. It returns how
// long it took.
func (r *runner) settle(ctx context.Context, base segment, mix *scenarios.Mix, rate float64, slice time.Duration) time.Duration {
	start := time.Now()
	for i := 0; ctx.Err() == nil && i < settleSlices; i++ {
		s := base
		s.Stage, s.StageIndex = "settle", 0
		s.Rate, s.Duration, s.Warmup, s.Mix = rate, slice, 0, mix
		s.Seed = base.Seed ^ uint64(i+1)*0x7f4a7c159e3779b9
		res := r.runSegment(ctx, &s, progressOnly{r})
		var st Result
		fillResult(&st, res.Total, res.Scheduled, res.Elapsed, res.Drain, res.WarmTail, r.classes)
		if st.Dropped == 0 && st.AchievedRate >= MinHeldRatio*s.Rate && st.Lag.P99 <= settleLag.Seconds() {
			break
		}
	}
	return time.Since(start)
}

// progressOnly shows a settle slice on the progress line only: it is
// not measurement, so it feeds neither Prometheus nor latency.hlog.
type progressOnly struct{ r *runner }

func (p progressOnly) onInterval(seg *segment, from, to time.Time, elapsed time.Duration, w *metrics.Set, completed, done int64) {
	if p.r.opts.Progress == nil {
		return
	}
	achieved := 0.0
	if dt := to.Sub(from).Seconds(); dt > 0 {
		achieved = float64(completed) / dt
	}
	fmt.Fprintln(p.r.opts.Progress, progressLine(seg, seg.Rate, elapsed, achieved, done, w, p.r.classes))
}

// searchCapacity is the search itself (rates are whole ops/s): step up by
// Factor from Start to Max while probes pass, then bisect between the
// last good and the first bad rate until hi/lo-1 < Precision. When
// Start itself fails, it steps down by Factor (to 1 op/s at the least)
// until a probe passes and bisects above that. It returns the highest
// rate that passed (0 if none did).
func searchCapacity(c scenarios.CapacitySpec, probe func(rate float64) bool) float64 {
	lo, hi := 0.0, 0.0
	for rate := math.Round(c.Start); ; {
		if !probe(rate) {
			hi = rate
			break
		}
		lo = rate
		if rate >= c.Max {
			break
		}
		rate = math.Round(math.Min(rate*c.Factor, c.Max))
	}
	for lo == 0 && hi > minCapacityRate {
		rate := math.Max(minCapacityRate, math.Round(hi/c.Factor))
		if rate >= hi {
			break
		}
		if probe(rate) {
			lo = rate
			break
		}
		hi = rate
	}
	if lo > 0 && hi > 0 {
		for n := 0; n < maxBisectProbes && hi/lo-1 >= c.Precision; n++ {
			mid := math.Round((lo + hi) / 2)
			if mid <= lo || mid >= hi {
				break
			}
			if probe(mid) {
				lo = mid
			} else {
				hi = mid
			}
		}
	}
	return lo
}

// capacityVerdict: a capacity phase passes when some rate held the SLO;
// its failing probes are the search, not a failure.
func capacityVerdict(p *PhaseResult) *Verdict {
	held := p.Capacity.HighestRateHeld
	return &Verdict{Passed: held > 0, Checks: []Check{{Phase: p.Name, What: "highest_rate_held", Limit: 0, Actual: held, Passed: held > 0}}}
}
