// Package verdict is soakd's judgement, pure and table-tested: the
// scenario's SLO limits built once (ops and percentiles parsed, "*"
// merged into every op), checks evaluated on a phase's HDR histograms at
// the exact percentile asked for, the capacity decision, and the
// Prometheus SLO series. It reads no files and starts nothing: the
// engine, the shard merge, the CLI and the daemon all judge through it.
package verdict

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
)

// MinHeldRatio is the achieved/target ratio a rate must reach to count
// as held where the scenario sets none (capacity probes, cliffs).
const MinHeldRatio = 0.95

// LatencyLimit is one latency limit at one percentile.
type LatencyLimit struct {
	Percentile scenarios.Percentile
	Limit      time.Duration
}

// Limits are a scenario's SLO, parsed once.
type Limits struct {
	// star holds the "*" limits; byOp each named op's limits with the
	// "*" limits it does not override merged in, sorted by percentile.
	star []LatencyLimit
	byOp map[string][]LatencyLimit

	MinAchievedRatio float64
	MaxErrorRatio    *float64
	MaxDroppedRatio  *float64
}

// New parses slo; its ops are built-in ops or those of ops, the
// scenario's table. Unknown ops and malformed percentiles are errors
// (scenario validation reports them with positions first).
func New(slo scenarios.SLO, ops *scenarios.OpTable) (*Limits, error) {
	l := &Limits{byOp: map[string][]LatencyLimit{}, MinAchievedRatio: slo.MinAchievedRatio,
		MaxErrorRatio: slo.MaxErrorRatio, MaxDroppedRatio: slo.MaxDroppedRatio}
	parse := func(op string, m map[string]scenarios.Duration) ([]LatencyLimit, error) {
		var out []LatencyLimit
		for k, d := range m {
			p, err := scenarios.ParsePercentile(k)
			if err != nil {
				return nil, fmt.Errorf("slo latency %s: %w", op, err)
			}
			out = append(out, LatencyLimit{Percentile: p, Limit: d.D()})
		}
		sortLimits(out)
		return out, nil
	}
	var err error
	if l.star, err = parse("*", slo.Latency["*"]); err != nil {
		return nil, err
	}
	for op, m := range slo.Latency {
		if op == "*" {
			continue
		}
		if _, ok := ops.Lookup(op); !ok {
			return nil, fmt.Errorf("slo latency: unknown op %q", op)
		}
		own, err := parse(op, m)
		if err != nil {
			return nil, err
		}
		l.byOp[op] = merge(l.star, own)
	}
	return l, nil
}

// MustNew is New for a scenario that passed validation.
func MustNew(slo scenarios.SLO, ops *scenarios.OpTable) *Limits {
	l, err := New(slo, ops)
	if err != nil {
		panic(err)
	}
	return l
}

// merge returns own plus the star limits at percentiles own does not set.
func merge(star, own []LatencyLimit) []LatencyLimit {
	out := append([]LatencyLimit(nil), own...)
	for _, s := range star {
		found := false
		for _, o := range own {
			if o.Percentile.Value == s.Percentile.Value {
				found = true
				break
			}
		}
		if !found {
			out = append(out, s)
		}
	}
	sortLimits(out)
	return out
}

// sortLimits orders by percentile value, then name (p100 before max).
func sortLimits(ls []LatencyLimit) {
	sort.Slice(ls, func(i, j int) bool {
		if ls[i].Percentile.Value != ls[j].Percentile.Value {
			return ls[i].Percentile.Value < ls[j].Percentile.Value
		}
		return ls[i].Percentile.Name < ls[j].Percentile.Name
	})
}

// For returns op's latency limits: its own with "*" merged in.
func (l *Limits) For(op string) []LatencyLimit {
	if ls, ok := l.byOp[op]; ok {
		return ls
	}
	return l.star
}

// Series is one soakd_slo_latency_seconds{op,quantile} value.
type Series struct {
	Op       string
	Quantile string // the label, as soakd_op_latency_quantile_seconds writes it
	Seconds  float64
}

// QuantileLabel is a percentile as a Prometheus quantile label: 99.9 is
// "0.999", max is "1" (the same text the window quantile gauge uses).
func QuantileLabel(pct float64) string {
	return strconv.FormatFloat(pct/100, 'g', 10, 64)
}

