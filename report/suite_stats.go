package report

import (
	"fmt"
	"math"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/verdict"
)

// LoadIntervals reads each column's latency.hlog (dirOf names a
// column's run directory; "" skips it) and gives every round of every
// cell its per-interval rates and latency histograms inside the round's
// measured window; the cells' p50 and p99 become those of the merged
// histograms. A column whose log cannot be read keeps its summary
// figures; the error names it.
func (t *SuiteTable) LoadIntervals(dirOf func(SuiteColumn) string) error {
	logs := map[string]map[string][]*hdr.Histogram{}
	var errs []string
	for ci, c := range t.Columns {
		dir := dirOf(c)
		if dir == "" {
			continue
		}
		m, ok := logs[dir]
		if !ok {
			var err error
			m, _, err = rundir.ReadRunIntervals(dir, func(tag string) bool { return strings.HasSuffix(tag, ".latency") })
			if err != nil {
				errs = append(errs, err.Error())
			}
			logs[dir] = m
		}
		if m == nil {
			continue
		}
		for ri := range t.Rows {
			cell := &t.Rows[ri].Cells[ci]
			var merged *hdr.Histogram
			for k := range cell.Rounds {
				rd := &cell.Rounds[k]
				rd.Rates, rd.Latency = nil, nil
				t.intervals = true
				for _, h := range windowed(m[rd.Phase+"."+t.Rows[ri].Op+".latency"], rd.start, rd.end) {
					secs := float64(h.EndTimeMs()-h.StartTimeMs()) / 1000
					if secs <= 0 {
						continue
					}
					rd.Rates = append(rd.Rates, float64(h.TotalCount())/secs)
					rd.Latency = append(rd.Latency, h)
					if merged == nil {
						merged = hdr.New(h.LowestTrackableValue(), h.HighestTrackableValue(), int(h.SignificantFigures()))
					}
					merged.Merge(h)
				}
			}
			// One round keeps summary.json's exact percentiles.
			if merged != nil && merged.TotalCount() > 0 && len(cell.Rounds) > 1 {
				cell.P50 = float64(merged.ValueAtQuantile(50)) / 1e9
				cell.P99 = float64(merged.ValueAtQuantile(99)) / 1e9
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}

// windowed keeps the intervals whose middle lies in [start, end] (a
// zero window keeps all).
func windowed(hs []*hdr.Histogram, start, end time.Time) []*hdr.Histogram {
	if start.IsZero() || end.IsZero() {
		return hs
	}
	var out []*hdr.Histogram
	for _, h := range hs {
		mid := (h.StartTimeMs() + h.EndTimeMs()) / 2
		if mid >= start.UnixMilli() && mid <= end.UnixMilli() {
			out = append(out, h)
		}
	}
	return out
}

// rateSeries is the cell's rates per round for the bootstrap: each
// round's per-interval rates when the latency log was read, else the
// round's achieved rate.
func (c SuiteCell) rateSeries() [][]float64 {
	var out [][]float64
	for _, r := range c.Rounds {
		if len(r.Rates) > 0 {
			out = append(out, r.Rates)
		} else if r.RPS > 0 {
			out = append(out, []float64{r.RPS})
		}
	}
	return out
}

func (c SuiteCell) latencySeries() [][]*hdr.Histogram {
	var out [][]*hdr.Histogram
	for _, r := range c.Rounds {
		if len(r.Latency) > 0 {
			out = append(out, r.Latency)
		}
	}
	return out
}

// spread says whether a side has more than one value to resample.
func spread[T any](s [][]T) bool {
	n := 0
	for _, r := range s {
		n += len(r)
	}
	return n > 1
}

// Estimate fills every row's ratios with their intervals (block
// bootstrap over rounds and, with the latency log read, the intervals
// inside each round: verdict.RateRatio, verdict.QuantileRatio), the A/A
// control (A's rounds split in two: odd rounds against even ones, or a
// single round's first half against its second) and each column's
// geomean over the tests.
func (t *SuiteTable) Estimate(o verdict.BootstrapOptions) {
	n := len(t.Columns)
	for ri := range t.Rows {
		r := &t.Rows[ri]
		r.RPSRatio, r.P99Ratio = make([]verdict.Interval, n), make([]verdict.Interval, n)
		a := r.Cells[0]
		if !a.Present {
			continue
		}
		for ci := 1; ci < n; ci++ {
			c := r.Cells[ci]
			if !c.Present {
				continue
			}
			if base, cand := a.rateSeries(), c.rateSeries(); spread(base) && spread(cand) {
				r.RPSRatio[ci] = verdict.RateRatio(base, cand, o)
			}
			if base, cand := a.latencySeries(), c.latencySeries(); len(base) > 0 && len(cand) > 0 {
				r.P99Ratio[ci] = verdict.QuantileRatio(base, cand, 99, o)
			}
		}
		if x, y := splitHalves(a.rateSeries()); spread(x) && spread(y) {
			r.Control = verdict.RateRatio(x, y, o)
		}
	}
	t.estimateSweeps(o)
	t.Geomean = make([]verdict.Interval, n)
	for ci := 1; ci < n; ci++ {
		t.Geomean[ci] = t.geomean(ci, o)
	}
}

// splitHalves splits a side for the A/A control: odd rounds against
// even ones; one round: the first half of its intervals against the
// second.
func splitHalves(s [][]float64) (x, y [][]float64) {
	if len(s) >= 2 {
		for i, r := range s {
			if i%2 == 0 {
				x = append(x, r)
			} else {
				y = append(y, r)
			}
		}
		return x, y
	}
	if len(s) == 1 && len(s[0]) >= 4 {
		h := len(s[0]) / 2
		return [][]float64{s[0][:h]}, [][]float64{s[0][h:]}
	}
	return nil, nil
}

// geomean is column ci's suite score against the first column's: the
// score of a round is the geometric mean of the round's rps over the
// tests both columns ran; the estimate is the ratio of the mean scores,
// its interval bootstraps the rounds (verdict.RateRatio over one score
// per round). With one round the estimate has no interval (Level 0).
func (t *SuiteTable) geomean(ci int, o verdict.BootstrapOptions) verdict.Interval {
	score := func(col int) map[int]float64 {
		logs, counts := map[int]float64{}, map[int]int{}
		for _, r := range t.Rows {
			if !r.Cells[0].Present || !r.Cells[ci].Present {
				continue
			}
			for _, rd := range r.Cells[col].Rounds {
				if rd.RPS > 0 {
					logs[rd.Repeat] += math.Log(rd.RPS)
					counts[rd.Repeat]++
				}
			}
		}
		tests := 0
		for _, c := range counts {
			tests = max(tests, c)
		}
		out := map[int]float64{}
		for k, l := range logs {
			if counts[k] == tests {
				out[k] = math.Exp(l / float64(counts[k]))
			}
		}
		return out
	}
	sa, sb := score(0), score(ci)
	var base, cand [][]float64
	for k, v := range sa {
		if w, ok := sb[k]; ok {
			base, cand = append(base, []float64{v}), append(cand, []float64{w})
		}
	}
	switch {
	case len(base) == 0:
		return verdict.Interval{}
	case len(base) == 1:
		return verdict.Interval{Estimate: cand[0][0] / base[0][0]}
	}
	return verdict.RateRatio(base, cand, o)
}

// ratio is row r's rps interval for column ci (zero when not estimated).
func (r SuiteRow) ratio(ci int) verdict.Interval {
	if ci < len(r.RPSRatio) {
		return r.RPSRatio[ci]
	}
	return verdict.Interval{}
}

func (r SuiteRow) p99Ratio(ci int) verdict.Interval {
	if ci < len(r.P99Ratio) {
		return r.P99Ratio[ci]
	}
	return verdict.Interval{}
}

// Verdict is column ci's word against the first column: for a
// closed-loop test, what its rps ratio's interval shows (noiseWord); for
// a fixed-rate test, what its p99 ratio's interval shows: there the rps
// is the schedule's in both columns, and a p99 77 times the baseline's
// read "within noise" on throughput. "(p99)" marks the latency verdict.
// When either column ran the test generator- or host-bound there is no
// verdict ("no verdict: generator-bound"; the notes say why).
func (r SuiteRow) Verdict(ci int) string {
	if w := r.withheld(ci); w != "" {
		return w
	}
	_, ok := r.Ratio(ci)
	if !r.FixedRate {
		return noiseWord(ok, r.ratio(ci))
	}
	iv := r.p99Ratio(ci)
	switch {
	case !ok:
		return "-"
	case !iv.Valid():
		return "no interval"
	case !iv.Excludes(1):
		return "within noise (p99)"
	case iv.Estimate > 1:
		return "slower (p99)"
	}
	return "faster (p99)"
}

// ivText is an estimate with its interval: 0.97 [0.93-1.01].
func ivText(iv verdict.Interval) string {
	return fmt.Sprintf("%.2f [%.2f-%.2f]", iv.Estimate, iv.Lo, iv.Hi)
}

// ratioText is a ratio shown as the cells' (B's rps over A's, as
// summary.json has them) with the bootstrap's interval.
func ratioText(v float64, iv verdict.Interval) string {
	return fmt.Sprintf("%.2f [%.2f-%.2f]", v, iv.Lo, iv.Hi)
}

// noiseWord says what an rps ratio's interval shows: "within noise"
// when it holds 1, else faster or slower; "no interval" when there was
// not enough to bootstrap (one round, latency log not read).
func noiseWord(present bool, iv verdict.Interval) string {
	switch {
	case !present:
		return "-"
	case !iv.Valid():
		return "no interval"
	case !iv.Excludes(1):
		return "within noise"
	case iv.Estimate > 1:
		return "faster"
	}
	return "slower"
}

// writeNotes adds the geomean lines and says what the intervals are.
func (t SuiteTable) writeNotes(b *strings.Builder) {
	a := t.Columns[0].Label
	for ci := 1; ci < len(t.Geomean); ci++ {
		g := t.Geomean[ci]
		c := t.Columns[ci].Label
		switch {
		case g.Valid():
			fmt.Fprintf(b, "  geomean %s/%s: %s %s (%s's suite score, the geometric mean of its tests' rps in a round, over %s's; 95%% interval bootstrapped over rounds)\n",
				c, a, ivText(g), noiseWord(true, g), c, a)
		case g.Estimate > 0:
			fmt.Fprintf(b, "  geomean %s/%s: %.2f (one round: no interval; run with --repeat 5 or more for one)\n", c, a, g.Estimate)
		}
	}
	if len(t.Geomean) > 1 {
		what := "resampling the rounds' achieved rates"
		if t.intervals {
			what = "resampling rounds and, within each, blocks of its seconds in latency.hlog"
		}
		fmt.Fprintf(b, "  [lo-hi]: 95%% bootstrap interval (%s); within noise = the interval holds 1; no interval = one round and too few seconds to resample (use --repeat)\n", what)
		for _, r := range t.Rows {
			if r.FixedRate {
				b.WriteString("  (p99): a fixed-rate test, whose rps is the schedule's in every column, is judged on its B/A p99 interval\n")
				break
			}
		}
	}
	t.writeBoundNotes(b)
	if t.ShowControl {
		fmt.Fprintf(b, "  %s/%s control: %s against itself (odd rounds over even, or one round's first half over its second): the noise floor; a B/A inside that spread is noise\n", a, a, a)
		if n := t.Columns[0].rounds(); n > 1 && n < 6 {
			fmt.Fprintf(b, "  (%d rounds: %d a half, too few for the control's interval to be trusted; use --repeat 6 or more)\n", n, n/2)
		}
	}
}
