package report

// Growth phases: the cliff (summary.txt, the HTML notes and marks) and
// the side-by-side section of a growth phase's persistence variants.

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
)

// writeGrowth writes a growth phase's cliff, or that it had none.
func writeGrowth(b *strings.Builder, p *rundir.PhaseResult) {
	if c := p.Cliff; c != nil {
		what := CliffText(rundir.CliffEvidence{Reason: c.Reason, Op: c.Op, Value: c.Value, Baseline: c.Baseline})
		if len(c.Evidence) > 0 {
			what = CliffText(c.Evidence[0])
		}
		un := ""
		if c.Unconfirmed {
			un = " (unconfirmed: last stage)"
		}
		mem := "" // unknown: the server died before the stage's snapshot
		if c.UsedMemoryBytes > 0 {
			mem = fmt.Sprintf(", used_memory %.1f MB", c.UsedMemoryBytes/1e6)
		}
		fmt.Fprintf(b, "  CLIFF at %s (%d records%s): %s%s\n", c.Stage, c.Records, mem, what, un)
		for _, e := range c.Evidence[min(1, len(c.Evidence)):] {
			fmt.Fprintf(b, "    also: %s\n", CliffText(e))
		}
		if len(c.Signals) > 0 {
			fmt.Fprintf(b, "    server: %s\n", strings.Join(c.Signals, "; "))
		}
	} else {
		fmt.Fprintf(b, "  no cliff in %d stages\n", len(p.Stages))
	}
}

// growthSection is a growth phase's cliff as a note and its per-stage
// charts against the dataset size.
func growthSection(p *rundir.PhaseResult) (notes []string, plots []Plot) {
	notes = cliffNotes(p)
	if len(p.Stages) > 0 {
		plots = stagePlots(p, true)
	}
	return notes, plots
}

// cliffNotes is a growth phase's cliff as a note, or that none was
// found.
func cliffNotes(p *rundir.PhaseResult) []string {
	if c := p.Cliff; c != nil {
		mem := ""
		if c.UsedMemoryBytes > 0 {
			mem = fmt.Sprintf(", used_memory %.0f bytes", c.UsedMemoryBytes)
		}
		n := fmt.Sprintf("cliff at %s (%d records%s): %s", c.Stage, c.Records, mem, c.Reason)
		if c.Op != "" {
			n += " " + c.Op
		}
		for _, e := range c.Evidence {
			n += "; " + CliffText(e)
		}
		if len(c.Signals) > 0 {
			n += "; server: " + strings.Join(c.Signals, "; ")
		}
		return []string{n}
	}
	return []string{fmt.Sprintf("no cliff in %d stages", len(p.Stages))}
}

// cliffMarks is the mark of p's cliff on a per-stage chart whose x is
// x(stage index, stage); prefix names the variant in comparisons.
func cliffMarks(p *rundir.PhaseResult, x func(int, rundir.StageResult) float64, prefix string) []Point {
	c := p.Cliff
	if c == nil || c.StageIndex < 0 || c.StageIndex >= len(p.Stages) {
		return nil
	}
	lbl := prefix + "cliff " + c.Stage + ": " + c.Reason
	if c.Op != "" {
		lbl += " " + c.Op
	}
	if c.Unconfirmed {
		lbl += " (unconfirmed)"
	}
	return []Point{{X: x(c.StageIndex, p.Stages[c.StageIndex]), Label: lbl}}
}

