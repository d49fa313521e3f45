package report

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/soakd/soakd/rundir"
)

// writeOutcomes prints what did not succeed in a phase: its errors by
// class (summed over ops, each with its share of the completed ops) and
// its misses by op (each with its share of that op's count). Nothing
// when every op succeeded.
func writeOutcomes(b *strings.Builder, r rundir.Result) {
	if r.Errors == 0 && r.Misses == 0 {
		return
	}
	b.WriteString(" ")
	if r.Errors > 0 {
		byClass := map[string]int64{}
		for _, o := range r.Ops {
			for c, n := range o.Errors {
				byClass[c] += n
			}
		}
		classes := slices.Sorted(maps.Keys(byClass))
		sort.SliceStable(classes, func(i, j int) bool { return byClass[classes[i]] > byClass[classes[j]] })
		b.WriteString(" errors by class:")
		for i, c := range classes {
			sep := ","
			if i == 0 {
				sep = ""
			}
			fmt.Fprintf(b, "%s %s %d (%s)", sep, c, byClass[c], pct(byClass[c], r.Completed))
		}
		if r.Misses > 0 {
			b.WriteString(";")
		}
	}
	if r.Misses > 0 {
		b.WriteString(" misses:")
		first := true
		for _, op := range slices.Sorted(maps.Keys(r.Ops)) {
			o := r.Ops[op]
			if o.Misses == 0 {
				continue
			}
			sep := ","
			if first {
				sep, first = "", false
			}
			fmt.Fprintf(b, "%s %s %d (%s of %s)", sep, op, o.Misses, pct(o.Misses, o.Count), op)
		}
	}
	b.WriteString("\n")
}

func pct(n, of int64) string {
	if of == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(of))
}

// stageGoodput is ", goodput X ops/s" for a stage that had errors.
func stageGoodput(r *rundir.Result) string {
	if r.Errors == 0 {
		return ""
	}
	return fmt.Sprintf(" (goodput %.1f ops/s)", r.Goodput())
}

// writeConfirmation prints a capacity search's confirmation: the rate
// held, how many of its probes passed and the spread they saw, and the
// first failed rate's probes.
func writeConfirmation(b *strings.Builder, c *rundir.CapacityConfirmation) {
	if c == nil || c.Held == nil {
		return
	}
	word := "NOT confirmed"
	if c.Confirmed {
		word = "confirmed"
	}
	h := c.Held
	fmt.Fprintf(b, "  %s: %.0f ops/s held %d of %d probes, achieved %.0f..%.0f, goodput %.0f..%.0f ops/s",
		word, h.Rate, h.Passed, h.Probes, h.AchievedMin, h.AchievedMax, h.GoodputMin, h.GoodputMax)
	for _, op := range slices.Sorted(maps.Keys(h.P99Max)) {
		fmt.Fprintf(b, ", %s p99 %s..%s", op, fmtDur(h.P99Min[op]), fmtDur(h.P99Max[op]))
	}
	if f := c.FirstFailed; f != nil {
		fmt.Fprintf(b, "; first failed %.0f ops/s failed %d of %d probes", f.Rate, f.Probes-f.Passed, f.Probes)
	} else {
		b.WriteString("; no rate up to max failed")
	}
	b.WriteString("\n")
}

// goodputNote is a phase's achieved rate next to its goodput, with its
// errors by class and misses (report.html's phase notes).
func goodputNote(r rundir.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "achieved %.1f ops/s, goodput %.1f ops/s (successful ops), %d errors, %d misses", r.AchievedRate, r.Goodput(), r.Errors, r.Misses)
	var o strings.Builder
	writeOutcomes(&o, r)
	if s := strings.TrimSpace(o.String()); s != "" {
		b.WriteString(": " + s)
	}
	return b.String()
}

// confirmationNote is writeConfirmation's line without its indent.
func confirmationNote(c *rundir.CapacityConfirmation) string {
	var b strings.Builder
	writeConfirmation(&b, c)
	return strings.TrimSpace(b.String())
}
