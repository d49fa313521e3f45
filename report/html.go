package report

import (
	"fmt"
	"html"
	"math"
	"sort"
	"strconv"
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
	// drawn solid red on every per-stage chart.
	Cliffs []Point `json:"cliffs,omitempty"`
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

// spanColours shade persistence periods by kind.
var spanColours = map[string]string{"bgsave": "#ff9900", "aof_rewrite": "#9933cc"}

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
		var cliffs []Point
		for _, p := range g.ps {
			cliffs = append(cliffs, cliffMarks(p, recs, p.Variant+" ")...)
		}
		for i := range cmp.Plots {
			cmp.Plots[i].Cliffs = cliffs
		}
		for _, p := range g.ps {
			if mp := memoryPlot(p.Stages, "memory per stage: "+p.Variant, recs); len(mp.Series) > 0 {
				mp.Cliffs = cliffMarks(p, recs, "")
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

var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"}

// pageHead opens every soakd HTML page.
const pageHead = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>soakd report</title><style>
body{font-family:sans-serif;margin:20px;color:#222}h1{font-size:20px}h2{font-size:17px;border-bottom:1px solid #ccc}
.plots{display:flex;flex-wrap:wrap;gap:12px}.note{background:#fff6d5;padding:4px 8px;margin:4px 0}
pre{background:#f6f6f6;padding:8px;overflow:auto;font-size:12px}svg text{font-size:11px}
</style></head><body>`

// ReportHTML renders one self-contained page (inline SVG, no scripts or
// external resources) for one or more runs; tls[i] (or nil) is run i's
// timeline.
func ReportHTML(sums []*rundir.Summary, tls []*Timeline) []byte {
	var b strings.Builder
	b.WriteString(pageHead)
	for i, s := range sums {
		var tl *Timeline
		if i < len(tls) {
			tl = tls[i]
		}
		rd := BuildReport(s, tl)
		verdict := VerdictLine(s.Status, s.StatusReason, s.SLO)
		fmt.Fprintf(&b, "<h1>soakd: %s</h1><p>target: %s &middot; status: %s &middot; %s</p>", html.EscapeString(rd.Scenario), html.EscapeString(rd.Target), html.EscapeString(rd.Status), html.EscapeString(verdict))
		if rd.Memory != "" {
			fmt.Fprintf(&b, "<p>memory limits: %s</p>", html.EscapeString(rd.Memory))
		}
		// Persistence variants of steady phases (the redis-benchmark
		// suite, AOF on and off) lead with their side-by-side table.
		if st := variantSuite(s); st != nil {
			writeSuiteSection(&b, *st)
		}
		for _, pp := range rd.Phases {
			fmt.Fprintf(&b, "<h2>phase %s (%s)</h2>", html.EscapeString(pp.Phase), html.EscapeString(pp.Kind))
			for _, n := range pp.Notes {
				fmt.Fprintf(&b, `<div class="note">%s</div>`, html.EscapeString(n))
			}
			b.WriteString(`<div class="plots">`)
			for _, pl := range pp.Plots {
				b.WriteString(SVGPlot(pl))
			}
			b.WriteString("</div>")
		}
		fmt.Fprintf(&b, "<details><summary>summary table</summary><pre>%s</pre></details>", html.EscapeString(Text(s)))
	}
	b.WriteString("</body></html>\n")
	return []byte(b.String())
}

// SVGPlot draws a line chart with points, axes and a legend.
func SVGPlot(p Plot) string {
	const w, h, ml, mr, mt, mb = 460.0, 300.0, 70.0, 130.0, 28.0, 42.0
	pw, ph := w-ml-mr, h-mt-mb
	xmin, xmax, ymax := math.Inf(1), math.Inf(-1), 0.0
	for _, s := range p.Series {
		for _, pt := range s.Points {
			xmin, xmax, ymax = math.Min(xmin, pt.X), math.Max(xmax, pt.X), math.Max(ymax, math.Max(pt.Y, pt.Hi))
		}
	}
	for _, t := range p.XTicks {
		xmin, xmax = math.Min(xmin, t.X), math.Max(xmax, t.X)
	}
	if math.IsInf(xmin, 0) {
		xmin, xmax = 0, 1
	}
	if xmax == xmin {
		xmin, xmax = xmin-1, xmax+1
	}
	if ymax <= 0 {
		ymax = 1
	}
	// Round ticks (1, 2 or 5 x 10^k) from 0 up to the first at or above
	// the data: the axis ends on a labelled round value.
	yticks := niceTicks(0, ymax, 5)
	ymax = yticks[len(yticks)-1]
	sx := func(x float64) float64 { return ml + (x-xmin)/(xmax-xmin)*pw }
	sy := func(y float64) float64 { return mt + ph - y/ymax*ph }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" role="img">`, w, h, w, h)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="#fff"/><text x="%.0f" y="16" font-weight="bold">%s</text>`, ml, html.EscapeString(p.Title))
	for _, sp := range p.Spans {
		from, to := math.Max(sp.From, xmin), math.Min(sp.To, xmax)
		if to < from {
			continue
		}
		col := spanColours[sp.Label]
		if col == "" {
			col = "#999999"
		}
		// At least 2 px wide, so a short job still shows.
		wd := math.Max(sx(to)-sx(from), 2)
		fmt.Fprintf(&b, `<rect class="span" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" fill-opacity="0.25"><title>%s %s-%s</title></rect>`,
			sx(from), mt, wd, ph, col, html.EscapeString(sp.Label), siNum(sp.From)+"s", siNum(sp.To)+"s")
	}
	fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#333"/><line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#333"/>`, ml, mt+ph, ml+pw, mt+ph, ml, mt, ml, mt+ph)
	for _, y := range yticks {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#eee"/><text x="%.1f" y="%.1f" text-anchor="end">%s</text>`, ml, sy(y), ml+pw, sy(y), ml-4, sy(y)+4, tickLabel(p.YLabel, y))
	}
	if len(p.XTicks) > 0 {
		for _, t := range p.XTicks {
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`, sx(t.X), mt+ph+14, html.EscapeString(t.Label))
		}
	} else {
		for _, x := range niceTicks(xmin, xmax, 5) {
			if x < xmin-1e-9*(xmax-xmin) || x > xmax+1e-9*(xmax-xmin) {
				continue
			}
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`, sx(x), mt+ph+14, tickLabel(p.XLabel, x))
		}
	}
	for _, sh := range p.Shades {
		from, to := math.Max(sh.From, xmin), math.Min(sh.To, xmax)
		if to <= from {
			continue
		}
		fmt.Fprintf(&b, `<rect class="shade" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="#c7e9c0" fill-opacity="0.6"><title>%s</title></rect><text x="%.1f" y="%.1f" fill="#666">%s</text>`,
			sx(from), mt, sx(to)-sx(from), ph, html.EscapeString(sh.Label), sx(from)+3, mt+11, html.EscapeString(sh.Label))
	}
	for _, m := range p.Marks {
		if m.X < xmin || m.X > xmax {
			continue
		}
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#999" stroke-dasharray="3,3"><title>%s</title></line>`, sx(m.X), mt, sx(m.X), mt+ph, html.EscapeString(m.Label))
	}
	for i, m := range p.Cliffs {
		if m.X < xmin || m.X > xmax {
			continue
		}
		fmt.Fprintf(&b, `<line class="cliff" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e00000" stroke-width="2"><title>%s</title></line>`, sx(m.X), mt, sx(m.X), mt+ph, html.EscapeString(m.Label))
		// The label on the side of the line with more room.
		tx, anchor := sx(m.X)+3, "start"
		if sx(m.X) > ml+pw/2 {
			tx, anchor = sx(m.X)-3, "end"
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" fill="#e00000" text-anchor="%s">%s</text>`, tx, mt+10+float64(i)*12, anchor, html.EscapeString(m.Label))
	}
	fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`, ml+pw/2, h-8, html.EscapeString(p.XLabel))
	fmt.Fprintf(&b, `<text x="14" y="%.1f" text-anchor="middle" transform="rotate(-90 14 %.1f)">%s</text>`, mt+ph/2, mt+ph/2, html.EscapeString(p.YLabel))
	for i, s := range p.Series {
		col := palette[i%len(palette)]
		var pts []string
		for _, pt := range s.Points {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", sx(pt.X), sy(pt.Y)))
		}
		if len(pts) > 1 {
			fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="1.6" points="%s"/>`, col, strings.Join(pts, " "))
		}
		for _, pt := range s.Points {
			if len(s.Points) > 60 {
				break // a time series: the line alone
			}
			if pt.Hi > pt.Lo {
				x := sx(pt.X)
				fmt.Fprintf(&b, `<path class="errbar" d="M%.1f,%.1fV%.1fM%.1f,%.1fH%.1fM%.1f,%.1fH%.1f" stroke="%s" fill="none"><title>%s %s: %s-%s</title></path>`,
					x, sy(pt.Lo), sy(pt.Hi), x-4, sy(pt.Lo), x+4, x-4, sy(pt.Hi), x+4, col, html.EscapeString(s.Name), html.EscapeString(pt.Label), axisLabel(p.YLabel, pt.Lo), axisLabel(p.YLabel, pt.Hi))
			}
			fill := col
			if pt.Label == "failed" {
				fill = "#fff"
			}
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s" stroke="%s"><title>%s %s: %s</title></circle>`, sx(pt.X), sy(pt.Y), fill, col, html.EscapeString(s.Name), html.EscapeString(pt.Label), axisLabel(p.YLabel, pt.Y))
		}
		ly := mt + 12 + float64(i)*15
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="10" height="10" fill="%s"/><text x="%.1f" y="%.1f">%s</text>`, ml+pw+10, ly-9, col, ml+pw+24, ly, html.EscapeString(s.Name))
	}
	// The shaded kinds' legend, under the series'.
	seen := map[string]bool{}
	n := len(p.Series)
	for _, sp := range p.Spans {
		if seen[sp.Label] {
			continue
		}
		seen[sp.Label] = true
		col := spanColours[sp.Label]
		if col == "" {
			col = "#999999"
		}
		ly := mt + 12 + float64(n)*15
		n++
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="10" height="10" fill="%s" fill-opacity="0.25"/><text x="%.1f" y="%.1f">%s</text>`, ml+pw+10, ly-9, col, ml+pw+24, ly, html.EscapeString(sp.Label))
	}
	b.WriteString("</svg>")
	return b.String()
}

