package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/soakd/soakd/metrics"

	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
)

// writePartialPhase renders a phase rebuilt from latency.hlog.partial
// alone: what the log holds (ops, the rate they make, latency), with
// what it cannot hold (target rate, errors, drops, lag) said to be
// unknown rather than printed as 0.
func writePartialPhase(b *strings.Builder, p *rundir.PhaseResult) {
	kind := partialKind(p.Kind)
	fmt.Fprintf(b, "\nphase %s (%s): target unknown, achieved %.1f ops/s over %.1fs (warmup included), %d ops, errors unknown, dropped unknown, max lag unknown\n",
		p.Name, kind, p.AchievedRate, p.DurationSeconds, p.Completed)
	writePartialOps(b, p.Result)
}

// writePartialOps is the op table of a partial phase, as writeOpTable
// draws it but with errors "-" (unknown: they were counted in memory).
func writePartialOps(b *strings.Builder, r rundir.Result) {
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "  op\ttiming\tcount\terrors\tp0\tp50\tp90\tp99\tp99.9\tp99.99\tmax\tmean\t")
	for _, op := range slices.Sorted(maps.Keys(r.Ops)) {
		o := r.Ops[op]
		for _, t := range []struct {
			name string
			s    metrics.Summary
		}{{"latency", o.Latency}, {"service", o.Service}} {
			fmt.Fprintf(tw, "  %s\t%s\t%d\t-\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", op, t.name, o.Count,
				fmtDur(t.s.Min), fmtDur(t.s.P50), fmtDur(t.s.P90), fmtDur(t.s.P99), fmtDur(t.s.P999), fmtDur(t.s.P9999), fmtDur(t.s.Max), fmtDur(t.s.Mean))
		}
	}
	tw.Flush()
}

// partialKind names a rebuilt phase's kind: "unknown kind" when the
// run left no run.json to tell.
func partialKind(k scenarios.PhaseKind) string {
	if k == "" || k == "?" {
		return "unknown kind"
	}
	return string(k)
}
