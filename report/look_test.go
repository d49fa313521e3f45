package report

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
)

// TestYAxisUnits: a latency axis names the unit its ticks are in (ms
// ticks under "latency (ms)", not "latency (s)"), and one spanning more
// than 1.5 decades is logarithmic with a tick per decade.
func TestYAxisUnits(t *testing.T) {
	ax := newYAxis("latency (s)", []float64{0.0005, 0.0012})
	var ticks []string
	for _, v := range ax.ticks {
		ticks = append(ticks, ax.tick(v))
	}
	if ax.log || ax.label != "latency (ms)" || strings.Join(ticks, " ") != "0 0.5 1 1.5" {
		t.Errorf("ms axis: log %v, label %q, ticks %v", ax.log, ax.label, ticks)
	}
	if ax := newYAxis("p99 (s)", []float64{0.0002, 0.0007}); ax.label != "p99 (us)" || ax.tick(0.0002) != "200" {
		t.Errorf("us axis: label %q, tick %q", ax.label, ax.tick(0.0002))
	}
	lg := newYAxis("latency (s)", []float64{0.0002, 0.003, 0.9})
	if !lg.log || lg.label != "latency (log scale)" || lg.lo != 0.0001 || lg.hi != 1 {
		t.Fatalf("log axis: %+v", lg)
	}
	if lg.frac(0.001) <= 0.2 || lg.frac(0.001) >= 0.3 || lg.tick(0.001) != "1ms" {
		t.Errorf("1ms sits at %.2f of a 100us..1s axis, labelled %q; want a quarter up, 1ms", lg.frac(0.001), lg.tick(0.001))
	}
	// Ratios and rates stay linear.
	if ax := newYAxis("ops/s", []float64{1, 100000}); ax.log {
		t.Errorf("an ops/s axis went logarithmic")
	}
}

// TestCliffLabelsNeverOverlap: five cliffs within a few pixels of each
// other get a row each, above the plot area and under the title, so no
// two labels share a line.
func TestCliffLabelsNeverOverlap(t *testing.T) {
	pl := Plot{Title: "p99 per stage", XLabel: "dataset (records)", YLabel: "latency (s)", Series: []Series{flat("get p99", 0.002)}}
	for i := 0; i < 5; i++ {
		pl.Cliffs = append(pl.Cliffs, Point{X: 3000 + float64(i), Y: float64(i), Label: "variant-" + strconv.Itoa(i) + " cliff stage-3: p99 get"})
	}
	svg := SVGPlot(pl)
	num := func(s string) float64 { v, _ := strconv.ParseFloat(s, 64); return v }
	var ys []float64
	for _, m := range regexp.MustCompile(`class="cliff-label" x="[0-9.]+" y="([0-9.]+)"`).FindAllStringSubmatch(svg, -1) {
		ys = append(ys, num(m[1]))
	}
	top := num(regexp.MustCompile(`class="cliff" x1="[0-9.]+" y1="([0-9.]+)"`).FindStringSubmatch(svg)[1])
	if len(ys) != 5 {
		t.Fatalf("%d cliff labels, want 5", len(ys))
	}
	const textH = 12 // px of a 12px label, baseline to cap height
	if ys[0]-textH < 18 {
		t.Errorf("first cliff label (baseline %.0f) runs into the title (baseline 18)", ys[0])
	}
	for i := 1; i < len(ys); i++ {
		if ys[i]-ys[i-1] < textH {
			t.Errorf("cliff labels %d and %d are %.0f px apart: they overlap", i-1, i, ys[i]-ys[i-1])
		}
	}
	if ys[4]+3 > top {
		t.Errorf("last cliff label (baseline %.0f) reaches into the plot area (top %.0f)", ys[4], top)
	}
	colours := map[string]bool{}
	for _, m := range regexp.MustCompile(`class="cliff-label" [^>]*fill="(#[0-9a-f]+)"`).FindAllStringSubmatch(svg, -1) {
		colours[m[1]] = true
	}
	if len(colours) != 5 {
		t.Errorf("five variants' cliffs in %d colours", len(colours))
	}
}

// TestReportHeader: the page's header names the target with its
// password redacted, the soakd version, the start, duration and rate,
// and each failed check with its phase; the spectrum draws the p99
// limit.
func TestReportHeader(t *testing.T) {
	start := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	p := rundir.PhaseResult{Name: "steady", Kind: scenarios.PhaseSteady, Start: start, End: start.Add(90 * time.Second)}
	p.TargetRate, p.AchievedRate = 2000, 1990
	p.Ops = map[string]rundir.OpResult{"get": {Count: 1000, Latency: metrics.Summary{P50: 1e-4, P99: 2e-3}}}
	s := &rundir.Summary{SchemaVersion: 1, Scenario: "soak", SoakdVersion: "v0.9.1", Start: start, End: start.Add(95 * time.Second), Status: rundir.StatusCompleted,
		Target: rundir.TargetInfo{Kind: "redis", URL: "redis://admin:hunter2@db.example:6379/0"}, Phases: []rundir.PhaseResult{p},
		SLO: rundir.Verdict{Checks: []rundir.Check{
			{Phase: "steady", Op: "get", What: "latency p99", Metric: rundir.Latency, Percentile: 99, Cmp: rundir.AtMost, Limit: 0.001, Actual: 0.002},
			{Phase: "steady", What: "achieved_ratio", Metric: rundir.AchievedRatio, Cmp: rundir.AtLeast, Limit: 0.9, Actual: 0.995, Passed: true},
		}}}
	s.Phases[0].SLO = &rundir.Verdict{Checks: s.SLO.Checks}
	h := string(ReportHTML([]*rundir.Summary{s}, nil))
	if strings.Contains(h, "hunter2") {
		t.Errorf("the report shows the target's password")
	}
	for _, want := range []string{"db.example:6379", "v0.9.1", "2026-12-01 10:00:00 UTC", "<td>1m35s</td>", "<td>2000 ops/s</td>", "SLO FAILED",
		"failed: phase steady: get latency p99 2.00ms &gt; 1.00ms", `class="target"`, "SLO get latency p99 &lt;= 1.00ms"} {
		if !strings.Contains(h, want) {
			t.Errorf("header lacks %q", want)
		}
	}
	if strings.Contains(h, "failed: phase steady: achieved_ratio") {
		t.Errorf("a passed check is listed as failed")
	}
}

