package report

import (
	"html"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/soakd/soakd/rundir"
)

// honestPhase is a steady phase of 10.307 s at 12,300 ops/s whose ops
// stopped from +4 s to +8 s (a gap of 4 buckets), whose buckets at +2 s and +8 s
// failed every op, and whose last bucket covers 0.307 s (3,770 ops).
func honestPhase() (*rundir.PhaseResult, *Timeline) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var pts []TimePoint
	for i := 0; i <= 10; i++ {
		if i >= 4 && i < 8 {
			continue
		}
		tp := TimePoint{At: start.Add(time.Duration(i) * time.Second), Count: 12300, P50: 1e-4, P99: 1e-3}
		if i == 8 {
			tp.Errors, tp.P99 = tp.Count, 5e-7 // the server died: fast failures
		}
		if i == 2 {
			tp.Errors = tp.Count
		}
		if i == 10 {
			tp.Count = 3770
		}
		pts = append(pts, tp)
	}
	p := &rundir.PhaseResult{Name: "steady", Kind: "steady", Start: start, End: start.Add(10307 * time.Millisecond),
		Result: rundir.Result{TargetRate: 12300}}
	tl := &Timeline{Width: map[string]time.Duration{"steady": time.Second}, Phases: map[string]map[string][]TimePoint{"steady": {"get": pts}}}
	return p, tl
}

// TestTimelineHonest: buckets are drawn at their middle, the last
// partial bucket is its ops over its own 0.307 s (12.3k/s, not 3.8k/s),
// a bucket of failed ops has no latency point, and the 4 s without ops
// breaks both lines instead of bridging them.
func TestTimelineHonest(t *testing.T) {
	p, tl := honestPhase()
	pls := timelinePlots(p, tl)
	if len(pls) != 2 {
		t.Fatalf("%d charts, want throughput and get's latency", len(pls))
	}
	thr, lat := pls[0].Series[0], pls[1].Series[0]
	if thr.Points[0].X != 0.5 || lat.Points[0].X != 0.5 {
		t.Errorf("first bucket drawn at %v and %v, want its middle 0.5 s", thr.Points[0].X, lat.Points[0].X)
	}
	last := thr.Points[len(thr.Points)-1]
	if math.Abs(last.Y-3770/0.307) > 1 || last.X != 10.1535 {
		t.Errorf("last bucket %+v: want 3770 ops / 0.307 s = 12280/s at 10.1535 s", last)
	}
	for _, pt := range lat.Points {
		if pt.X == 8.5 {
			t.Errorf("the bucket of failed ops has a latency point %+v", pt)
		}
	}
	if len(thr.Points) != 7 || len(lat.Points) != 5 {
		t.Errorf("%d throughput and %d latency points, want 7 and 5", len(thr.Points), len(lat.Points))
	}
	if n := len(thr.segments()); n != 2 {
		t.Errorf("throughput drawn as %d lines, want 2 (broken at the 4 s gap)", n)
	}
	if n := len(lat.segments()); n != 3 {
		t.Errorf("latency drawn as %d lines, want 3 (broken at the failed bucket at +2 s and at the gap)", n)
	}
	if svg := SVGPlot(pls[0]); strings.Count(svg, `<polyline class="series"`) < 2 {
		t.Errorf("throughput svg does not break its line:\n%s", svg)
	}
}

// TestSegments: a step wider than MaxGap starts a new line; no MaxGap,
// one line.
func TestSegments(t *testing.T) {
	s := Series{Points: []Point{{X: 0}, {X: 1}, {X: 2}, {X: 10}, {X: 11}}}
	if n := len(s.segments()); n != 1 {
		t.Errorf("without MaxGap: %d segments", n)
	}
	s.MaxGap = 2.5
	segs := s.segments()
	if len(segs) != 2 || len(segs[0]) != 3 || len(segs[1]) != 2 {
		t.Errorf("segments %+v", segs)
	}
}