// withVariantComparison puts, before the first of a growth phase's
// persistence variants, one section that draws the variants side by side
// against dataset size: each op's p99, the batch insert rate and the miss
// ratio, one line per variant, then each variant's memory chart (used
// memory, cgroup usage as page cache and anon, swap) next to the
// others'; each variant's cliff is a note and a mark on every chart.
func withVariantComparison(s *rundir.Summary, phases []PhasePlots) []PhasePlots {
	type group struct {
		first int
		ps    []*rundir.PhaseResult
	}
	groups := map[string]*group{}
	var order []string
	for i := range s.Phases {
		p := &s.Phases[i]
		if p.Kind != scenarios.PhaseGrowth || p.Variant == "" || len(p.Stages) == 0 {
			continue
		}
		base := strings.TrimSuffix(p.Name, "["+p.Variant+"]")
		g, ok := groups[base]
		if !ok {
			g = &group{first: i}
			groups[base] = g
			order = append(order, base)
		}
		g.ps = append(g.ps, p)
	}
	recs := func(_ int, st rundir.StageResult) float64 { return float64(st.Records) }
	const xl = "dataset (records)"
	var out []PhasePlots
	next := 0
	for _, base := range order {
		g := groups[base]
		if len(g.ps) < 2 {
			continue
		}
		cmp := PhasePlots{Phase: base + ": persistence variants side by side", Kind: "growth"}
		ops := map[string]bool{}
		for _, p := range g.ps {
			for _, st := range p.Stages {
				for op := range st.Ops {
					ops[op] = true
				}
			}
			if c := p.Cliff; c != nil {
				n := fmt.Sprintf("%s: cliff at %s (%d records): %s %s", p.Variant, c.Stage, c.Records, c.Reason, c.Op)
				if len(c.Signals) > 0 {
					// What the server was doing: page_cache, bgsave, swap
					// tell the variants apart.
					n = strings.TrimRight(n, " ") + "; server: " + strings.Join(c.Signals, "; ")
				}
				cmp.Notes = append(cmp.Notes, n)
			} else {
				cmp.Notes = append(cmp.Notes, fmt.Sprintf("%s: no cliff in %d stages", p.Variant, len(p.Stages)))
			}
		}
		for _, op := range slices.Sorted(maps.Keys(ops)) {
			pl := Plot{Title: op + " p99 per stage, by persistence", XLabel: xl, YLabel: "latency (s)"}
			for _, p := range g.ps {
				sr := Series{Name: p.Variant}
				for _, st := range p.Stages {
					if o, ok := st.Ops[op]; ok && o.Count > 0 {
						sr.Points = append(sr.Points, Point{X: float64(st.Records), Y: o.Latency.P99, Label: st.Name})
					}
				}
				pl.Series = append(pl.Series, sr)
			}
			cmp.Plots = append(cmp.Plots, pl)
		}
		perOps := map[string]bool{}
		for _, p := range g.ps {
			for _, st := range p.Stages {
				for op := range st.PerOp {
					perOps[op] = true
				}
			}
		}
		for _, op := range slices.Sorted(maps.Keys(perOps)) {
			tp := Plot{Title: op + " throughput per stage (alone, closed loop), by persistence", XLabel: xl, YLabel: "ops/s"}
			for _, p := range g.ps {
				sr := Series{Name: p.Variant}
				for _, st := range p.Stages {
					if r := st.PerOp[op]; r != nil {
						sr.Points = append(sr.Points, Point{X: float64(st.Records), Y: round6(r.AchievedRate), Label: st.Name})
					}
				}
				if len(sr.Points) > 0 {
					tp.Series = append(tp.Series, sr)
				}
			}
			if len(tp.Series) > 0 {
				cmp.Plots = append(cmp.Plots, tp)
			}
		}
		ins := Plot{Title: "batch insert rate per stage, by persistence", XLabel: xl, YLabel: "ops/s"}
		miss := Plot{Title: "miss ratio per stage, by persistence", XLabel: xl, YLabel: "misses / ops"}
		for _, p := range g.ps {
			sr := Series{Name: p.Variant}
			for _, st := range p.Stages {
				if st.Load != nil {
					sr.Points = append(sr.Points, Point{X: float64(st.Records), Y: round6(st.Load.AchievedRate), Label: st.Name})
				}
			}
			if len(sr.Points) > 0 {
				ins.Series = append(ins.Series, sr)
			}
			miss.Series = append(miss.Series, missPlot(p.Stages, xl, recs, p.Variant+" ").Series...)
		}
		if len(ins.Series) > 0 {
			cmp.Plots = append(cmp.Plots, ins)
		}
		if len(miss.Series) > 0 {
			cmp.Plots = append(cmp.Plots, miss)
		}
		// Each variant's cliff in its own colour, the same on every chart.
		var cliffs []Point
		variantCliff := func(vi int, p *rundir.PhaseResult, prefix string) []Point {
			cm := cliffMarks(p, recs, prefix)
			for i := range cm {
				cm[i].Y = float64(vi)
			}
			return cm
		}
		for vi, p := range g.ps {
			cliffs = append(cliffs, variantCliff(vi, p, p.Variant+" ")...)
		}
		for i := range cmp.Plots {
			cmp.Plots[i].Cliffs = cliffs
		}
		for vi, p := range g.ps {
			if mp := memoryPlot(p.Stages, "memory per stage: "+p.Variant, recs); len(mp.Series) > 0 {
				mp.Cliffs = variantCliff(vi, p, "")
				cmp.Plots = append(cmp.Plots, mp)
			}
		}
		out = append(out, phases[next:g.first]...)
		out = append(out, cmp)
		next = g.first
	}
	return append(out, phases[next:]...)
}
