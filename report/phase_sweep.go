package report

// Sweep phases: the cross-point table (summary.txt) and the throughput
// and latency charts per point (HTML).

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
)

// writeSweep prints a sweep phase's cross-point table: per point what
// it ran, its throughput, and each op's p0/p50/p99 from intended start.
func writeSweep(b *strings.Builder, p *rundir.PhaseResult) {
	sw := p.Sweep
	if sw == nil || len(sw.Points) == 0 {
		return
	}
	fmt.Fprintf(b, "  sweep over %s (%s): per point, latency from intended start p0/p50/p99\n", sw.Over, sw.Measure)
	ops := map[string]bool{}
	for _, pt := range sw.Points {
		for op, o := range pt.Ops {
			if o.Count > 0 {
				ops[op] = true
			}
		}
	}
	names := slices.Sorted(maps.Keys(ops))
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	head := "    point\tmix\ttarget\tworkers\tfield bytes\tachieved ops/s\terrors"
	if sw.Measure == scenarios.MeasureCapacity {
		head += "\thighest rate held"
	}
	for _, op := range names {
		head += "\t" + op
	}
	fmt.Fprintln(tw, head+"\t")
	for _, pt := range sw.Points {
		fmt.Fprintf(tw, "    %s\t%s\t%s\t%d\t%d\t%.1f\t%d", pt.Label, MixString(pt.Mix), rateStr(pt.TargetRate), pt.Concurrency, pt.FieldBytes, pt.AchievedOpsPerSec, pt.Errors)
		if sw.Measure == scenarios.MeasureCapacity {
			held := 0.0
			if pt.HighestRateHeld != nil {
				held = *pt.HighestRateHeld
			}
			fmt.Fprintf(tw, "\t%.0f ops/s", held)
		}
		for _, op := range names {
			o, ok := pt.Ops[op]
			if !ok || o.Count == 0 {
				fmt.Fprint(tw, "\t-")
				continue
			}
			fmt.Fprintf(tw, "\t%s/%s/%s", fmtDur(o.P0), fmtDur(o.P50), fmtDur(o.P99))
		}
		fmt.Fprintln(tw, "\t")
	}
	tw.Flush()
}

// sweepSection is a sweep phase's charts across its points (its points
// are stages, drawn on the sweep's axis instead).
func sweepSection(p *rundir.PhaseResult) (notes []string, plots []Plot) {
	if sw := p.Sweep; sw != nil && len(sw.Points) > 0 {
		plots := sweepPlots(sw)
		// The phase's latency limits at the percentiles drawn.
		for i := range plots {
			if isLatency(plots[i].YLabel) {
				for _, op := range slices.Sorted(maps.Keys(p.Ops)) {
					plots[i].Targets = append(plots[i].Targets, sloTargets(p, op, 50)...)
					plots[i].Targets = append(plots[i].Targets, sloTargets(p, op, 99)...)
				}
			}
		}
		return nil, plots
	}
	return nil, nil
}

// SweepChartTitle starts the title of a sweep's cross-point chart.
const SweepChartTitle = "sweep: throughput per point"

// sweepPlots draws a sweep's points: throughput (the achieved rate; a
// capacity sweep's highest rate held) against what the sweep varies,
// and each op's p50 and p99, on the sweep's axis.
func sweepPlots(sw *rundir.SweepResult) []Plot {
	// Points on the sweep's axis (rates, workers, field bytes, one op's
	// percentage); without one, evenly spaced and labelled.
	xl := sw.Axis
	x := func(i int, pt rundir.SweepPoint) float64 { return pt.X }
	var ticks []Point
	if xl == "" {
		xl = "point"
		x = func(i int, _ rundir.SweepPoint) float64 { return float64(i + 1) }
		for i, pt := range sw.Points {
			ticks = append(ticks, Point{X: x(i, pt), Label: pt.Label})
		}
	}
	what, name := "achieved ops/s", "achieved"
	if sw.Measure == scenarios.MeasureCapacity {
		what, name = "highest rate held (ops/s)", "highest rate held"
	}
	vs := sw.Axis
	if vs == "" {
		vs = string(sw.Over)
	}
	tp := Plot{Title: fmt.Sprintf("%s (%s) vs %s", SweepChartTitle, what, vs), XLabel: xl, YLabel: "ops/s", XTicks: ticks}
	sr := Series{Name: name}
	for i, pt := range sw.Points {
		sr.Points = append(sr.Points, Point{X: x(i, pt), Y: round6(pt.AchievedOpsPerSec), Label: pt.Label})
	}
	tp.Series = append(tp.Series, sr)
	lat := Plot{Title: fmt.Sprintf("sweep: latency per point (from intended start) vs %s", vs), XLabel: xl, YLabel: "latency (s)", XTicks: ticks}
	ops := map[string]bool{}
	for _, pt := range sw.Points {
		for op, o := range pt.Ops {
			if o.Count > 0 {
				ops[op] = true
			}
		}
	}
	lat.Series = p50p99Series(slices.Sorted(maps.Keys(ops)), len(sw.Points), func(i int, op string) (float64, float64, bool) {
		o, ok := sw.Points[i].Ops[op]
		return o.P50, o.P99, ok && o.Count > 0
	}, func(i int) Point { return Point{X: x(i, sw.Points[i]), Label: sw.Points[i].Label} })
	return []Plot{tp, lat}
}
