package report

// Phases run in stages (ramp steps, growth stages): their per-stage
// charts and the extras of their summary.txt stage lines.

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/soakd/soakd/rundir"
)

// stagePlots are the per-stage charts of a phase run in stages (ramp
// steps, growth stages) against the stage or, byRecords (growth), the
// dataset size: latency, achieved rate, batch insert rate, miss ratio,
// per-op throughput and memory, each growth cliff marked on every one.
func stagePlots(p *rundir.PhaseResult, byRecords bool) []Plot {
	xl := "stage"
	if byRecords {
		xl = "dataset (records)"
	}
	x := func(i int, st rundir.StageResult) float64 {
		if byRecords {
			return float64(st.Records)
		}
		return float64(i + 1)
	}
	lat := Plot{Title: "latency per stage (from intended start)", XLabel: xl, YLabel: "latency (s)"}
	stageOps := map[string]bool{}
	for _, st := range p.Stages {
		for op := range st.Ops {
			stageOps[op] = true
		}
	}
	lat.Series = p50p99Series(slices.Sorted(maps.Keys(stageOps)), len(p.Stages), func(i int, op string) (float64, float64, bool) {
		o, ok := p.Stages[i].Ops[op]
		return o.Latency.P50, o.Latency.P99, ok && o.Count > 0
	}, func(i int) Point { return Point{X: x(i, p.Stages[i]), Label: p.Stages[i].Name} })
	rate := Plot{Title: "achieved rate per stage", XLabel: xl, YLabel: "ops/s"}
	tr, ar, gr := Series{Name: "target"}, Series{Name: "achieved"}, Series{Name: "goodput"}
	lr := Series{Name: "batch insert"}
	for i, st := range p.Stages {
		if st.Load != nil {
			lr.Points = append(lr.Points, Point{X: x(i, st), Y: round6(st.Load.AchievedRate), Label: st.Name})
		}
		if unmeasured(&st) {
			continue // no rate, not a rate of 0
		}
		if st.TargetRate > 0 {
			// A closed-loop stage had no target: none is drawn, not 0.
			tr.Points = append(tr.Points, Point{X: x(i, st), Y: st.TargetRate, Label: st.Name})
		}
		ar.Points = append(ar.Points, Point{X: x(i, st), Y: round6(st.AchievedRate), Label: st.Name})
		gr.Points = append(gr.Points, Point{X: x(i, st), Y: round6(st.Goodput()), Label: st.Name})
	}
	if len(tr.Points) > 0 {
		rate.Series = append(rate.Series, tr)
	}
	rate.Series = append(rate.Series, ar, gr)
	plots := []Plot{lat, rate}
	if len(lr.Points) > 0 {
		plots = append(plots, Plot{Title: "batch insert rate per stage", XLabel: xl, YLabel: "ops/s", Series: []Series{lr}})
	}
	if mp := missPlot(p.Stages, xl, x, ""); len(mp.Series) > 0 {
		plots = append(plots, mp)
	}
	if tp := perOpPlot(p.Stages, x); len(tp.Series) > 0 {
		plots = append(plots, tp)
	}
	if mp := memoryPlot(p.Stages, "memory per stage", x); len(mp.Series) > 0 {
		plots = append(plots, mp)
	}
	if cm := cliffMarks(p, x, ""); cm != nil {
		for i := range plots {
			if plots[i].XLabel == xl {
				plots[i].Cliffs = cm
			}
		}
	}
	return plots
}

// missPlot draws each op's miss ratio per stage (ops that missed at
// least once); prefix names the series (a variant in comparisons).
func missPlot(stages []rundir.StageResult, xl string, x func(int, rundir.StageResult) float64, prefix string) Plot {
	mp := Plot{Title: "miss ratio per stage (reads that found no value)", XLabel: xl, YLabel: "misses / ops"}
	missed := map[string]bool{}
	for _, st := range stages {
		for op, o := range st.Ops {
			if o.Misses > 0 {
				missed[op] = true
			}
		}
	}
	for _, op := range slices.Sorted(maps.Keys(missed)) {
		sr := Series{Name: prefix + op}
		for i, st := range stages {
			if o, ok := st.Ops[op]; ok && o.Count > 0 {
				sr.Points = append(sr.Points, Point{X: x(i, st), Y: round6(missRatio(o)), Label: st.Name})
			}
		}
		mp.Series = append(mp.Series, sr)
	}
	return mp
}