// Series lists the latency limits of every op in ops, "*" merged in,
// sorted by op then quantile: what the exporter shows.
func (l *Limits) Series(ops []string) []Series {
	ops = append([]string(nil), ops...)
	sort.Strings(ops)
	var out []Series
	seen := map[string]bool{}
	for _, op := range ops {
		if seen[op] {
			continue
		}
		seen[op] = true
		for _, ll := range l.For(op) {
			out = append(out, Series{Op: op, Quantile: QuantileLabel(ll.Percentile.Value), Seconds: ll.Limit.Seconds()})
		}
	}
	return out
}

// Phase is what one phase (or capacity probe) measured, as the judge
// needs it.
type Phase struct {
	Name string
	// TargetRate and AchievedRate in ops/s; AchievedRate counts the ops
	// completed inside the measured window, GoodputRate those of them
	// that did not fail: min_achieved_ratio judges GoodputRate/TargetRate,
	// so a phase whose ops time out does not pass it.
	TargetRate, AchievedRate   float64
	GoodputRate                float64
	Scheduled                  uint64
	Completed, Errors, Dropped int64
	// Staged phases (ramp, growth) judge rate per stage, not here.
	Staged bool
	// Ops measured, and each op's latency histogram (from intended
	// start; nil when not recorded).
	Ops     []string
	Latency func(op string) *hdr.Histogram
}

// Judge checks a steady, ramp or growth phase against the limits.
func (l *Limits) Judge(p Phase) *rundir.Verdict {
	return l.judge(p, l.MinAchievedRatio, !p.Staged)
}

// Probe checks one capacity probe: as Judge, with the achieved ratio
// always checked (MinHeldRatio unless the scenario sets one). It
// returns the failed checks.
func (l *Limits) Probe(p Phase) (bool, []rundir.Check) {
	min := l.MinAchievedRatio
	if min <= 0 {
		min = MinHeldRatio
	}
	v := l.judge(p, min, true)
	var failed []rundir.Check
	for _, c := range v.Checks {
		if !c.Passed {
			failed = append(failed, c)
		}
	}
	return v.Passed, failed
}

func (l *Limits) judge(p Phase, minAchieved float64, rate bool) *rundir.Verdict {
	v := &rundir.Verdict{Passed: true}
	add := func(c rundir.Check, actual float64) {
		c.Phase = p.Name
		c.Cmp = c.Metric.Cmp()
		c.Judge(actual)
		c.BudgetLeft = budgetLeft(c, p)
		v.Checks = append(v.Checks, c)
		v.Passed = v.Passed && c.Passed
	}
	ops := append([]string(nil), p.Ops...)
	sort.Strings(ops)
	for _, op := range ops {
		var h *hdr.Histogram
		if p.Latency != nil {
			h = p.Latency(op)
		}
		for _, ll := range l.For(op) {
			add(rundir.Check{Op: op, What: "latency " + ll.Percentile.Name, Metric: Latency, Percentile: ll.Percentile.Value,
				Limit: ll.Limit.Seconds()}, metrics.Quantile(h, ll.Percentile.Value))
		}
	}
	if rate && minAchieved > 0 && p.TargetRate > 0 {
		add(rundir.Check{What: string(AchievedRatio), Metric: AchievedRatio, Limit: minAchieved}, p.GoodputRate/p.TargetRate)
	}
	if l.MaxErrorRatio != nil && p.Completed > 0 {
		add(rundir.Check{What: string(ErrorRatio), Metric: ErrorRatio, Limit: *l.MaxErrorRatio}, float64(p.Errors)/float64(p.Completed))
	}
	if l.MaxDroppedRatio != nil && p.Scheduled > 0 {
		add(rundir.Check{What: string(DroppedRatio), Metric: DroppedRatio, Limit: *l.MaxDroppedRatio}, float64(p.Dropped)/float64(p.Scheduled))
	}
	return v
}

// SucceededCheck is the check every phase's verdict holds: some of its
// ops succeeded (completed without an error; a miss is an answer).
// A phase whose every op failed, or that ran none, does not pass,
// whatever else it is judged by (a load is judged by it alone).
func SucceededCheck(phase string, completed, errors int64) Check {
	c := Check{Phase: phase, What: "succeeded ops", Metric: Succeeded, Cmp: Above, Limit: 0}
	c.Judge(float64(completed - errors))
	return c
}

