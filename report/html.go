package report

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
)

// Point is one plotted value.
type Point struct {
	X     float64 `json:"x"`
	Y     float64 `json:"y"`
	Label string  `json:"label,omitempty"`
	// Lo and Hi, when Hi > Lo, are Y's interval: drawn as an error bar.
	Lo float64 `json:"lo,omitempty"`
	Hi float64 `json:"hi,omitempty"`
}

// Series is one line of a plot.
type Series struct {
	Name   string  `json:"name"`
	Points []Point `json:"points"`
}

// Plot is one chart: what report.html draws, kept as data so it can be
// tested apart from the SVG.
type Plot struct {
	Title  string  `json:"title"`
	XLabel string  `json:"x_label"`
	YLabel string  `json:"y_label"`
	XTicks []Point `json:"x_ticks,omitempty"` // fixed labelled ticks (spectrum)
	Marks  []Point `json:"marks,omitempty"`   // labelled vertical lines (stage starts)
	// Cliffs are labelled vertical lines at a growth phase's cliff stage,
	// drawn solid on every per-stage chart; Y is the line's colour (the
	// variant's place in a comparison, an index into cliffPalette).
	Cliffs []Point `json:"cliffs,omitempty"`
	// Targets are labelled horizontal lines at Y (the target rate).
	Targets []Point `json:"targets,omitempty"`
	// Spans are shaded x ranges (BGSAVE and AOF rewrite periods on the
	// latency-over-time chart).
	Spans []Span `json:"spans,omitempty"`
	// Shades are shaded x ranges drawn green (the warmup).
	Shades []Span   `json:"shades,omitempty"`
	Series []Series `json:"series"`
}

// Span is a labelled x range, shaded.
type Span struct {
	From  float64 `json:"from"`
	To    float64 `json:"to"`
	Label string  `json:"label"`
}

// PhasePlots are the plots of one phase.
type PhasePlots struct {
	Phase string   `json:"phase"`
	Kind  string   `json:"kind"`
	Notes []string `json:"notes,omitempty"`
	Plots []Plot   `json:"plots"`
}

// ReportData is everything report.html shows, from summary.json alone.
type ReportData struct {
	Scenario string       `json:"scenario"`
	Target   string       `json:"target"`
	Memory   string       `json:"memory_limits,omitempty"` // what caps the server's memory, one line
	Status   string       `json:"status"`
	SLO      bool         `json:"slo_passed"`
	Phases   []PhasePlots `json:"phases"`
}

// spectrum x positions: "nines" (-log10(1-p)); p0 (the minimum) one
// step left of p50 (its nines, 0, would crowd p50's 0.3), max one step
// past p99.99.
var spectrumTicks = []Point{{X: nines(50) - 1, Label: "p0"}, {X: nines(50), Label: "p50"}, {X: nines(90), Label: "p90"}, {X: nines(99), Label: "p99"}, {X: nines(99.9), Label: "p99.9"}, {X: nines(99.99), Label: "p99.99"}, {X: 5, Label: "max"}}

func nines(p float64) float64 { return math.Round(-math.Log10(1-p/100)*1e6) / 1e6 }