// TestClosedLoopStagesHaveNoTarget: closed-loop growth stages draw no
// target line at 0.
func TestClosedLoopStagesHaveNoTarget(t *testing.T) {
	p := &rundir.PhaseResult{Name: "g", Kind: "growth", Stages: []rundir.StageResult{
		{Name: "stage-1", Records: 1000, Result: rundir.Result{AchievedRate: 900}},
		{Name: "stage-2", Records: 2000, Result: rundir.Result{AchievedRate: 800}}}}
	for _, pl := range stagePlots(p, true) {
		for _, s := range pl.Series {
			if s.Name == "target" {
				t.Errorf("%q draws a target series %+v", pl.Title, s.Points)
			}
		}
	}
}

// TestCapacityHonest: the curve is on a log x axis; the p99 chart has
// the probes' SLO limit; failed probes say which check failed and are
// drawn as crosses with a legend entry; a search that held nothing says
// why.
func TestCapacityHonest(t *testing.T) {
	c := &rundir.CapacityResult{HighestRateHeld: 0, Curve: []rundir.CapacityPoint{
		{Rate: 10, Achieved: 10, P99: map[string]float64{"get": 0.004}, Failed: []string{"get latency p99 4.00ms > 2.00ms"}},
		{Rate: 1, Achieved: 1, P99: map[string]float64{"get": 0.003}, Failed: []string{"get latency p99 3.00ms > 2.00ms"}},
	}}
	p := &rundir.PhaseResult{Name: "cap", Kind: "capacity", Capacity: c}
	notes, plots := capacitySection(p)
	why := "no rate held: even the lowest probe, 1 ops/s, did not hold: it failed get latency p99 3.00ms > 2.00ms"
	if !strings.Contains(strings.Join(notes, "\n"), why) {
		t.Errorf("notes %q lack %q", notes, why)
	}
	var b strings.Builder
	writeCapacity(&b, p)
	if !strings.Contains(b.String(), why) {
		t.Errorf("summary.txt lacks the reason:\n%s", b.String())
	}
	sum := &rundir.Summary{Scenario: "s", Phases: []rundir.PhaseResult{*p},
		SLO: rundir.Verdict{Checks: []rundir.Check{{Phase: "cap", What: "highest_rate_held", Metric: rundir.HighestRateHeld, Cmp: ">"}}}}
	var hb strings.Builder
	writeHeader(&hb, sum, ReportData{})
	if !strings.Contains(hb.String(), "failed: phase cap: "+html.EscapeString(why)) {
		t.Errorf("header's failed check does not say why:\n%s", hb.String())
	}
	for _, pl := range plots {
		if !pl.XLog {
			t.Errorf("%q: linear x", pl.Title)
		}
		svg := SVGPlot(pl)
		if !strings.Contains(svg, `class="failed-mark"`) || !strings.Contains(svg, ">failed (did not hold)</text>") {
			t.Errorf("%q: failed probes not drawn as crosses with a legend entry", pl.Title)
		}
	}
	lat := plots[1]
	if len(lat.Targets) != 1 || lat.Targets[0].Y != 0.002 {
		t.Errorf("p99 chart SLO lines %+v, want get's 2ms", lat.Targets)
	}
}

// TestSweepLatencyHasSLO: a sweep's latency chart draws the phase's p99
// limit.
func TestSweepLatencyHasSLO(t *testing.T) {
	p := &rundir.PhaseResult{Name: "sw", Kind: "sweep",
		Result: rundir.Result{Ops: map[string]rundir.OpResult{"get": {Count: 10}}},
		SLO:    &rundir.Verdict{Checks: []rundir.Check{{Op: "get", What: "latency p99", Metric: rundir.Latency, Percentile: 99, Cmp: "<=", Limit: 0.005}}},
		Sweep: &rundir.SweepResult{Points: []rundir.SweepPoint{
			{Label: "a", X: 1, AchievedOpsPerSec: 100, Ops: map[string]rundir.SweepOp{"get": {Count: 10, P50: 1e-3, P99: 2e-3}}},
			{Label: "b", X: 2, AchievedOpsPerSec: 200, Ops: map[string]rundir.SweepOp{"get": {Count: 10, P50: 1e-3, P99: 3e-3}}}}}}
	_, plots := sweepSection(p)
	found := false
	for _, pl := range plots {
		if isLatency(pl.YLabel) {
			found = len(pl.Targets) == 1 && pl.Targets[0].Y == 0.005
		}
	}
	if !found {
		t.Errorf("sweep latency chart lacks the SLO line: %+v", plots)
	}
}

