package verdict

import (
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/soakd/soakd/rundir"
)

// QuantThroughput is the QuantCheck of a closed-loop phase's rate.
const QuantThroughput = "throughput"

// regressPercentiles are the percentiles (0..100) behind regressQuantiles.
var regressPercentiles = []float64{50, 99, 99.9}

// RunIntervals is one run's latency intervals after warmup, per steady
// phase and op.
type RunIntervals map[string]map[string][]*hdr.Histogram

// SteadyIntervals picks from a run's interval log (tag -> intervals, as
// rundir.ReadIntervals returns it) each steady phase's .latency
// intervals that start at or after the warmup's end: the ops the
// summary's figures hold.
func SteadyIntervals(s *rundir.Summary, tags map[string][]*hdr.Histogram) RunIntervals {
	out := RunIntervals{}
	for _, ph := range s.Phases {
		if !ph.Kind.Compared() {
			continue
		}
		warmEnd := ph.Start.Add(time.Duration(ph.WarmupSeconds * float64(time.Second))).UnixMilli()
		for op := range ph.Ops {
			var ivs []*hdr.Histogram
			for _, h := range tags[ph.Name+"."+op+".latency"] {
				if h.StartTimeMs() >= warmEnd {
					ivs = append(ivs, h)
				}
			}
			if len(ivs) == 0 {
				continue
			}
			if out[ph.Name] == nil {
				out[ph.Name] = map[string][]*hdr.Histogram{}
			}
			out[ph.Name][op] = ivs
		}
	}
	return out
}

// IntervalOptions tune CompareIntervals.
type IntervalOptions struct {
	// Threshold: a regression is called when the whole interval of a
	// latency ratio lies above 1+Threshold (0 = DefaultRegressThreshold).
	Threshold float64
	Bootstrap BootstrapOptions
	// Drift is the between-run spread measured for this scenario and
	// host (the daemon's A/A controls), used when a side has one run and
	// the other side's repeats do not measure it; nil = DefaultDrift,
	// assumed (drift.go).
	Drift *Drift
}

// CompareIntervals judges the candidate runs against the baseline runs
// (each side one or more repeats of a scenario; ivs[i] belongs to
// runs[i]). For each steady phase and op present on both sides, p50,
// p99 and p99.9 are compared as the ratio candidate/baseline with a
// block-bootstrap confidence interval (QuantileRatios), and a
// closed-loop phase's per-interval throughput likewise (RateRatio).
// Decide calls each: a regression only when the whole interval lies
// above 1+Threshold (for throughput: below 1/(1+Threshold)).
func CompareIntervals(base, cand []*rundir.Summary, baseIv, candIv []RunIntervals, o IntervalOptions) *Regression {
	if o.Threshold <= 0 {
		o.Threshold = DefaultRegressThreshold
	}
	bo := o.Bootstrap.withDefaults()
	v := &Regression{Method: MethodBootstrap, Threshold: o.Threshold, History: len(base), Level: bo.Level, Resamples: bo.Resamples,
		Repeats: [2]int{len(base), len(cand)}}
	if len(base) == 0 || len(cand) == 0 {
		v.NotJudged = "no run on one side"
		return v
	}
	for _, b := range append(append([]*rundir.Summary{}, base...), cand[1:]...) {
		if why := Unlike(b, cand[0]); len(why) > 0 {
			v.Unlike = append(v.Unlike, fmt.Sprintf("run of %s: %s", b.Start.UTC().Format(time.RFC3339), strings.Join(why, "; ")))
			v.KeptUnlike = true
		}
	}
	drift := runDrift(v, len(base), len(cand), o.Drift)
	for _, ph := range cand[0].Phases {
		if !ph.Kind.Compared() {
			continue
		}
		ops := make([]string, 0, len(ph.Ops))
		for op := range ph.Ops {
			ops = append(ops, op)
		}
		sort.Strings(ops)
		for _, op := range ops {
			bs, cs := gather(baseIv, ph.Name, op), gather(candIv, ph.Name, op)
			if len(bs) == 0 || len(cs) == 0 {
				continue
			}
			ov := OpRegression{Phase: ph.Name, Op: op, Intervals: [2]int{count(bs), count(cs)}}
			h := fnv.New64a()
			h.Write([]byte(ph.Name + "\x00" + op))
			opo := bo
			opo.Seed = bo.Seed ^ h.Sum64()
			ivs, blockLen := quantileRatiosBlock(bs, cs, regressPercentiles, opo, cumulativeCap)
			ov.BlockLen = blockLen
			bq, cq := mergedQuantiles(bs), mergedQuantiles(cs)
			n := [2]int64{opsIn(bs), opsIn(cs)}
			for i, q := range regressQuantiles {
				iv := ivs[i]
				if !iv.Valid() {
					continue
				}
				d := drift
				if d == nil {
					d = repeatsDrift(q, bs, cs, func(rep [][]*hdr.Histogram) float64 { return mergedQuantiles(rep)[i] })
				}
				qc := QuantCheck{Quantile: q, Baseline: bq[i], Candidate: cq[i], Change: iv.Estimate - 1}
				qc.Ratio, qc.Within, qc.Call = judgeLatency(iv, d, i, o.Threshold, n)
				qc.Noise = bq[i] * (qc.Ratio.Hi - qc.Ratio.Lo) / 2
				qc.Regressed = qc.Call == CallRegression
				ov.add(qc)
			}
			if ph.TargetRate == 0 {
				d := drift
				if d == nil {
					d = repeatsDrift(QuantThroughput, bs, cs, func(rep [][]*hdr.Histogram) float64 { return meanOf(rates(rep)) })
				}
				if qc, ok := throughputCheck(bs, cs, opo, o.Threshold, d); ok {
					ov.add(qc)
				}
			}
			v.add(ov)
		}
	}
	for _, ov := range v.Ops {
		if slices.ContainsFunc(ov.Checks, func(c QuantCheck) bool { return c.Call == CallTooFew }) {
			v.Notes = append(v.Notes, fmt.Sprintf("too few ops: a call on a percentile needs %d ops a side beyond it (1,000 ops for p99, 10,000 for p99.9); run longer or repeat", MinBeyond))
			break
		}
	}
	withholdBound(v, append(append([]*rundir.Summary{}, base...), cand...)...)
	explainRegression(v, base, cand, false)
	v.Calibration = calibrateIntervals(v, [2][]RunIntervals{baseIv, candIv}, o.Threshold, bo)
	foldDriftMDE(v.Calibration, drift, o.Threshold, bo.Level)
	return v
}

