package report

import (
	"strings"
	"testing"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
)

// TestSweepChartAndP0: a sweep phase gets the cross-point throughput
// chart (points without an axis in sweep order, labelled; with one at
// their x; y = achieved ops/s, a capacity sweep's y = highest rate held) instead of the per-stage charts, and
// every spectrum starts at p0 = the op's minimum.
func TestSweepChartAndP0(t *testing.T) {
	held := 700.0
	lat := metrics.Summary{Min: 0.0001, P50: 0.001, P90: 0.002, P99: 0.003, P999: 0.004, P9999: 0.005, Max: 0.006}
	s := &rundir.Summary{Phases: []rundir.PhaseResult{
		{Name: "sw", Kind: scenarios.PhaseSweep,
			Result: rundir.Result{Ops: map[string]rundir.OpResult{"read": {Count: 10, Latency: lat}}},
			Stages: []rundir.StageResult{{Name: "update-0"}, {Name: "update-10"}},
			Sweep: &rundir.SweepResult{Over: scenarios.SweepMix, Measure: scenarios.MeasureClosed, Points: []rundir.SweepPoint{
				{Label: "update-0", AchievedOpsPerSec: 1500, Ops: map[string]rundir.SweepOp{"read": {Count: 5, P50: 0.001, P99: 0.002}}},
				{Label: "update-10", AchievedOpsPerSec: 1200, Ops: map[string]rundir.SweepOp{"read": {Count: 5, P50: 0.001, P99: 0.004}}},
			}}},
		{Name: "cap", Kind: scenarios.PhaseSweep, Sweep: &rundir.SweepResult{Over: scenarios.SweepConcurrency, Measure: scenarios.MeasureCapacity,
			Axis: "workers (connections)", Points: []rundir.SweepPoint{{Label: "concurrency-8", X: 8, Concurrency: 8, AchievedOpsPerSec: held, HighestRateHeld: &held}}}},
	}}
	rd := BuildReport(s, nil)
	plots := rd.Phases[0].Plots
	var titles []string
	for _, p := range plots {
		titles = append(titles, p.Title)
	}
	if len(plots) != 3 || !strings.HasPrefix(plots[0].Title, SweepChartTitle+" (achieved ops/s) vs mix") {
		t.Fatalf("sweep phase plots %q", titles)
	}
	tp := plots[0]
	if pts := tp.Series[0].Points; len(pts) != 2 || pts[0].Y != 1500 || pts[1].Y != 1200 || pts[0].X >= pts[1].X || tp.XTicks[1].Label != "update-10" {
		t.Errorf("throughput chart %+v", tp)
	}
	if p := plots[1].Series[1]; p.Name != "read p99" || p.Points[1].Y != 0.004 {
		t.Errorf("latency chart series %+v", p)
	}
	spec := plots[2]
	if spec.XTicks[0].Label != "p0" || spec.Series[0].Points[0].Y != 0.0001 || spec.Series[0].Points[0].X >= spec.Series[0].Points[1].X {
		t.Errorf("spectrum does not start at p0 = min: %+v", spec)
	}
	cp := rd.Phases[1].Plots[0]
	if !strings.Contains(cp.Title, "highest rate held (ops/s)) vs workers (connections)") || len(cp.XTicks) != 0 || cp.Series[0].Points[0].X != 8 || cp.Series[0].Points[0].Y != 700 {
		t.Errorf("capacity sweep chart %+v", cp)
	}
	if txt := Text(s); !strings.Contains(txt, "p0") || !strings.Contains(txt, "concurrency-8") || !strings.Contains(txt, "700 ops/s") {
		t.Errorf("text lacks p0 or the capacity sweep table:\n%s", txt)
	}
}