// TestMarksLabelled: each dashed vertical carries its label as text,
// not only as a tooltip; marks closer than markGap keep the tooltip.
func TestMarksLabelled(t *testing.T) {
	pl := Plot{Title: "t", XLabel: "seconds since phase start", YLabel: "ops/s",
		Series: []Series{{Name: "get", Points: []Point{{X: 0, Y: 1}, {X: 100, Y: 1}}}},
		Marks:  []Point{{X: 20, Label: "stage-2"}, {X: 20.1, Label: "stage-2b"}, {X: 60, Label: "rate changed live -> 500 ops/s"}}}
	svg := SVGPlot(pl)
	if n := strings.Count(svg, `class="mark-label"`); n != 2 {
		t.Errorf("%d mark labels, want 2", n)
	}
	if !strings.Contains(svg, ">stage-2</text>") || !strings.Contains(svg, ">rate changed live -&gt; 500 ops/s</text>") {
		t.Errorf("mark labels missing")
	}
}

// TestLiveRateChangeIsNoChangePoint: the user's own rate change (300 ->
// 600 ops/s at +30 s) is not reported as a change point of the rate.
func TestLiveRateChangeIsNoChangePoint(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var pts []TimePoint
	for i := 0; i < 60; i++ {
		n := int64(300 + i%3)
		if i >= 30 {
			n = 600 + int64(i%3)
		}
		pts = append(pts, TimePoint{At: start.Add(time.Duration(i) * time.Second), Count: n, P50: 1e-4, P99: 1e-3})
	}
	p := &rundir.PhaseResult{Name: "steady", Kind: "steady", Start: start, End: start.Add(time.Minute)}
	if cs := phaseChanges(p, map[string][]TimePoint{"get": pts}, nil, time.Second); len(cs) == 0 {
		t.Fatalf("the step is not found without a live change: the test says nothing")
	}
	p.RateChanges = []rundir.RateChange{{At: start.Add(30 * time.Second), OffsetSeconds: 30, Rate: 600, FromRate: 300}}
	for _, c := range phaseChanges(p, map[string][]TimePoint{"get": pts}, nil, time.Second) {
		if c.Metric == rundir.MetricRate {
			t.Errorf("the live rate change is reported as a change point: %s", ChangeLine(c))
		}
	}
}

// TestHeaderNamesVariantsAndScheduledRate: the header lists every
// persistence variant, and a phase changed live shows the rates
// scheduled (300 then 500 ops/s), not summary.json's time-weighted 420.
func TestHeaderNamesVariantsAndScheduledRate(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	s := &rundir.Summary{Scenario: "s", Status: rundir.StatusCompleted, Start: start, End: start.Add(time.Minute),
		Target: rundir.TargetInfo{Kind: "redis", Server: "redis 7.0.15, managed by soakd (persistence rdb:2)"},
		Phases: []rundir.PhaseResult{
			{Name: "grow[rdb:2]", Kind: "growth", Variant: "rdb:2"},
			{Name: "grow[aof:everysec]", Kind: "growth", Variant: "aof:everysec"},
			{Name: "steady", Kind: "steady", Start: start, End: start.Add(10 * time.Second), Result: rundir.Result{TargetRate: 420},
				RateChanges: []rundir.RateChange{{OffsetSeconds: 4, Rate: 500, FromRate: 300}}}}}
	var b strings.Builder
	writeHeader(&b, s, BuildReport(s, nil))
	h := b.String()
	for _, want := range []string{"rdb:2, aof:everysec", "300 to 500 ops/s", "changed live: steady +4s -&gt; 500 ops/s"} {
		if !strings.Contains(h, want) {
			t.Errorf("header lacks %q:\n%s", want, h)
		}
	}
	if strings.Contains(h, "420") || strings.Contains(h, "(persistence rdb:2)") {
		t.Errorf("header shows the time-weighted rate or one variant's persistence:\n%s", h)
	}
}