// runDrift is the drift a comparison of nb baseline and nc candidate
// runs is widened by, with its note on v: none with repeats on both
// sides (their t interval holds it), nil with repeats on one side (each
// figure's own, repeatsDrift), else the measured one given or the
// assumed DefaultDrift.
func runDrift(v *Regression, nb, nc int, measured *Drift) *Drift {
	switch {
	case nb >= 2 && nc >= 2:
		return nil
	case nb >= 2 || nc >= 2:
		v.Drift = &Drift{Source: DriftRepeats, DF: max(nb, nc) - 1}
		v.Notes = append(v.Notes, "one run on a side: the intervals are widened by the between-run spread the other side's repeats show (per op and figure)")
		return nil
	}
	d := measured
	if d == nil {
		d = DefaultDrift()
	}
	v.Drift = d
	why := "the between-run spread of the daemon's A/A controls"
	if d.Source == DriftAssumed {
		why = "an assumed between-run spread (no repeats or A/A controls measured it)"
	}
	v.Notes = append(v.Notes, "one run on a side: the seconds of a run hold the noise within it, not a host's drift between runs; the intervals are widened by "+why+
		"; \""+string(CallDrift)+"\" where the within-run interval clears the threshold but drift could explain it: repeat the runs interleaved to tell")
	return d
}

// repeatsDrift is the drift of figure q the side with repeats shows
// when the other has one run (sideDrift of fig of each repeat); nil
// when neither or both sides have repeats.
func repeatsDrift(q string, bs, cs [][]*hdr.Histogram, fig func([][]*hdr.Histogram) float64) *Drift {
	side := bs
	switch {
	case len(bs) >= 2 && len(cs) >= 2, len(bs) < 2 && len(cs) < 2:
		return nil
	case len(cs) >= 2:
		side = cs
	}
	figs := make([]float64, len(side))
	for r, rep := range side {
		figs[r] = fig([][]*hdr.Histogram{rep})
	}
	return sideDrift(q, figs)
}

// judgeLatency calls the within-run interval iv of percentile
// regressPercentiles[i] of sides of n ops, widened by drift d
// (TailCall on the widened interval; CallDrift where only the
// within-run one is a regression).
func judgeLatency(iv Interval, d *Drift, i int, threshold float64, n [2]int64) (ratio, within *Interval, call Call) {
	ratio, within = driftInterval(iv, d, regressQuantiles[i])
	call = TailCall(*ratio, threshold, regressPercentiles[i], n)
	if within != nil && call != CallRegression && TailCall(*within, threshold, regressPercentiles[i], n) == CallRegression {
		call = CallDrift
	}
	return ratio, within, call
}

