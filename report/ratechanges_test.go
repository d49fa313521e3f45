package report

import (
	"strings"
	"testing"
	"time"

	"github.com/soakd/soakd/rundir"
)

// A phase's live rate changes are printed, stage and offset included.
func TestTextShowsRateChanges(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	s := &rundir.Summary{Scenario: "s", Status: rundir.StatusCompleted, Start: start, End: start.Add(time.Minute),
		Phases: []rundir.PhaseResult{{Name: "steady", Kind: "steady", Start: start, End: start.Add(time.Minute),
			Result: rundir.Result{TargetRate: 300},
			RateChanges: []rundir.RateChange{{At: start.Add(12 * time.Second), OffsetSeconds: 12, Rate: 500},
				{At: start.Add(30 * time.Second), OffsetSeconds: 30.5, Stage: "step-2", Rate: 800}}}}}
	got := Text(s)
	if want := "rate changed live: +12.0s -> 500 ops/s, +30.5s (step-2) -> 800 ops/s"; !strings.Contains(got, want) {
		t.Errorf("text lacks %q:\n%s", want, got)
	}
}

// TestRateChangesDrawn: a phase whose rate was changed live at +4 s
// (300 -> 500 ops/s; 420 time-weighted) draws the target rate as 300
// then a step to 500 at +4 s on its
// throughput chart, marks the change on that chart and on each op's
// latency panel, and names it in the phase's notes in report.html.
func TestRateChangesDrawn(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var pts []TimePoint
	for i := 0; i < 10; i++ {
		n := int64(300)
		if i >= 4 {
			n = 500
		}
		pts = append(pts, TimePoint{At: start.Add(time.Duration(i) * time.Second), Count: n, P50: 1e-4, P99: 1e-3})
	}
	tl := &Timeline{Width: map[string]time.Duration{"steady": time.Second}, Phases: map[string]map[string][]TimePoint{"steady": {"get": pts}}}
	// summary.json's target_rate is the time-weighted 420 ops/s.
	p := rundir.PhaseResult{Name: "steady", Kind: "steady", Start: start, End: start.Add(10 * time.Second),
		Result:      rundir.Result{TargetRate: 420},
		RateChanges: []rundir.RateChange{{At: start.Add(4 * time.Second), OffsetSeconds: 4, Rate: 500, FromRate: 300}}}
	pls := timelinePlots(&p, tl)
	if len(pls) != 2 {
		t.Fatalf("%d charts, want throughput and get's latency", len(pls))
	}
	steps := pls[0].Series[len(pls[0].Series)-1]
	want := []Point{{X: 0, Y: 300}, {X: 4, Y: 300}, {X: 4, Y: 500}, {X: 10, Y: 500}}
	if steps.Name != "target rate" || len(steps.Points) != len(want) {
		t.Fatalf("target rate series %+v, want steps %+v", steps, want)
	}
	for i, w := range want {
		if steps.Points[i].X != w.X || steps.Points[i].Y != w.Y {
			t.Errorf("target step %d: %+v, want %+v", i, steps.Points[i], w)
		}
	}
	for _, pl := range pls {
		found := false
		for _, m := range pl.Marks {
			found = found || (m.X == 4 && m.Label == "rate changed live -> 500 ops/s")
		}
		if !found {
			t.Errorf("%q: marks %+v lack the rate change at +4s", pl.Title, pl.Marks)
		}
		if svg := SVGPlot(pl); !strings.Contains(svg, "<title>rate changed live -&gt; 500 ops/s</title>") {
			t.Errorf("%q: the rate change mark is not drawn", pl.Title)
		}
	}
	s := &rundir.Summary{Scenario: "s", Status: rundir.StatusCompleted, Start: start, End: p.End, Phases: []rundir.PhaseResult{p}}
	if h := string(ReportHTML([]*rundir.Summary{s}, []*Timeline{tl})); !strings.Contains(h, `<div class="note">rate changed live: +4.0s -&gt; 500 ops/s</div>`) {
		t.Errorf("report.html does not name the rate change in the phase's notes")
	}
}
