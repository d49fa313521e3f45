package report

import (
	"fmt"

	"github.com/soakd/soakd/rundir"
)

// CliffText says what one piece of cliff evidence compared, e.g. "get
// alone 16344 ops/s vs median 60630 of 4 earlier stages (threshold
// 30315, spread 1601; next stage 9800)".
func CliffText(e rundir.CliffEvidence) string {
	var s string
	switch e.Reason {
	case rundir.CliffP99:
		s = fmt.Sprintf("%s p99 %s vs median %s", e.Op, fmtDur(e.Value), fmtDur(e.Baseline))
		if e.Threshold > 0 {
			s += fmt.Sprintf(" (threshold %s)", fmtDur(e.Threshold))
		}
	case rundir.CliffRate:
		s = fmt.Sprintf("achieved/target %.3f", e.Value)
	case rundir.CliffErrors:
		s = fmt.Sprintf("error ratio %.3f vs median %.3f", e.Value, e.Baseline)
	case rundir.CliffMisses:
		s = fmt.Sprintf("%s miss ratio %.3f vs median %.3f", e.Op, e.Value, e.Baseline)
	case rundir.CliffOOM:
		if e.Op == "cgroup_oom_kills_total" {
			s = fmt.Sprintf("cgroup OOM kills %.0f -> %.0f", e.Baseline, e.Value)
		} else {
			s = fmt.Sprintf("%.0f ops refused for memory (oom), none before", e.Value)
		}
	case rundir.CliffThroughput:
		who := e.Op + " alone"
		if e.Op == "" {
			who = "closed-loop"
		}
		s = fmt.Sprintf("%s %.0f ok ops/s vs median %.0f of %d earlier stages (threshold %.0f, spread %.0f)",
			who, e.Value, e.Baseline, len(e.Earlier), e.Threshold, e.Spread)
	default:
		s = e.Reason
	}
	if e.Next != nil {
		switch e.Reason {
		case rundir.CliffP99:
			s += "; next stage " + fmtDur(*e.Next)
		case rundir.CliffRate:
			s += fmt.Sprintf("; next stage %.3f", *e.Next)
		default:
			s += fmt.Sprintf("; next stage %.0f", *e.Next)
		}
	}
	return s
}