// driftInterval is the call's interval of figure q and, when the drift
// widened it, the within-run interval it started from.
func driftInterval(iv Interval, d *Drift, q string) (*Interval, *Interval) {
	h, ok := d.band(q, iv.Level)
	if !ok {
		return &iv, nil
	}
	w := withDrift(iv, h)
	if w == iv {
		return &iv, nil
	}
	return &w, &iv
}

// foldDriftMDE widens each MDE of c by the drift as the verdict's
// interval is widened: the MDE (1+t)·exp(w), w the typical within-run
// log half-width, becomes (1+t)·exp(hypot(w, band)).
func foldDriftMDE(c *Calibration, d *Drift, threshold, level float64) {
	if c == nil || d == nil {
		return
	}
	for q, m := range c.MDE {
		if h, ok := d.band(q, level); ok {
			c.MDE[q] = (1 + threshold) * math.Exp(math.Hypot(math.Max(0, math.Log(m/(1+threshold))), h))
		}
	}
	if c.Note != "" {
		c.Note += "; MDE with the between-run drift"
	}
}

// throughputCheck compares a closed-loop op's ops/s per interval: the
// candidate regresses when the whole interval of its ratio lies below
// 1/(1+threshold).
func throughputCheck(bs, cs [][]*hdr.Histogram, o BootstrapOptions, threshold float64, d *Drift) (QuantCheck, bool) {
	br, cr := rates(bs), rates(cs)
	raw := RateRatio(br, cr, o)
	if !raw.Valid() {
		return QuantCheck{}, false
	}
	inverse := func(iv Interval) Interval {
		return Interval{Estimate: 1 / iv.Estimate, Lo: 1 / iv.Hi, Hi: 1 / iv.Lo, Level: iv.Level}
	}
	qc := QuantCheck{Quantile: QuantThroughput, Baseline: meanOf(br), Candidate: meanOf(cr), Change: raw.Estimate - 1}
	qc.Ratio, qc.Within = driftInterval(raw, d, QuantThroughput)
	iv := *qc.Ratio
	qc.Call = Decide(inverse(iv), threshold)
	if qc.Within != nil && qc.Call != CallRegression && Decide(inverse(*qc.Within), threshold) == CallRegression {
		qc.Call = CallDrift
	}
	qc.Noise = qc.Baseline * (iv.Hi - iv.Lo) / 2
	switch qc.Call { // the words are about speed, not latency
	case CallSlower:
		qc.Call = "lower, below threshold"
	case CallFaster:
		qc.Call = "higher"
	}
	qc.Regressed = qc.Call == CallRegression
	return qc, true
}

// rates is each repeat's ops/s per interval (intervals without a
// duration left out).
func rates(reps [][]*hdr.Histogram) [][]float64 {
	out := make([][]float64, len(reps))
	for r, ivs := range reps {
		for _, h := range ivs {
			if d := h.EndTimeMs() - h.StartTimeMs(); d > 0 {
				out[r] = append(out[r], float64(h.TotalCount())*1000/float64(d))
			}
		}
	}
	return out
}

func meanOf(reps [][]float64) float64 {
	var s float64
	n := 0
	for _, r := range reps {
		for _, x := range r {
			s += x
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return s / float64(n)
}

func gather(runs []RunIntervals, phase, op string) [][]*hdr.Histogram {
	var out [][]*hdr.Histogram
	for _, r := range runs {
		if ivs := r[phase][op]; len(ivs) > 0 {
			out = append(out, ivs)
		}
	}
	return out
}

func count(reps [][]*hdr.Histogram) int {
	n := 0
	for _, r := range reps {
		n += len(r)
	}
	return n
}

// opsIn is the ops the intervals hold.
func opsIn(reps [][]*hdr.Histogram) int64 {
	var n int64
	for _, r := range reps {
		for _, h := range r {
			n += h.TotalCount()
		}
	}
	return n
}

// mergedQuantiles is p50, p99, p99.9 (seconds) of all intervals merged.
func mergedQuantiles(reps [][]*hdr.Histogram) []float64 {
	var all *hdr.Histogram
	for _, r := range reps {
		for _, h := range r {
			if all == nil {
				all = hdr.New(h.LowestTrackableValue(), h.HighestTrackableValue(), int(h.SignificantFigures()))
			}
			all.Merge(h)
		}
	}
	out := make([]float64, len(regressPercentiles))
	if all == nil {
		return out
	}
	for i, p := range regressPercentiles {
		out[i] = float64(all.ValueAtQuantile(p)) / 1e9
	}
	return out
}
