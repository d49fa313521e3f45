package report

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/verdict"

	"github.com/soakd/soakd/regfile"
)

// ChangeMaxPoints bounds each phase's change-point series: a phase
// longer than ChangeMaxPoints intervals is read in buckets of several
// intervals (a 12-hour run at 1 s intervals: 1-minute buckets).
const ChangeMaxPoints = 720

// ChangeLine is a change point as one summary.txt line.
func ChangeLine(c rundir.ChangePoint) string {
	f := fmtDur
	switch c.Metric {
	case rundir.MetricRate:
		f = func(v float64) string { return fmt.Sprintf("%.1f ops/s", v) }
	case rundir.MetricErrorRatio:
		f = func(v float64) string { return fmt.Sprintf("%.2f%% errors", 100*v) }
	}
	off := time.Duration(c.OffsetSeconds * float64(time.Second)).Round(time.Millisecond)
	ev := fmt.Sprintf("%s, %d vs %d intervals", PValueText(c.PValue), c.BeforeIntervals, c.AfterIntervals)
	if c.Kind == rundir.ChangeSpread {
		return fmt.Sprintf("change: %s %s spread at +%s (%s): %s -> %s (level %s, %s)", c.Op, c.Metric,
			off, c.At.Format(time.RFC3339), f(c.BeforeSpread), f(c.AfterSpread), f(c.Before), ev)
	}
	return fmt.Sprintf("change: %s %s at +%s (%s): %s -> %s (%s)", c.Op, c.Metric,
		off, c.At.Format(time.RFC3339), f(c.Before), f(c.After), ev)
}

// PValueText is a change point's p-value as text: "p=0.00041", or
// "p<1e-10" at verdict.MinPValue.
func PValueText(p float64) string {
	if p <= verdict.MinPValue {
		return fmt.Sprintf("p<%.0e", verdict.MinPValue)
	}
	return fmt.Sprintf("p=%.2g", p)
}

// changeWidth is the bucket width of a phase lasting d read from a log
// of interval iv: iv, or a multiple of it so the phase has at most
// ChangeMaxPoints buckets.
func changeWidth(iv time.Duration) func(time.Duration) time.Duration {
	return func(d time.Duration) time.Duration {
		n := (d + iv*ChangeMaxPoints - 1) / (iv * ChangeMaxPoints)
		return max(1, n) * iv
	}
}

// FindChangePoints reads dir's latency.hlog (written at interval iv) and
// counts.csv (when the run left one) and sets each phase's ChangePoints.
func FindChangePoints(dir string, s *rundir.Summary, iv time.Duration) error {
	f, err := regfile.Open(filepath.Join(dir, rundir.LatencyLog))
	if err != nil {
		return err
	}
	defer f.Close()
	counts, err := rundir.ReadCounts(filepath.Join(dir, rundir.CountsFile))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return findChangePoints(f, f.Name(), counts, s, iv)
}

func findChangePoints(rd io.Reader, name string, counts []rundir.IntervalCount, s *rundir.Summary, iv time.Duration) error {
	return findChangePointsIn([]io.Reader{rd}, []string{name}, counts, s, iv)
}

// findChangePointsIn is findChangePoints over several logs of one run
// (its shards), merged per bucket, with all their counts.
func findChangePointsIn(rds []io.Reader, names []string, counts []rundir.IntervalCount, s *rundir.Summary, iv time.Duration) error {
	if iv <= 0 {
		iv = time.Second
	}
	tl, err := readTimelines(rds, names, s, changeWidth(iv))
	if err != nil {
		return err
	}
	byPhase := map[string][]rundir.IntervalCount{}
	for _, c := range counts {
		byPhase[c.Phase] = append(byPhase[c.Phase], c)
	}
	for i := range s.Phases {
		p := &s.Phases[i]
		if kindOf(p).variedWorkload {
			// A sweep changes its workload at every point on purpose;
			// its points are compared in the sweep table and chart.
			continue
		}
		p.ChangePoints = phaseChanges(p, tl.Phases[p.Name], byPhase[p.Name], tl.Width[p.Name])
	}
	return nil
}