// TestSuiteRunSummarised: a run of three tests, two persistence
// variants and six rounds (36 phases) shows one table and one chart,
// not 36 sections.
func TestSuiteRunSummarised(t *testing.T) {
	s := roundsSummary(map[string]float64{"same": 1, "double": 2, "half": 0.5})
	h := string(ReportHTML([]*rundir.Summary{s}, nil))
	if n := strings.Count(h, "<h2>phase "); n != 0 {
		t.Errorf("%d phase sections, want none: the table summarises them", n)
	}
	if n := strings.Count(h, `<svg `); n != 1 || !strings.Contains(h, `<pre class="suite">`) || !strings.Contains(h, "36 phases (variants and rounds) are summarised") {
		t.Errorf("%d charts; want the suite table and its one chart", n)
	}
	// Repeated rounds without variants are summarised too.
	var r rundir.Summary = *s
	r.Phases = nil
	for _, p := range s.Phases {
		if p.Variant == "none" {
			p.Variant = ""
			p.Name = strings.Replace(p.Name, "[none]", "", 1)
			r.Phases = append(r.Phases, p)
		}
	}
	if h := string(ReportHTML([]*rundir.Summary{&r}, nil)); strings.Count(h, "<h2>phase ") != 0 || !strings.Contains(h, `<pre class="suite">`) {
		t.Errorf("a run of repeated rounds is not summarised in one table")
	}
	t.Logf("%d bytes for 36 phases", len(h))
}

// TestThroughputTargetLines: a steady phase's throughput over time has
// its target rate as a line, a ramp's as a step series, an op's latency
// panel its SLO p99 limit; a per-op growth phase has no throughput over
// time at all (its ops run alone between fills).
func TestThroughputTargetLines(t *testing.T) {
	start := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	var pts []TimePoint
	for i := 0; i < 10; i++ {
		pts = append(pts, TimePoint{At: start.Add(time.Duration(i) * time.Second), Count: 1000, P50: 1e-4, P99: 1e-3})
	}
	tl := &Timeline{Width: map[string]time.Duration{"p": time.Second}, Phases: map[string]map[string][]TimePoint{"p": {"get": pts}}}
	p := rundir.PhaseResult{Name: "p", Kind: scenarios.PhaseSteady, Start: start, End: start.Add(10 * time.Second),
		SLO: &rundir.Verdict{Checks: []rundir.Check{{Phase: "p", Op: "get", What: "latency p99", Metric: rundir.Latency, Percentile: 99, Cmp: rundir.AtMost, Limit: 0.005}}}}
	p.TargetRate = 1000
	pls := timelinePlots(&p, tl)
	if len(pls) != 2 || len(pls[0].Targets) != 1 || pls[0].Targets[0].Y != 1000 || pls[0].Targets[0].Label != "target 1000 ops/s" {
		t.Fatalf("throughput over time: %+v", pls)
	}
	if tg := pls[1].Targets; len(tg) != 1 || tg[0].Y != 0.005 {
		t.Errorf("latency panel targets %+v, want the SLO p99 at 5ms", tg)
	}
	if !strings.Contains(SVGPlot(pls[0]), `class="target"`) {
		t.Errorf("the target line is not drawn")
	}
	ramp := p
	ramp.Stages = []rundir.StageResult{{Name: "s1", Start: start, Result: rundir.Result{TargetRate: 500}}, {Name: "s2", Start: start.Add(5 * time.Second), Result: rundir.Result{TargetRate: 1000}}}
	pls = timelinePlots(&ramp, tl)
	last := pls[0].Series[len(pls[0].Series)-1]
	if last.Name != "target rate" || len(last.Points) != 4 || last.Points[1] != (Point{X: 5, Y: 500}) || last.Points[3] != (Point{X: 10, Y: 1000}) {
		t.Errorf("ramp target steps %+v", last)
	}
	grow := p
	grow.Kind = scenarios.PhaseGrowth
	grow.Stages = []rundir.StageResult{{Name: "s1", Start: start, PerOp: map[string]*rundir.Result{"get": {AchievedRate: 40000}}}}
	for _, pl := range timelinePlots(&grow, tl) {
		if strings.HasPrefix(pl.Title, "throughput over time") {
			t.Errorf("a per-op growth phase draws %q", pl.Title)
		}
	}
}
