package report

import (
	"maps"
	"math"
	"slices"

	"github.com/soakd/soakd/rundir"
)

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
			over := timelinePlots(&p, tl)
			markSeams(over, &p, s.PhaseSeams(p.Name))
			pp.Plots = append(pp.Plots, over...)
		}
		if p.EndedEarly != nil {
			pp.Notes = append(pp.Notes, p.EndedEarly.String()+" (its figures are over what ran)")
		}
		if p.TickSeconds > 0 {
			pp.Notes = append(pp.Notes, "arrivals"+tickNote(p.TickSeconds)+": each tick's ops intended together at its start, so latency includes the wait behind the rest of the tick")
		}
		if l := overTimeLine(&p); l != "" {
			pp.Notes = append(pp.Notes, l)
		}
		if n := replayTargetNote(&p, tl); n != "" {
			pp.Notes = append(pp.Notes, n)
		}
		if l := rateChangesLine(p.RateChanges); l != "" {
			pp.Notes = append(pp.Notes, l)
		}
		pp.Notes = append(pp.Notes, selfNotes(p.Self)...)
		pp.Notes = append(pp.Notes, seamNotes(s, &p)...)
		ops := slices.Sorted(maps.Keys(p.Ops))
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
		notes, plots := kindSection(&p)
		pp.Notes = append(pp.Notes, notes...)
		pp.Plots = append(pp.Plots, plots...)
		if len(spec.Series) > 0 {
			pp.Plots = append(pp.Plots, spec)
		}
		pp.Notes = append(pp.Notes, goodputNote(p.Result))
		rd.Phases = append(rd.Phases, pp)
	}
	rd.Phases = withSideBySide(s, rd.Phases)
	return rd
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

func round6(v float64) float64 { return math.Round(v*1e6) / 1e6 }