// WithSucceeded returns v (nil: a phase the SLO does not judge) with
// the succeeded check of a phase of completed ops, errors of them
// failed, added.
func WithSucceeded(v *Verdict, phase string, completed, errors int64) *Verdict {
	if v == nil {
		v = &Verdict{Passed: true}
	}
	c := SucceededCheck(phase, completed, errors)
	v.Checks = append(v.Checks, c)
	v.Passed = v.Passed && c.Passed
	return v
}

// Capacity judges a capacity phase: it passes when some rate held the
// SLO (held > 0); its failing probes are the search, not a failure. For
// merged shards held is the sum of the shards' highest rates held.
func Capacity(phase string, held float64) *rundir.Verdict {
	c := rundir.Check{Phase: phase, What: string(HighestRateHeld), Metric: HighestRateHeld, Cmp: Above, Limit: 0}
	c.Judge(held)
	return &rundir.Verdict{Passed: c.Passed, Checks: []rundir.Check{c}}
}

// Run folds phase verdicts into the run's: passed when the run
// completed and every phase passed.
func Run(completed bool, phases ...*rundir.Verdict) rundir.Verdict {
	v := rundir.Verdict{Passed: completed}
	for _, p := range phases {
		if p == nil {
			continue
		}
		v.Checks = append(v.Checks, p.Checks...)
		v.Passed = v.Passed && p.Passed
	}
	return v
}

// Rejudge re-evaluates checks (of one phase) on other figures, each by
// its own Metric, Percentile and Cmp: the shard merge's verdict, from
// shard 0's checks and the merged figures. held is the phase's highest
// rate held (capacity phases).
func Rejudge(checks []rundir.Check, p Phase, held float64) *rundir.Verdict {
	v := &rundir.Verdict{Passed: true}
	for _, c := range checks {
		var actual float64
		switch c.Metric {
		case Latency:
			var h *hdr.Histogram
			if p.Latency != nil {
				h = p.Latency(c.Op)
			}
			actual = metrics.Quantile(h, c.Percentile)
		case WindowLatency:
			// Windows are judged on each shard's own latency log; the
			// merge keeps shard 0's figure as read (not recomputed).
			actual = c.Actual
		case AchievedRatio:
			if p.TargetRate > 0 {
				actual = p.GoodputRate / p.TargetRate
			}
		case ErrorRatio:
			if p.Completed > 0 {
				actual = float64(p.Errors) / float64(p.Completed)
			}
		case DroppedRatio:
			if p.Scheduled > 0 {
				actual = float64(p.Dropped) / float64(p.Scheduled)
			}
		case HighestRateHeld:
			actual = held
		case Succeeded:
			actual = float64(p.Completed - p.Errors)
		}
		if c.Cmp == "" {
			c.Cmp = c.Metric.Cmp()
		}
		c.Judge(actual)
		c.BudgetLeft = budgetLeft(c, p)
		v.Checks = append(v.Checks, c)
		v.Passed = v.Passed && c.Passed
	}
	return v
}

// budgetLeft is the share of c's error budget p left (rundir.Check's
// BudgetLeft): for a latency limit at pNN, 1 - (share of the op's ops
// over the limit) / (100-NN)%, an op counted over as the exporter's
// soakd_op_latency_over_slo_total counts it (an HDR bar by its upper
// edge); for error_ratio, 1 - actual / limit. Nil for other checks, for
// max and a zero limit (no budget), and without ops.
func budgetLeft(c rundir.Check, p Phase) *float64 {
	var left float64
	switch c.Metric {
	case Latency:
		if c.Percentile >= 100 || p.Latency == nil {
			return nil
		}
		h := p.Latency(c.Op)
		if h == nil || h.TotalCount() == 0 {
			return nil
		}
		limitNs := c.Limit * 1e9
		var over int64
		for _, b := range h.Distribution() {
			if b.Count != 0 && float64(b.To) > limitNs {
				over += b.Count
			}
		}
		left = 1 - float64(over)/float64(h.TotalCount())/((100-c.Percentile)/100)
	case ErrorRatio:
		if c.Limit <= 0 || p.Completed == 0 {
			return nil
		}
		left = 1 - c.Actual/c.Limit
	default:
		return nil
	}
	left = math.Round(left*1e6) / 1e6
	return &left
}
