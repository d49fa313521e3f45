package verdict

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// Between-run drift.
//
// A block bootstrap over the seconds of two runs measures how much each
// run's figures would move if its seconds were drawn again; it does not
// know that two runs of the same thing, minutes apart, differ as a
// whole (the host's neighbours, the server's warm state, where a stall
// fell). With repeats on both sides the t interval over the repeats
// (rounds.go) measures that. With one run on a side it must come from
// somewhere else: the other side's repeats, A/A control runs of the
// scenario on the host (the daemon's controls/calibration.json), or,
// when nothing measured it, an assumed spread (DefaultDrift). The
// interval of the verdict is then the within-run interval widened by
// q·sd, each log half-width and q·sd added in quadrature (the two
// errors are independent; a measured sd holds the controls' own
// within-run noise too, so this errs wide): q Student's quantile with
// the measurement's degrees of freedom (the normal one for an assumed
// spread), sd the standard deviation of log(B/A) of the figure between
// two like runs.
//
// A figure whose within-run interval clears the threshold but whose
// widened one does not is "inconclusive": slower than its seconds
// explain, but not more than two runs of the same thing differ.

// Drift is the between-run spread a verdict assumed or measured.
type Drift struct {
	// Source: DriftRepeats, DriftControls or DriftAssumed.
	Source string `json:"source"`
	// DF is the degrees of freedom of the measurement (A/A pairs, or
	// repeats - 1); 0 for an assumed spread.
	DF int `json:"df,omitempty"`
	// SD is, per figure ("p50", "p99", "p99.9", "throughput"), the
	// standard deviation of the log ratio of two like runs' figures.
	SD map[string]float64 `json:"sd,omitempty"`
	// Note says where the spread comes from.
	Note string `json:"note,omitempty"`
}

// Drift sources.
const (
	DriftRepeats  = "repeats"
	DriftControls = "controls"
	DriftAssumed  = "assumed"
)

// Assumed between-run spreads (sd of the log ratio of two like runs),
// used when a comparison has one run a side and nothing measured the
// drift. 20 real A/A pairs of a 3 s, 500 GET/s scenario against one
// redis-server on a shared 2-core host at a load of 9-13 showed a root
// mean square log ratio of 0.31 at p50 and 1.65 at p99 (two runs of the
// same thing differed up to x3.2 at p50 and x42 at p99;
// docs/verdicts.md). The assumption is that, rounded up. Busier, the
// drift is larger (0.40 and 0.65 at p50 at loads of 9-15 and 14-22),
// but a host that busy is host-bound (load above 2 x cores) and its
// verdicts withheld; and on such a host a single pair's p99 says next
// to nothing.
const (
	assumedDriftP50  = 0.35
	assumedDriftTail = 2.0
)

// DefaultDrift is the spread assumed when none was measured.
func DefaultDrift() *Drift {
	return &Drift{Source: DriftAssumed, SD: map[string]float64{
		"p50": assumedDriftP50, "p99": assumedDriftTail, "p99.9": assumedDriftTail, QuantThroughput: assumedDriftP50}}
}

// DriftFromRatios measures the spread from A/A log ratios per figure
// (log(B/A) of two like runs): their root mean square (the mean is 0 by
// symmetry: which run is A is arbitrary), with as many degrees of
// freedom as the fewest ratios of a figure. nil with no ratio.
func DriftFromRatios(source string, logs map[string][]float64) *Drift {
	d := &Drift{Source: source, SD: map[string]float64{}}
	for q, xs := range logs {
		var ss float64
		n := 0
		for _, x := range xs {
			if !math.IsNaN(x) && !math.IsInf(x, 0) {
				ss += x * x
				n++
			}
		}
		if n == 0 {
			continue
		}
		d.SD[q] = math.Max(math.Sqrt(ss/float64(n)), minLogSpread)
		if d.DF == 0 || n < d.DF {
			d.DF = n
		}
	}
	if len(d.SD) == 0 {
		return nil
	}
	return d
}

// band is the half-width (log scale) the drift adds to figure q at
// level; false when the drift says nothing of q.
func (d *Drift) band(q string, level float64) (float64, bool) {
	if d == nil {
		return 0, false
	}
	sd, ok := d.SD[q]
	if !ok {
		return 0, false
	}
	p := (1 + level) / 2
	if d.DF > 0 {
		return studentTQuantile(p, d.DF) * sd, true
	}
	return normalQuantile(p) * sd, true
}

// Line is the drift in words.
func (d *Drift) Line() string {
	if d == nil {
		return ""
	}
	qs := make([]string, 0, len(d.SD))
	for q := range d.SD {
		qs = append(qs, q)
	}
	sort.Slice(qs, func(i, j int) bool { return figureOrder(qs[i]) < figureOrder(qs[j]) })
	var parts []string
	for _, q := range qs {
		parts = append(parts, fmt.Sprintf("%s %.2f", q, d.SD[q]))
	}
	if len(d.SD) == 0 {
		return fmt.Sprintf("between-run drift measured by the %d repeats of one side, per op and figure", d.DF+1)
	}
	how := map[string]string{DriftAssumed: "assumed, not measured", DriftControls: fmt.Sprintf("measured by %d A/A control pair(s)", d.DF),
		DriftRepeats: "measured by the repeats"}[d.Source]
	line := fmt.Sprintf("between-run drift (%s): sd of the log ratio of two like runs %s", how, strings.Join(parts, ", "))
	if d.Note != "" {
		line += " (" + d.Note + ")"
	}
	return line
}

func figureOrder(q string) int {
	for i, x := range append(append([]string{}, regressQuantiles...), QuantThroughput) {
		if x == q {
			return i
		}
	}
	return 99
}

// withDrift widens a within-run interval by a between-run half-width h
// (log scale), each side in quadrature: the within-run and between-run
// errors are independent, so their variances add. Lo becomes
// est·exp(-sqrt(log(est/lo)² + h²)), Hi likewise.
func withDrift(iv Interval, h float64) Interval {
	if !iv.Valid() || !(h > 0) || !(iv.Lo > 0) {
		return iv
	}
	lo, hi := math.Log(iv.Estimate/iv.Lo), math.Log(iv.Hi/iv.Estimate)
	iv.Lo = iv.Estimate * math.Exp(-math.Hypot(lo, h))
	iv.Hi = iv.Estimate * math.Exp(math.Hypot(hi, h))
	return iv
}

// normalQuantile is the standard normal's p quantile (0 < p < 1), by
// bisection on its CDF.
func normalQuantile(p float64) float64 {
	lo, hi := -40.0, 40.0
	for i := 0; i < 100; i++ {
		mid := (lo + hi) / 2
		if 0.5*math.Erfc(-mid/math.Sqrt2) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// sideDrift is the drift one side's repeats measure when the other side
// has one run: each repeat's figure as one draw of a run, sd s of their
// logs (n-1 degrees of freedom); the log ratio of one run against the
// mean of n has sd s·sqrt(1+1/n). nil with fewer than two positive
// figures.
func sideDrift(q string, figs []float64) *Drift {
	var ls []float64
	for _, x := range figs {
		if x > 0 {
			ls = append(ls, math.Log(x))
		}
	}
	if len(ls) < 2 {
		return nil
	}
	_, v := meanVar(ls)
	n := float64(len(ls))
	return &Drift{Source: DriftRepeats, DF: len(ls) - 1, SD: map[string]float64{q: math.Max(math.Sqrt(v*(1+1/n)), minLogSpread)}}
}
