// Package report renders run directories: the text table (summary.txt,
// `soakd report`), the self-contained HTML page with plots, and the merge
// of several shards' run directories into one result, re-judged with the
// verdict package on the merged histograms.
package report

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/soakd/soakd/internal/term"
	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
)

// WriteRunDir writes a run's summary.json and summary.txt (this
// package's table) atomically.
func WriteRunDir(dir string, s *rundir.Summary) error {
	return rundir.Write(dir, s, Text(s))
}

// Text renders the summary as a table (summary.txt, `soakd report`).
func Text(s *rundir.Summary) string { return textWith(s, variantSuite(s)) }

// textWith is Text with the run's variant table already built (nil:
// none), so a caller that has it does not estimate its intervals again.
func textWith(s *rundir.Summary, suite *SuiteTable) string {
	var b strings.Builder
	fmt.Fprintf(&b, "scenario: %s\ntarget: %s", s.Scenario, s.Target.Kind)
	if s.Target.URL != "" {
		fmt.Fprintf(&b, " %s", scenarios.RedactURL(s.Target.URL))
	}
	if s.Target.Server != "" {
		fmt.Fprintf(&b, " (%s)", s.Target.Server)
	}
	// A note about the target itself ("target: embedded — ...") joins
	// the target line: one target: line.
	note := s.Target.Note
	if rest, ok := strings.CutPrefix(note, "target: "+s.Target.Kind); ok {
		b.WriteString(rest)
		note = ""
	}
	fmt.Fprintf(&b, "\nshard: %s\nstart: %s  end: %s  status: %s\n", s.Shard, s.Start.Format(time.RFC3339), s.End.Format(time.RFC3339), s.Status)
	if s.StatusReason != "" {
		label := "interrupted"
		switch s.Status {
		case rundir.StatusKilled:
			label = "killed"
		case rundir.StatusWriteFailed:
			label = "write failed"
		}
		fmt.Fprintf(&b, "%s: %s\n", label, s.StatusReason)
	}
	if note != "" {
		fmt.Fprintf(&b, "%s\n", note)
	}
	if ml := s.Target.MemoryLimits; ml != nil {
		fmt.Fprintf(&b, "memory limits: %s\n", ml)
	}
	writeSeams(&b, s)
	lost := s.ShowsLost()
	for _, p := range s.Phases {
		if s.Partial {
			writePartialPhase(&b, &p)
			continue
		}
		fmt.Fprintf(&b, "\nphase %s (%s): target %s achieved %.1f ops/s goodput %.1f ops/s over %.1fs, %d ops, %d errors, %d dropped%s, max lag %s%s\n",
			p.Name, p.Kind, rateStr(p.TargetRate)+tickNote(p.TickSeconds), p.AchievedRate, p.Goodput(), p.DurationSeconds, p.Completed, p.Errors, p.Dropped, lostNote(lost, &p.Result), fmtDur(p.MaxLag), drainNote(p.Result))
		if p.EndedEarly != nil {
			fmt.Fprintf(&b, "  %s\n", p.EndedEarly)
		}
		writeOutcomes(&b, p.Result)
		writeOpTable(&b, p.Result)
		writeAccounting(&b, lost, &p.Result)
		if l := overTimeLine(&p); l != "" {
			fmt.Fprintf(&b, "  %s\n", l)
		}
		if l := rateChangesLine(p.RateChanges); l != "" {
			fmt.Fprintf(&b, "  %s\n", l)
		}
		for _, st := range p.Stages {
			if unmeasured(&st) {
				fmt.Fprintf(&b, "  stage %s: nothing measured (the run stopped in its batch insert)%s\n", st.Name, stageExtra(st))
				continue
			}
			fmt.Fprintf(&b, "  stage %s: target %s achieved %.1f ops/s, %d errors%s, %d dropped%s%s\n", st.Name, rateStr(st.TargetRate), st.AchievedRate, st.Errors, stageGoodput(&st.Result), st.Dropped, lostNote(lost, &st.Result), stageExtra(st))
		}
		writeKindText(&b, &p)
		writePersistence(&b, &p)
		writeSelf(&b, &p)
		writeChecks(&b, p.SLO)
		writeChangePoints(&b, &p)
	}
	if suite != nil {
		fmt.Fprintf(&b, "\n%s", suite.Text())
	}
	fmt.Fprintf(&b, "\n%s%s\n", VerdictLine(s.Status, s.StatusReason, s.SLO), boundSuffix(s))
	return b.String()
}

// VerdictLine is a run's one-line outcome: "SLO PASSED", "SLO FAILED",
// or, for a run that did not run to its end, "interrupted: <reason>"
// (its checks cover only what ran, so no SLO verdict is claimed).
func VerdictLine(status, reason string, v rundir.Verdict) string {
	if status == rundir.StatusKilled {
		return "SLO not judged: the run was killed"
	}
	if status == rundir.StatusWriteFailed {
		return "SLO not judged: the run's results could not be written"
	}
	if status == rundir.StatusInterrupted {
		if reason == "" {
			reason = "stopped before its end (signal or stop request)"
		}
		line := "interrupted: " + reason
		if n := failedChecks(v); n > 0 {
			line += fmt.Sprintf(" (%d SLO checks failed in what ran)", n)
		}
		return line
	}
	if v.Passed {
		return "SLO PASSED"
	}
	return "SLO FAILED"
}

