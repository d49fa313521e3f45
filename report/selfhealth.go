package report

import (
	"fmt"
	"strings"

	"github.com/soakd/soakd/rundir"
)

// selfLine is a phase's own-health line: soakd's CPU and run-queue
// wait, the host's load and steal ("" without a record).
func selfLine(h *rundir.SelfHealth) string {
	if h == nil {
		return ""
	}
	of := ""
	if h.Cores > 0 {
		of = fmt.Sprintf(" of %d", h.Cores)
	}
	return fmt.Sprintf("self: soakd CPU %.2f cores mean, %.2f max%s, busiest thread %.2f; run-queue wait %.0f ms/s max; host load %.1f max, steal %.0f%% max (%d samples)",
		h.CPUMean, h.CPUMax, of, h.ThreadCPUMax, 1000*h.RunqueueDelayRatioMax, h.LoadMax, 100*h.StealMax, h.Intervals)
}

// selfNotes are a phase's own-health line and, when the phase was
// generator- or host-bound, that its figures give no verdict on the
// store (none without a record).
func selfNotes(h *rundir.SelfHealth) []string {
	var out []string
	if l := selfLine(h); l != "" {
		out = append(out, l)
	}
	if w := h.Withheld(); w != "" {
		who := "soakd"
		if h.Bound == rundir.BoundHost {
			who = "the host"
		}
		out = append(out, fmt.Sprintf("%s: these figures measure %s, not the store", strings.ToUpper(w[:1])+w[1:], who))
	}
	return out
}

// writeSelf writes a phase's selfNotes, one line each.
func writeSelf(b *strings.Builder, p *rundir.PhaseResult) {
	for _, n := range selfNotes(p.Self) {
		fmt.Fprintf(b, "  %s\n", n)
	}
}

// boundSuffix is what the run's verdict line adds when phases were
// generator- or host-bound ("" when none was).
func boundSuffix(s *rundir.Summary) string {
	var names []string
	for _, p := range s.Phases {
		if p.Self != nil && p.Self.Bound != "" {
			names = append(names, p.Name+" "+p.Self.Bound+"-bound")
		}
	}
	if len(names) == 0 {
		return ""
	}
	return fmt.Sprintf(" (no verdict on the store for %s)", strings.Join(names, ", "))
}