// TestErrorsJoinBuckets: counts.csv's failed ops land in the bucket
// their interval started in.
func TestErrorsJoinBuckets(t *testing.T) {
	p, tl := honestPhase()
	s := &rundir.Summary{Phases: []rundir.PhaseResult{*p}}
	at := p.Start.Add(9*time.Second + 200*time.Millisecond).UnixMilli()
	tl.addErrors([]rundir.IntervalCount{{Phase: "steady", Op: "get", StartMs: at, EndMs: at + 1000, Ops: 12300, Errors: 40},
		{Phase: "steady", Op: "set", StartMs: at, EndMs: at + 1000, Ops: 1, Errors: 1}}, s)
	for _, tp := range tl.Phases["steady"]["get"] {
		want := int64(0)
		switch tp.At.Sub(p.Start) {
		case 9 * time.Second:
			want = 40
		case 2 * time.Second, 8 * time.Second:
			want = tp.Count
		}
		if tp.Errors != want {
			t.Errorf("bucket +%s: %d errors, want %d", tp.At.Sub(p.Start), tp.Errors, want)
		}
	}
}

// TestPhaseVerdictWords: a phase's verdict in the contents list, and a
// bound phase's withheld verdict on the store.
func TestPhaseVerdictWords(t *testing.T) {
	pass := &rundir.Verdict{Passed: true, Checks: []rundir.Check{{What: "error_ratio", Passed: true}}}
	for _, c := range []struct {
		p         rundir.PhaseResult
		want, cls string
	}{
		{rundir.PhaseResult{}, "no SLO", "none"},
		{rundir.PhaseResult{SLO: pass}, "SLO passed", "pass"},
		{rundir.PhaseResult{SLO: &rundir.Verdict{Checks: []rundir.Check{{What: "error_ratio", Cmp: "<=", Limit: 0.01, Actual: 0.2}}}}, "SLO failed: error_ratio", "fail"},
		{rundir.PhaseResult{SLO: pass, Self: &rundir.SelfHealth{Bound: "host"}}, "SLO passed; no verdict on the store: host-bound", "none"},
	} {
		v, cls := phaseVerdict(&c.p)
		if !strings.HasPrefix(v, c.want) || cls != c.cls {
			t.Errorf("verdict %q (%s), want %q (%s)", v, cls, c.want, c.cls)
		}
	}
}

// TestNoSeriesHides: series drawn on top of each other get narrower
// lines and smaller markers, so the ones under them show at the edges.
func TestNoSeriesHides(t *testing.T) {
	pl := Plot{Title: "rate per stage", XLabel: "stage", YLabel: "ops/s",
		Series: []Series{flat("target", 1000), flat("achieved", 1000), flat("goodput", 1000)}}
	svg := SVGPlot(pl)
	for i, w := range []string{`stroke-width="4"`, `stroke-width="3"`, `stroke-width="2"`} {
		if !strings.Contains(svg, `stroke="`+palette[i]+`" `+w) {
			t.Errorf("series %d is not drawn %s", i, w)
		}
	}
	for i := 1; i < 3; i++ {
		if markerScale(i) >= markerScale(i-1) || seriesWidth(i) >= seriesWidth(i-1) {
			t.Errorf("series %d is not drawn smaller than series %d", i, i-1)
		}
	}
}
