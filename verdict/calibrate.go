package verdict

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/soakd/soakd/rundir"
)

// Calibration is what a verdict's own data say about its rule: how often
// the rule called a REGRESSION where nothing changed (A/A comparisons
// made from the same data), and the smallest change it would find
// there (the minimum detectable effect).
type Calibration struct {
	// Source is what the A/A comparisons were made of: CalRepeats (two
	// repeats of one side against each other), CalSplits (one run's
	// intervals split in two: first half against second, and odd blocks
	// against even), CalHistory (each history run against the others)
	// or CalControls (the daemon's hidden A/A control runs).
	Source string `json:"source"`
	// AAVerdicts is how many A/A verdicts were made (one per op and
	// comparison); FalseAlarms how many were called REGRESSION.
	AAVerdicts  int `json:"aa_verdicts"`
	FalseAlarms int `json:"false_alarms"`
	// MDE is, per percentile ("p50", "p99"), the ratio the rule calls a
	// REGRESSION about half the time on data this noisy (absent when too
	// few ops lie beyond the percentile for any call).
	MDE map[string]float64 `json:"mde,omitempty"`
	// Note says how the MDE was scaled or why a figure is missing.
	Note string `json:"note,omitempty"`
}

// Calibration sources.
const (
	CalRepeats  = "repeats"
	CalSplits   = "splits"
	CalHistory  = "history"
	CalControls = "controls"
)

// Rate is the measured false-alarm rate (0 with no A/A verdict).
func (c *Calibration) Rate() float64 {
	if c == nil || c.AAVerdicts == 0 {
		return 0
	}
	return float64(c.FalseAlarms) / float64(c.AAVerdicts)
}

// Line is the calibration in words.
func (c *Calibration) Line() string {
	if c == nil || c.AAVerdicts == 0 {
		return "calibration: no A/A comparison could be made of these runs (too few intervals or repeats)"
	}
	var mde []string
	for _, q := range []string{"p50", "p99", "p99.9"} {
		if r, ok := c.MDE[q]; ok {
			mde = append(mde, fmt.Sprintf("%s x%.2f", q, r))
		}
	}
	line := fmt.Sprintf("calibration (%s): %d of %d A/A verdicts called REGRESSION (false-alarm rate %.1f%%)",
		c.Source, c.FalseAlarms, c.AAVerdicts, 100*c.Rate())
	if len(mde) > 0 {
		line += "; smallest change found half the time: " + strings.Join(mde, ", ")
	}
	if c.Note != "" {
		line += " (" + c.Note + ")"
	}
	return line
}

// calPercentiles are the percentiles a calibration measures the MDE at.
var calPercentiles = []float64{50, 99}

// maxCalPairs bounds the A/A pairs per op and side (repeats give
// n(n-1)/2).
const maxCalPairs = 6

// aaPair is one A/A comparison: two sets of repeats of one side, and the
// intervals a side the real comparison has (to scale the MDE).
type aaPair struct{ a, b [][]*hdr.Histogram }

// aaPairs makes the A/A comparisons one side's repeats allow.
func aaPairs(reps [][]*hdr.Histogram) ([]aaPair, string) {
	var out []aaPair
	if len(reps) >= 2 {
		for i := 0; i < len(reps) && len(out) < maxCalPairs; i++ {
			for j := i + 1; j < len(reps) && len(out) < maxCalPairs; j++ {
				out = append(out, aaPair{[][]*hdr.Histogram{reps[i]}, [][]*hdr.Histogram{reps[j]}})
			}
		}
		return out, CalRepeats
	}
	if len(reps) == 1 && len(reps[0]) >= 8 {
		ivs := reps[0]
		h := len(ivs) / 2
		out = append(out, aaPair{[][]*hdr.Histogram{ivs[:h]}, [][]*hdr.Histogram{ivs[h:]}})
		bl := max(1, AutoBlockLen(len(ivs)))
		var odd, even []*hdr.Histogram
		for i, x := range ivs {
			if (i/bl)%2 == 0 {
				even = append(even, x)
			} else {
				odd = append(odd, x)
			}
		}
		out = append(out, aaPair{[][]*hdr.Histogram{even}, [][]*hdr.Histogram{odd}})
	}
	return out, CalSplits
}