// phaseChanges runs the detector over each op's series in a phase. The
// rate is left out of phases whose stages change the rate on purpose.
func phaseChanges(p *rundir.PhaseResult, ops map[string][]TimePoint, counts []rundir.IntervalCount, w time.Duration) []rundir.ChangePoint {
	var out []rundir.ChangePoint
	if w <= 0 {
		return nil
	}
	// Buckets wholly inside the phase: a last, shorter one would look
	// like a drop in rate.
	whole := int64(p.End.Sub(p.Start) / w)
	staged := kindOf(p).staged
	// The log holds the warmup too: a store warming up is what warmup
	// hides, not a change. Buckets start after it (the phase's time
	// less its measured window and drain).
	var first int64
	if !staged && p.DurationSeconds > 0 {
		warm := p.End.Sub(p.Start) - time.Duration((p.DurationSeconds+p.DrainSeconds)*float64(time.Second))
		if warm > w/2 {
			first = int64((warm + w - 1) / w)
		}
	}
	add := func(op, metric string, xs []float64, bucket func(int) int64) {
		for _, c := range verdict.Detect(xs, verdict.RunChangeOptions(metric)) {
			b := bucket(c.Index)
			out = append(out, changePoint(op, metric, p.Start, b, w, c))
		}
	}
	// Error ratios per bucket, from counts.csv: errors over completed
	// ops, each op in the interval it completed in; buckets where the op
	// completed none are left out.
	type tally struct{ ops, errs int64 }
	errs := map[string]map[int64]*tally{}
	for _, c := range counts {
		b := int64(time.UnixMilli(c.StartMs).Sub(p.Start) / w)
		if b < first || b >= whole || c.Ops <= 0 {
			continue
		}
		if errs[c.Op] == nil {
			errs[c.Op] = map[int64]*tally{}
		}
		t := errs[c.Op][b]
		if t == nil {
			t = &tally{}
			errs[c.Op][b] = t
		}
		t.ops += c.Ops
		t.errs += c.Errors
	}
	names := slices.Sorted(maps.Keys(ops))
	for op := range errs {
		if _, ok := ops[op]; !ok {
			names = append(names, op)
		}
	}
	sort.Strings(names)
	for _, op := range names {
		var at []int64 // bucket index of each latency point
		lat := map[string][]float64{}
		var rate []float64
		for _, tp := range ops[op] {
			b := int64(tp.At.Sub(p.Start) / w)
			if b < first || b >= whole {
				continue
			}
			at = append(at, b)
			lat[rundir.MetricP50] = append(lat[rundir.MetricP50], tp.P50)
			lat[rundir.MetricP99] = append(lat[rundir.MetricP99], tp.P99)
			lat[rundir.MetricP999] = append(lat[rundir.MetricP999], tp.P999)
			// Buckets without an op of this kind did none: rate 0.
			for int64(len(rate)) < b-first {
				rate = append(rate, 0)
			}
			rate = append(rate, float64(tp.Count)/w.Seconds())
		}
		for _, m := range []string{rundir.MetricP50, rundir.MetricP99, rundir.MetricP999} {
			add(op, m, lat[m], func(i int) int64 { return at[i] })
		}
		if !staged && len(rate) > 0 {
			// The rate series starts at the op's first bucket.
			lead := at[0] - first
			for _, c := range detectRate(rate[lead:]) {
				b := at[0] + int64(c.Index)
				// A rate the user changed live is their change, not
				// the store's: a step within two buckets of it is left
				// out.
				if !nearRateChange(p, b, w) {
					out = append(out, changePoint(op, rundir.MetricRate, p.Start, b, w, c))
				}
			}
		}
		if e := errs[op]; len(e) > 0 {
			bs := make([]int64, 0, len(e))
			for b := range e {
				bs = append(bs, b)
			}
			slices.Sort(bs)
			ratio := make([]float64, len(bs))
			for i, b := range bs {
				ratio[i] = float64(e[b].errs) / float64(e[b].ops)
			}
			add(op, rundir.MetricErrorRatio, ratio, func(i int) int64 { return bs[i] })
		}
	}
	return out
}

// changePoint is a detector's change point at bucket b (of width w from
// start) of an op's metric series.
func changePoint(op, metric string, start time.Time, b int64, w time.Duration, c verdict.ChangePoint) rundir.ChangePoint {
	kind := rundir.ChangeLevel
	if c.Spread {
		kind = rundir.ChangeSpread
	}
	return rundir.ChangePoint{Op: op, Metric: metric, OffsetSeconds: round6((time.Duration(b) * w).Seconds()),
		At: start.Add(time.Duration(b) * w).UTC(), Before: c.Before, After: c.After, PValue: c.PValue,
		BeforeIntervals: c.BeforeN, AfterIntervals: c.AfterN,
		Kind: kind, BeforeSpread: c.BeforeSpread, AfterSpread: c.AfterSpread}
}

// writeChangePoints writes a phase's change points, one line each.
func writeChangePoints(b *strings.Builder, p *rundir.PhaseResult) {
	for _, c := range p.ChangePoints {
		fmt.Fprintf(b, "  %s\n", ChangeLine(c))
	}
}

// changeMarks are a phase's change points as chart marks, one per op
// and offset: "change: get p50, p99", a spread change named so ("rate
// spread").
func changeMarks(p *rundir.PhaseResult) []Point {
	var out []Point
	at := map[string]int{}
	for _, c := range p.ChangePoints {
		name := c.Metric
		if c.Kind == rundir.ChangeSpread {
			name += " spread"
		}
		k := fmt.Sprintf("%s@%g", c.Op, c.OffsetSeconds)
		if i, ok := at[k]; ok {
			out[i].Label += ", " + name
			continue
		}
		at[k] = len(out)
		out = append(out, Point{X: c.OffsetSeconds, Label: "change: " + c.Op + " " + name})
	}
	return out
}

// detectRate runs the detector over a rate series.
func detectRate(xs []float64) []verdict.ChangePoint {
	return verdict.Detect(xs, verdict.RunChangeOptions(rundir.MetricRate))
}

// nearRateChange says whether bucket b (of width w) lies within two
// buckets of one of p's live rate changes.
func nearRateChange(p *rundir.PhaseResult, b int64, w time.Duration) bool {
	at := (time.Duration(b) * w).Seconds()
	for _, c := range p.RateChanges {
		if d := at - c.OffsetSeconds; d > -2*w.Seconds() && d < 2*w.Seconds() {
			return true
		}
	}
	return false
}