func failedChecks(v rundir.Verdict) int {
	n := 0
	for _, c := range v.Checks {
		if !c.Passed {
			n++
		}
	}
	return n
}

// drainNote says how many ops finished after the measured window, and
// how long after: they are in the latency figures but not the rate.
func drainNote(r rundir.Result) string {
	var late int64
	for _, o := range r.Ops {
		late += o.Late
	}
	if late > 0 {
		return fmt.Sprintf(", %d completed after the window (drain %s)", late, fmtDur(r.DrainSeconds))
	}
	return ""
}

// tickNote says that a phase's arrivals came in ticks (tick:): each
// tick's ops intended together at its start.
func tickNote(secs float64) string {
	if secs <= 0 {
		return ""
	}
	return " in " + time.Duration(secs*1e9+0.5).String() + " ticks"
}

// unmeasured is a stage that scheduled nothing to measure: a growth
// stage whose server died in its batch insert (an OOM kill). Its rates
// are not 0 ops/s: there are none.
func unmeasured(st *rundir.StageResult) bool {
	return st.Scheduled == 0 && st.Completed == 0 && len(st.Ops) == 0
}

func rateStr(r float64) string {
	if r == 0 {
		return "closed-loop"
	}
	return term.Rate(r) + " ops/s"
}

func sloVal(what string, v float64) string {
	if strings.HasPrefix(what, "latency") {
		return fmtDur(v)
	}
	return fmt.Sprintf("%.4g", v)
}

func writeOpTable(b *strings.Builder, r rundir.Result) {
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "  op\ttiming\tcount\terrors\tmisses\tok ops/s\tp0\tp50\tp90\tp99\tp99.9\tp99.99\tmax\tmean\t")
	ops := make([]string, 0, len(r.Ops))
	for op := range r.Ops {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	for _, op := range ops {
		o := r.Ops[op]
		var errs int64
		for _, n := range o.Errors {
			errs += n
		}
		for _, t := range []struct {
			name string
			s    metrics.Summary
		}{{"latency", o.Latency}, {"service", o.Service}} {
			fmt.Fprintf(tw, "  %s\t%s\t%d\t%d\t%d\t%.1f\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", op, t.name, o.Count, errs, o.Misses, o.GoodputRate,
				fmtDur(t.s.Min), fmtDur(t.s.P50), fmtDur(t.s.P90), fmtDur(t.s.P99), fmtDur(t.s.P999), fmtDur(t.s.P9999), fmtDur(t.s.Max), fmtDur(t.s.Mean))
		}
	}
	tw.Flush()
}

// writeChecks prints a phase's SLO checks, one line each.
func writeChecks(b *strings.Builder, v *rundir.Verdict) {
	if v == nil {
		return
	}
	for _, c := range v.Checks {
		mark := "ok  "
		if !c.Passed {
			mark = "FAIL"
		}
		budget := ""
		if c.BudgetLeft != nil {
			budget = fmt.Sprintf(", error budget left %.0f%%", *c.BudgetLeft*100)
		}
		if w := c.Window; w != nil {
			budget = fmt.Sprintf(", %d of %d windows over, worst at +%s", w.Breached, w.Judged, time.Duration(w.WorstAtSeconds*float64(time.Second)))
			if w.LongestBreach > 1 {
				budget += fmt.Sprintf(", %d in a row", w.LongestBreach)
			}
		}
		act, lim := sloVal(c.What, c.Actual), sloVal(c.What, c.Limit)
		if c.Metric == rundir.Succeeded {
			act, lim = rundir.FormatValue(c.Metric, c.Actual), "> "+rundir.FormatValue(c.Metric, c.Limit)
		}
		fmt.Fprintf(b, "  SLO %s %s %s: %s (limit %s%s)\n", mark, c.Op, c.What, act, lim, budget)
	}
}

// writePersistence lists a phase's persistence events (with the shard
// that saw each, in a merged run).
func writePersistence(b *strings.Builder, p *rundir.PhaseResult) {
	if len(p.PersistenceEvents) == 0 {
		return
	}
	b.WriteString("  persistence:")
	for i, e := range p.PersistenceEvents {
		sep := ","
		if i == 0 {
			sep = ""
		}
		fmt.Fprintf(b, "%s %s +%.1fs..+%.1fs", sep, e.Kind, e.StartOffsetSeconds, e.EndOffsetSeconds)
		if e.Shard != "" {
			fmt.Fprintf(b, " (shard %s)", e.Shard)
		}
	}
	b.WriteString("\n")
}

// MixString writes a mix as "read 31.5 search 58.5 update 10": its ops
// with a positive share, by name.
func MixString(m map[string]float64) string {
	var parts []string
	for _, op := range slices.Sorted(maps.Keys(m)) {
		if m[op] > 0 {
			parts = append(parts, op+" "+strconv.FormatFloat(m[op], 'g', -1, 64))
		}
	}
	return strings.Join(parts, " ")
}