// calibrateIntervals measures the rule on A/A comparisons made of each
// side's own data, per steady phase and op of v: the same bootstrap,
// threshold and tail rule as the verdict. The MDE per percentile is
// (1+threshold) times the median of est/lo over the A/A intervals (a
// ratio r is called when r·lo/est clears 1+threshold), the log width
// scaled by sqrt(pair's intervals / comparison's intervals) since the
// A/A comparisons hold less data than the verdict.
func calibrateIntervals(v *Regression, sides [2][]RunIntervals, threshold float64, bo BootstrapOptions) *Calibration {
	c := &Calibration{MDE: map[string]float64{}}
	widths := make([][]float64, len(calPercentiles))
	sources := map[string]bool{}
	bo.Resamples = min(bo.Resamples, 1000)
	for _, ov := range v.Ops {
		for s := range sides {
			reps := gather(sides[s], ov.Phase, ov.Op)
			full := float64(count(reps))
			pairs, src := aaPairs(reps)
			if len(pairs) == 0 {
				continue
			}
			sources[src] = true
			for k, p := range pairs {
				o := bo
				o.Seed = bo.Seed ^ opSeed(ov.Phase, ov.Op) ^ uint64(1000*s+k+1)
				ivs, _ := quantileRatiosBlock(p.a, p.b, calPercentiles, o, cumulativeCap)
				n := [2]int64{opsIn(p.a), opsIn(p.b)}
				alarm := false
				for i, iv := range ivs {
					if !iv.Valid() {
						continue
					}
					call := TailCall(iv, threshold, calPercentiles[i], n)
					if call == CallRegression {
						alarm = true
					}
					if call == CallTooFew || iv.Lo <= 0 {
						continue
					}
					scale := math.Sqrt(float64(count(p.a)+count(p.b)) / 2 / full)
					widths[i] = append(widths[i], scale*math.Log(iv.Estimate/iv.Lo))
				}
				c.AAVerdicts++
				if alarm {
					c.FalseAlarms++
				}
			}
		}
	}
	for i, w := range widths {
		if len(w) == 0 {
			continue
		}
		sort.Float64s(w)
		c.MDE[regressQuantiles[i]] = (1 + threshold) * math.Exp(w[len(w)/2])
	}
	srcs := make([]string, 0, len(sources))
	for s := range sources {
		srcs = append(srcs, s)
	}
	slices.Sort(srcs)
	c.Source = strings.Join(srcs, "+")
	switch {
	case sources[CalSplits]:
		c.Note = "splits of single runs: the noise within a run, not a host's drift between runs, which only repeats measure; MDE widths scaled to the whole"
	case sources[CalRepeats]:
		c.Note = "repeats against each other; MDE widths scaled to the whole"
	}
	if len(c.MDE) == 0 {
		c.MDE = nil
	}
	return c
}

// calibrateHistory judges each history run against the others with the
// history rule (leave one out): like runs, so every REGRESSION is a
// false alarm. The MDE per percentile is the median over ops and runs of
// the prediction interval's top over the history's geometric mean.
func calibrateHistory(history []*rundir.Summary, o RegressOptions) *Calibration {
	c := &Calibration{Source: CalHistory, MDE: map[string]float64{}}
	if len(history) < max(o.MinHistory, 2)+1 {
		return nil
	}
	mde := map[string][]float64{}
	for i, h := range history {
		rest := make([]*rundir.Summary, 0, len(history)-1)
		rest = append(rest, history[:i]...)
		rest = append(rest, history[i+1:]...)
		v := compareHistory(rest, h, o)
		if v.NotJudged != "" {
			continue
		}
		for _, ov := range v.Ops {
			if ov.Withheld != "" {
				continue
			}
			c.AAVerdicts++
			if ov.Regressed {
				c.FalseAlarms++
			}
			for _, qc := range ov.Checks {
				if qc.Prediction != nil && qc.Prediction.Estimate > 0 {
					mde[qc.Quantile] = append(mde[qc.Quantile], qc.Prediction.Hi/qc.Prediction.Estimate)
				}
			}
		}
	}
	for q, xs := range mde {
		sort.Float64s(xs)
		c.MDE[q] = xs[len(xs)/2]
	}
	if len(c.MDE) == 0 {
		c.MDE = nil
	}
	return c
}
