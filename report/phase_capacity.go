package report

// Capacity phases: the highest rate held and the probes (summary.txt)
// and the capacity curve (HTML).

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/soakd/soakd/rundir"
)

// writeCapacity writes a capacity phase's result and its probes.
func writeCapacity(b *strings.Builder, p *rundir.PhaseResult) {
	if c := p.Capacity; c != nil {
		fmt.Fprintf(b, "  capacity: highest rate held %.0f ops/s (%d probes)\n", c.HighestRateHeld, len(c.Curve))
		if c.Note != "" {
			fmt.Fprintf(b, "  capacity: %s\n", c.Note)
		}
		writeConfirmation(b, c.Confirmation)
		for _, pt := range c.Curve {
			mark := "held"
			if !pt.Passed {
				mark = "FAIL"
			}
			if pt.Recheck {
				mark += " (recheck)"
			}
			if pt.Bound != "" {
				mark += " (" + pt.Bound + "-bound)"
			}
			fmt.Fprintf(b, "    %s rate %.0f achieved %.0f goodput %.0f", mark, pt.Rate, pt.Achieved, pt.Goodput)
			if pt.Shard != "" {
				fmt.Fprintf(b, " (shard %s)", pt.Shard)
			}
			for _, op := range slices.Sorted(maps.Keys(pt.P99)) {
				fmt.Fprintf(b, " %s p99 %s", op, fmtDur(pt.P99[op]))
			}
			b.WriteString("\n")
		}
	}
}

// capacitySection is a capacity phase's notes (the highest rate held,
// the confirmation) and its curve: achieved rate and p99 against the
// target rate. Its probes are stages, drawn as the curve instead.
func capacitySection(p *rundir.PhaseResult) (notes []string, plots []Plot) {
	c := p.Capacity
	if c == nil {
		return nil, nil
	}
	notes = append(notes, fmt.Sprintf("highest rate held: %.0f ops/s", c.HighestRateHeld))
	if c.Note != "" {
		notes = append(notes, c.Note)
	}
	if n := confirmationNote(c.Confirmation); n != "" {
		notes = append(notes, n)
	}
	curve := append([]rundir.CapacityPoint(nil), c.Curve...)
	sort.SliceStable(curve, func(i, j int) bool { return curve[i].Rate < curve[j].Rate })
	ach := Plot{Title: "capacity curve: achieved vs target rate", XLabel: "target rate (ops/s)", YLabel: "achieved (ops/s)"}
	sa, sg := Series{Name: "achieved"}, Series{Name: "goodput"}
	hasGood := false // summaries written before goodput have none
	for _, pt := range curve {
		hasGood = hasGood || pt.Goodput > 0
		lbl := "held"
		if !pt.Passed {
			lbl = "failed"
		}
		if pt.Recheck {
			lbl += " (recheck)"
		}
		sa.Points = append(sa.Points, Point{X: pt.Rate, Y: round6(pt.Achieved), Label: lbl})
		sg.Points = append(sg.Points, Point{X: pt.Rate, Y: round6(pt.Goodput), Label: lbl})
	}
	ach.Series = append(ach.Series, sa)
	if hasGood {
		ach.Series = append(ach.Series, sg)
	}
	lat := Plot{Title: "capacity curve: p99 vs target rate", XLabel: "target rate (ops/s)", YLabel: "p99 (s)"}
	curveOps := map[string]bool{}
	for _, pt := range curve {
		for op := range pt.P99 {
			curveOps[op] = true
		}
	}
	for _, op := range slices.Sorted(maps.Keys(curveOps)) {
		sr := Series{Name: op + " p99"}
		for _, pt := range curve {
			if v, ok := pt.P99[op]; ok {
				sr.Points = append(sr.Points, Point{X: pt.Rate, Y: v})
			}
		}
		lat.Series = append(lat.Series, sr)
	}
	plots = []Plot{ach, lat}
	return notes, plots
}