// BuildReport turns a summary into plot data; tl (nil when the run
// directory has no latency.hlog) adds each phase's latency over time.
func BuildReport(s *rundir.Summary, tl *Timeline) ReportData {
	rd := ReportData{Scenario: s.Scenario, Target: s.Target.Kind, Status: s.Status, SLO: s.SLO.Passed}
	if s.Target.Note != "" {
		rd.Target += " (" + s.Target.Note + ")"
	}
	rd.Memory = s.Target.MemoryLimits.String()
	for _, p := range s.Phases {
		pp := PhasePlots{Phase: p.Name, Kind: string(p.Kind)}
		if s.Partial {
			pp.Kind = partialKind(p.Kind)
			pp.Notes = append(pp.Notes, "read back from "+rundir.PartialLog+": errors, drops, lag and target rate unknown")
		}
		if tl != nil {
			pp.Plots = append(pp.Plots, timelinePlots(&p, tl)...)
		}
		if l := overTimeLine(&p); l != "" {
			pp.Notes = append(pp.Notes, l)
		}
		if l := rateChangesLine(p.RateChanges); l != "" {
			pp.Notes = append(pp.Notes, l)
		}
		ops := sortedKeys(p.Ops)
		// Percentile spectrum per op, from the phase's latency summary.
		spec := Plot{Title: "latency percentile spectrum (from intended start)", XLabel: "percentile", YLabel: "latency (s)", XTicks: spectrumTicks}
		for _, op := range ops {
			l := p.Ops[op].Latency
			if p.Ops[op].Count == 0 {
				continue
			}
			ys := []float64{l.Min, l.P50, l.P90, l.P99, l.P999, l.P9999, l.Max}
			sr := Series{Name: op}
			for i, y := range ys {
				sr.Points = append(sr.Points, Point{X: spectrumTicks[i].X, Y: y})
			}
			spec.Series = append(spec.Series, sr)
		}
		spec.Targets = specTargets(&p, ops)
		if sw := p.Sweep; sw != nil && len(sw.Points) > 0 {
			pp.Plots = append(pp.Plots, sweepPlots(sw)...)
		}
		if len(p.Stages) > 0 && p.Capacity == nil && p.Sweep == nil { // capacity and sweep phases show their curves instead
			byRecords := p.Kind == scenarios.PhaseGrowth
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
			lat.Series = p50p99Series(sortedKeys(stageOps), len(p.Stages), func(i int, op string) (float64, float64, bool) {
				o, ok := p.Stages[i].Ops[op]
				return o.Latency.P50, o.Latency.P99, ok && o.Count > 0
			}, func(i int) Point { return Point{X: x(i, p.Stages[i]), Label: p.Stages[i].Name} })
			rate := Plot{Title: "achieved rate per stage", XLabel: xl, YLabel: "ops/s"}
			tr, ar, gr := Series{Name: "target"}, Series{Name: "achieved"}, Series{Name: "goodput"}
			lr := Series{Name: "batch insert"}
			for i, st := range p.Stages {
				tr.Points = append(tr.Points, Point{X: x(i, st), Y: st.TargetRate, Label: st.Name})
				ar.Points = append(ar.Points, Point{X: x(i, st), Y: round6(st.AchievedRate), Label: st.Name})
				gr.Points = append(gr.Points, Point{X: x(i, st), Y: round6(st.Goodput()), Label: st.Name})
				if st.Load != nil {
					lr.Points = append(lr.Points, Point{X: x(i, st), Y: round6(st.Load.AchievedRate), Label: st.Name})
				}
			}
			rate.Series = append(rate.Series, tr, ar, gr)
			pp.Plots = append(pp.Plots, lat, rate)
			if len(lr.Points) > 0 {
				pp.Plots = append(pp.Plots, Plot{Title: "batch insert rate per stage", XLabel: xl, YLabel: "ops/s", Series: []Series{lr}})
			}
			if mp := missPlot(p.Stages, xl, x, ""); len(mp.Series) > 0 {
				pp.Plots = append(pp.Plots, mp)
			}
			if tp := perOpPlot(p.Stages, x); len(tp.Series) > 0 {
				pp.Plots = append(pp.Plots, tp)
			}
			if mp := memoryPlot(p.Stages, "memory per stage", x); len(mp.Series) > 0 {
				pp.Plots = append(pp.Plots, mp)
			}
			if cm := cliffMarks(&p, x, ""); cm != nil {
				for i := range pp.Plots {
					if pp.Plots[i].XLabel == xl {
						pp.Plots[i].Cliffs = cm
					}
				}
			}
		}
		if c := p.Capacity; c != nil {
			pp.Notes = append(pp.Notes, fmt.Sprintf("highest rate held: %.0f ops/s", c.HighestRateHeld))
			if n := confirmationNote(c.Confirmation); n != "" {
				pp.Notes = append(pp.Notes, n)
			}
			curve := append([]rundir.CapacityPoint(nil), c.Curve...)
			sort.SliceStable(curve, func(i, j int) bool { return curve[i].Rate < curve[j].Rate })
			ach := Plot{Title: "capacity curve: achieved vs target rate", XLabel: "target rate (ops/s)", YLabel: "achieved (ops/s)"}
			sa, sg := Series{Name: "achieved"}, Series{Name: "goodput"}
			hasGood := false // summaries written before goodput have none
			for _, pt := range curve {
				hasGood = hasGood || pt.Goodput > 0
				lbl := "held"
				if !pt.Passed {
					lbl = "failed"
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
			lat := Plot{Title: "capacity curve: p99 vs target rate", XLabel: "target rate (ops/s)", YLabel: "p99 (s)"}
			curveOps := map[string]bool{}
			for _, pt := range curve {
				for op := range pt.P99 {
					curveOps[op] = true
				}
			}
			for _, op := range sortedKeys(curveOps) {
				sr := Series{Name: op + " p99"}
				for _, pt := range curve {
					if v, ok := pt.P99[op]; ok {
						sr.Points = append(sr.Points, Point{X: pt.Rate, Y: v})
					}
				}
				lat.Series = append(lat.Series, sr)
			}
			pp.Plots = append(pp.Plots, ach, lat)
		}
		if c := p.Cliff; c != nil {
			n := fmt.Sprintf("cliff at %s (%d records, used_memory %.0f bytes): %s", c.Stage, c.Records, c.UsedMemoryBytes, c.Reason)
			if c.Op != "" {
				n += " " + c.Op
			}
			for _, e := range c.Evidence {
				n += "; " + CliffText(e)
			}
			if len(c.Signals) > 0 {
				n += "; server: " + strings.Join(c.Signals, "; ")
			}
			pp.Notes = append(pp.Notes, n)
		} else if p.Kind == scenarios.PhaseGrowth {
			pp.Notes = append(pp.Notes, fmt.Sprintf("no cliff in %d stages", len(p.Stages)))
		}
		if len(spec.Series) > 0 {
			pp.Plots = append(pp.Plots, spec)
		}
		pp.Notes = append(pp.Notes, goodputNote(p.Result))
		rd.Phases = append(rd.Phases, pp)
	}
	rd.Phases = withVariantComparison(s, rd.Phases)
	return rd
}

// SweepChartTitle starts the title of a sweep's cross-point chart.
const SweepChartTitle = "sweep: throughput per point"

// sweepPlots draws a sweep's points: throughput (the achieved rate; a
// capacity sweep's highest rate held) against what the sweep varies,
// and each op's p50 and p99, on the sweep's axis.
func sweepPlots(sw *rundir.SweepResult) []Plot {
	// Points on the sweep's axis (rates, workers, field bytes, one op's
	// percentage); without one, evenly spaced and labelled.
	xl := sw.Axis
	x := func(i int, pt rundir.SweepPoint) float64 { return pt.X }
	var ticks []Point
	if xl == "" {
		xl = "point"
		x = func(i int, _ rundir.SweepPoint) float64 { return float64(i + 1) }
		for i, pt := range sw.Points {
			ticks = append(ticks, Point{X: x(i, pt), Label: pt.Label})
		}
	}
	what, name := "achieved ops/s", "achieved"
	if sw.Measure == scenarios.MeasureCapacity {
		what, name = "highest rate held (ops/s)", "highest rate held"
	}
	vs := sw.Axis
	if vs == "" {
		vs = string(sw.Over)
	}
	tp := Plot{Title: fmt.Sprintf("%s (%s) vs %s", SweepChartTitle, what, vs), XLabel: xl, YLabel: "ops/s", XTicks: ticks}
	sr := Series{Name: name}
	for i, pt := range sw.Points {
		sr.Points = append(sr.Points, Point{X: x(i, pt), Y: round6(pt.AchievedOpsPerSec), Label: pt.Label})
	}
	tp.Series = append(tp.Series, sr)
	lat := Plot{Title: fmt.Sprintf("sweep: latency per point (from intended start) vs %s", vs), XLabel: xl, YLabel: "latency (s)", XTicks: ticks}
	ops := map[string]bool{}
	for _, pt := range sw.Points {
		for op, o := range pt.Ops {
			if o.Count > 0 {
				ops[op] = true
			}
		}
	}
	lat.Series = p50p99Series(sortedKeys(ops), len(sw.Points), func(i int, op string) (float64, float64, bool) {
		o, ok := sw.Points[i].Ops[op]
		return o.P50, o.P99, ok && o.Count > 0
	}, func(i int) Point { return Point{X: x(i, sw.Points[i]), Label: sw.Points[i].Label} })
	return []Plot{tp, lat}
}

// p50p99Series draws a p50 and a p99 series for each op across n points
// (a phase's stages, a sweep's points): at gives point i's figures for
// op (ok false when it ran none of that op, so the point is left out),
// at0 its x and label.
func p50p99Series(ops []string, n int, at func(i int, op string) (p50, p99 float64, ok bool), at0 func(i int) Point) []Series {
	var out []Series
	for _, op := range ops {
		for _, q := range []string{"p50", "p99"} {
			sr := Series{Name: op + " " + q}
			for i := 0; i < n; i++ {
				p50, p99, ok := at(i, op)
				if !ok {
					continue
				}
				pt := at0(i)
				pt.Y = p99
				if q == "p50" {
					pt.Y = p50
				}
				sr.Points = append(sr.Points, pt)
			}
			out = append(out, sr)
		}
	}
	return out
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
	for _, op := range sortedKeys(missed) {
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
	for _, op := range sortedKeys(ops) {
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
		for _, op := range sortedKeys(ops) {
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
		for _, op := range sortedKeys(perOps) {
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

func round6(v float64) float64 { return math.Round(v*1e6) / 1e6 }