// perOpPlot draws each op's closed-loop throughput per stage (growth
// measure per_op), one line per op.
func perOpPlot(stages []rundir.StageResult, x func(int, rundir.StageResult) float64) Plot {
	pl := Plot{Title: "per-op throughput per stage (each op alone, closed loop)", XLabel: "dataset (records)", YLabel: "ops/s"}
	ops := map[string]bool{}
	for _, st := range stages {
		for op := range st.PerOp {
			ops[op] = true
		}
	}
	for _, op := range slices.Sorted(maps.Keys(ops)) {
		sr := Series{Name: op}
		for i, st := range stages {
			if r := st.PerOp[op]; r != nil {
				sr.Points = append(sr.Points, Point{X: x(i, st), Y: round6(r.AchievedRate), Label: st.Name})
			}
		}
		pl.Series = append(pl.Series, sr)
	}
	return pl
}

// memoryPlot draws a growth phase's memory per stage: the store's used
// memory and RSS, the cgroup's usage split into page cache (file) and
// anonymous memory, its limit, and swap in use. Figures no stage has
// are left out.
func memoryPlot(stages []rundir.StageResult, title string, x func(int, rundir.StageResult) float64) Plot {
	pl := Plot{Title: title, XLabel: "dataset (records)", YLabel: "bytes"}
	for _, f := range []struct {
		name string
		get  func(*rundir.StageMemory) *float64
	}{
		{"used_memory", func(m *rundir.StageMemory) *float64 { return m.UsedBytes }},
		{"rss", func(m *rundir.StageMemory) *float64 { return m.RSSBytes }},
		{"cgroup usage", func(m *rundir.StageMemory) *float64 { return m.CgroupUsageBytes }},
		{"cgroup file (page cache)", func(m *rundir.StageMemory) *float64 { return m.CgroupFileBytes }},
		{"cgroup anon", func(m *rundir.StageMemory) *float64 { return m.CgroupAnonBytes }},
		{"cgroup limit", func(m *rundir.StageMemory) *float64 { return m.CgroupLimitBytes }},
		{"swap", func(m *rundir.StageMemory) *float64 { return m.SwapBytes }},
	} {
		sr := Series{Name: f.name}
		for i, st := range stages {
			if st.Memory == nil {
				continue
			}
			if v := f.get(st.Memory); v != nil {
				sr.Points = append(sr.Points, Point{X: x(i, st), Y: *v, Label: st.Name})
			}
		}
		if len(sr.Points) > 0 {
			pl.Series = append(pl.Series, sr)
		}
	}
	return pl
}

// stageExtra is what a stage line of summary.txt adds after its
// counts: records, misses, memory, the batch insert, per-op rates.
func stageExtra(st rundir.StageResult) string {
	var b strings.Builder
	if st.Records > 0 {
		fmt.Fprintf(&b, ", %d records", st.Records)
	}
	if st.Misses > 0 {
		fmt.Fprintf(&b, ", %d misses", st.Misses)
	}
	if v, ok := st.Server["used_memory_bytes"]; ok {
		fmt.Fprintf(&b, ", used_memory %.1f MB", v/1e6)
	}
	if v := st.Server["evicted_keys_total"]; v > 0 {
		fmt.Fprintf(&b, ", %.0f evicted", v)
	}
	if m := st.Memory; m != nil && m.CgroupUsageBytes != nil {
		fmt.Fprintf(&b, ", cgroup %.1f MB", *m.CgroupUsageBytes/1e6)
		if m.CgroupFileBytes != nil && m.CgroupAnonBytes != nil {
			fmt.Fprintf(&b, " (page cache %.1f, anon %.1f)", *m.CgroupFileBytes/1e6, *m.CgroupAnonBytes/1e6)
		}
	}
	if m := st.Memory; m != nil && m.SwapBytes != nil && *m.SwapBytes > 0 {
		fmt.Fprintf(&b, ", swap %.1f MB", *m.SwapBytes/1e6)
	}
	if st.Load != nil {
		fmt.Fprintf(&b, "; load %.0f ops/s, %d errors", st.Load.AchievedRate, st.Load.Errors)
	}
	if len(st.PerOp) > 0 {
		b.WriteString("; alone")
		for _, op := range slices.Sorted(maps.Keys(st.PerOp)) {
			r := st.PerOp[op]
			fmt.Fprintf(&b, " %s %.0f ops/s", op, r.AchievedRate)
			if r.Errors > 0 {
				fmt.Fprintf(&b, " (%.0f ok)", r.Goodput())
			}
		}
	}
	return b.String()
}
