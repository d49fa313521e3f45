package report

import (
	"fmt"
	"strings"

	"github.com/soakd/soakd/rundir"
)

// rateChangesLine lists a phase's live rate changes ("" when none):
// "rate changed live: +12.0s -> 500 ops/s, +30.5s (step-2) -> 800 ops/s".
func rateChangesLine(cs []rundir.RateChange) string {
	if len(cs) == 0 {
		return ""
	}
	parts := make([]string, len(cs))
	for i, c := range cs {
		stage := ""
		if c.Stage != "" {
			stage = " (" + c.Stage + ")"
		}
		parts[i] = fmt.Sprintf("+%.1fs%s -> %s", c.OffsetSeconds, stage, rateStr(c.Rate))
	}
	return "rate changed live: " + strings.Join(parts, ", ")
}

// rateChangeMarks are a phase's live rate changes as marks on its
// over-time charts, at the offset each took effect.
func rateChangeMarks(p *rundir.PhaseResult) []Point {
	var out []Point
	for _, c := range p.RateChanges {
		out = append(out, Point{X: round6(c.OffsetSeconds), Label: "rate changed live -> " + rateStr(c.Rate)})
	}
	return out
}
