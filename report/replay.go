package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/soakd/soakd/rundir"
)

// writeReplay writes a replay phase's capture line in summary.txt.
func writeReplay(b *strings.Builder, p *rundir.PhaseResult) {
	if l := replayLine(p.Replay); l != "" {
		fmt.Fprintf(b, "  %s\n", l)
	}
}

// replayLine describes a replay phase's capture: what was sent, what
// was skipped and which commands share the "other" group ("" for any
// other phase).
func replayLine(r *rundir.ReplayResult) string {
	if r == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "replay of %s (%s): %d ops from %d lines, captured over %.3fs", r.Source, r.Format, r.Ops, r.Lines, r.SpanSeconds)
	if r.Speed > 0 {
		fmt.Fprintf(&b, ", speed %g", r.Speed)
	}
	if r.Order != "" && r.Order != "file" {
		fmt.Fprintf(&b, ", order %s", r.Order)
	}
	if r.Loop {
		b.WriteString(", looped")
	}
	if len(r.DBs) > 1 {
		dbs := make([]string, len(r.DBs))
		for i, d := range r.DBs {
			dbs[i] = fmt.Sprintf("db%d:", d)
		}
		fmt.Fprintf(&b, ", %d dbs, keys under %s", len(r.DBs), strings.Join(dbs, " "))
	}
	if len(r.Skipped) > 0 {
		names := make([]string, 0, len(r.Skipped))
		var n int64
		for k, v := range r.Skipped {
			names = append(names, fmt.Sprintf("%s x%d", k, v))
			n += v
		}
		sort.Strings(names)
		fmt.Fprintf(&b, "; %d skipped (not replayable): %s", n, strings.Join(names, ", "))
	}
	if r.ScriptLines > 0 {
		fmt.Fprintf(&b, "; %d lines a script issued ([db lua]) not sent: their EVAL or FCALL runs them", r.ScriptLines)
	}
	if len(r.Folded) > 0 {
		fmt.Fprintf(&b, "; under \"other\": %s", strings.Join(r.Folded, ", "))
	}
	return b.String()
}
