package report

// Capacity phases: the highest rate held and the probes (summary.txt)
// and the capacity curve (HTML).

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/soakd/soakd/rundir"
)

// writeCapacity writes a capacity phase's result and its probes.
func writeCapacity(b *strings.Builder, p *rundir.PhaseResult) {
	if c := p.Capacity; c != nil {
		fmt.Fprintf(b, "  capacity: highest rate held %.0f ops/s (%d probes)\n", c.HighestRateHeld, len(c.Curve))
		if why := capacityWhy(c); why != "" {
			fmt.Fprintf(b, "  capacity: %s\n", why)
		}
		if c.Note != "" {
			fmt.Fprintf(b, "  capacity: %s\n", c.Note)
		}
		writeConfirmation(b, c.Confirmation)
		for _, pt := range c.Curve {
			mark := "held"
			switch {
			case pt.Uncalled:
				mark = "NOT CALLED" // a seam left too few of its ops
			case !pt.Passed:
				mark = "FAIL"
			}
			if pt.Lost > 0 {
				mark += fmt.Sprintf(" (%d ops lost to a seam)", pt.Lost)
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
	if why := capacityWhy(c); why != "" {
		notes = append(notes, why)
	}
	if c.Note != "" {
		notes = append(notes, c.Note)
	}
	if n := confirmationNote(c.Confirmation); n != "" {
		notes = append(notes, n)
	}
	curve := append([]rundir.CapacityPoint(nil), c.Curve...)
	sort.SliceStable(curve, func(i, j int) bool { return curve[i].Rate < curve[j].Rate })
	// Probes span decades (1 to 2,000 ops/s): x is logarithmic.
	ach := Plot{Title: "capacity curve: achieved vs target rate", XLabel: "target rate (ops/s, log scale)", YLabel: "achieved (ops/s)", XLog: true}
	sa, sg := Series{Name: "achieved"}, Series{Name: "goodput"}
	hasGood := false // summaries written before goodput have none
	for _, pt := range curve {
		hasGood = hasGood || pt.Goodput > 0
		lbl := "held"
		if !pt.Passed {
			lbl = FailedLabel
			if pt.Uncalled {
				lbl = "not called" // a seam left too few of its ops to judge
			}
			if len(pt.Failed) > 0 {
				lbl += ": " + strings.Join(pt.Failed, "; ")
			}
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
	lat := Plot{Title: "capacity curve: p99 vs target rate", XLabel: "target rate (ops/s, log scale)", YLabel: "p99 (s)", XLog: true}
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
				lbl := "held"
				switch {
				case pt.Uncalled:
					lbl = "not called"
				case !pt.Passed:
					lbl = FailedLabel
				}
				sr.Points = append(sr.Points, Point{X: pt.Rate, Y: v, Label: lbl})
			}
		}
		lat.Series = append(lat.Series, sr)
		lat.Targets = append(lat.Targets, sloTargets(p, op, 99)...)
	}
	if len(lat.Targets) == 0 {
		lat.Targets = probeLimits(curve)
	}
	plots = []Plot{ach, lat}
	return notes, plots
}

// capacityWhy says why a search held no rate ("" when one held): what
// its lowest probe failed.
func capacityWhy(c *rundir.CapacityResult) string {
	if c.HighestRateHeld > 0 {
		return ""
	}
	if len(c.Curve) == 0 {
		return "no rate held: the search ran no probe"
	}
	low := c.Curve[0]
	for _, pt := range c.Curve[1:] {
		if pt.Rate < low.Rate {
			low = pt
		}
	}
	why := "it failed its SLO"
	if len(low.Failed) > 0 {
		why = "it failed " + strings.Join(low.Failed, "; ")
	}
	if low.Bound != "" {
		why += " (" + low.Bound + "-bound: soakd or the host, not the store, was the limit)"
	}
	return fmt.Sprintf("no rate held: even the lowest probe, %s, did not hold: %s", rateStr(low.Rate), why)
}

// probeLine reads a probe's failed p99 check as summary.json words it
// ("read latency p99 3.86ms > 3.00ms"): the op and its limit.
var probeLine = regexp.MustCompile(`^(\S+) latency p99 \S+ > (\S+)$`)

// probeLimits are the p99 limits the probes were judged by, as lines:
// the search's own SLO, which summary.json keeps only in the words of
// the checks its probes failed.
func probeLimits(curve []rundir.CapacityPoint) []Point {
	seen := map[string]bool{}
	var out []Point
	for _, pt := range curve {
		for _, f := range pt.Failed {
			m := probeLine.FindStringSubmatch(f)
			if m == nil || seen[m[1]] {
				continue
			}
			d, err := time.ParseDuration(m[2])
			if err != nil {
				continue
			}
			seen[m[1]] = true
			out = append(out, Point{Y: d.Seconds(), Label: fmt.Sprintf("SLO %s p99 <= %s", m[1], fmtDur(d.Seconds()))})
		}
	}
	return out
}

// capacityFigures is a capacity phase's answer for report --json (nil
// for other kinds).
func capacityFigures(p *rundir.PhaseResult) *CapacityFigures {
	c := p.Capacity
	if c == nil {
		return nil
	}
	return &CapacityFigures{HighestRateHeld: c.HighestRateHeld, Why: capacityWhy(c)}
}

// capacityWhyOf is capacityWhy of p's search, "" for other kinds.
func capacityWhyOf(p *rundir.PhaseResult) string {
	if p.Capacity == nil {
		return ""
	}
	return capacityWhy(p.Capacity)
}