// niceTicks returns about n round ticks (a step of 1, 2 or 5 x 10^k)
// from the last one at or below lo to the first at or above hi.
func niceTicks(lo, hi float64, n int) []float64 {
	if !(hi > lo) || n < 2 {
		return []float64{lo, hi}
	}
	raw := (hi - lo) / float64(n-1)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	// The round step whose tick count is closest to n (the finer on a tie).
	step, best := 10*mag, math.Inf(1)
	for _, m := range []float64{1, 2, 5, 10} {
		st := m * mag
		count := math.Ceil(hi/st-1e-9) - math.Floor(lo/st+1e-9) + 1
		if d := math.Abs(count - float64(n)); d < best {
			step, best = st, d
		}
	}
	first := math.Floor(lo/step) * step
	var out []float64
	for k := 0; k < 100; k++ {
		t := first + float64(k)*step
		// Snap away float noise (0.30000000000000004 -> 0.3).
		t = math.Round(t/step) * step
		out = append(out, t)
		if t >= hi-step*1e-9 {
			break
		}
	}
	return out
}

// tickLabel writes a round tick value compactly: "800ms", "1.5ms",
// "250us", "2s" for durations, "20k" or "1.5" otherwise.
func tickLabel(unit string, v float64) string {
	if !strings.Contains(unit, "(s)") {
		return siNum(v)
	}
	trim := func(x float64, suffix string) string {
		return strconv.FormatFloat(x, 'f', -1, 64) + suffix
	}
	a := math.Abs(v)
	switch {
	case a == 0:
		return "0"
	case a < 1e-3:
		return trim(math.Round(v*1e6*1000)/1000, "us")
	case a < 1:
		return trim(math.Round(v*1e3*1000)/1000, "ms")
	}
	return trim(math.Round(v*1000)/1000, "s")
}

func axisLabel(unit string, v float64) string {
	if strings.Contains(unit, "(s)") {
		return fmtDur(v)
	}
	return siNum(v)
}

func siNum(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e6:
		return fmt.Sprintf("%.3gM", v/1e6)
	case a >= 1e3:
		return fmt.Sprintf("%.3gk", v/1e3)
	}
	return fmt.Sprintf("%.3g", v)
}
