package report

import (
	"strings"
	"testing"

	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
)

// TestTextGoodputAndOutcomes: summary.txt puts the goodput next to the
// achieved rate, names the errors by class and the misses, prints the
// capacity confirmation with its spread, and each piece of a cliff's
// evidence with the values it compared.
func TestTextGoodputAndOutcomes(t *testing.T) {
	next := 9800.0
	s := &rundir.Summary{Scenario: "t", Status: rundir.StatusCompleted, Phases: []rundir.PhaseResult{
		{Name: "steady", Kind: scenarios.PhaseSteady, Result: rundir.Result{TargetRate: 4000, AchievedRate: 3663.6, GoodputRate: 1942.1,
			DurationSeconds: 10, Completed: 36636, Errors: 17219, Misses: 4000, Ops: map[string]rundir.OpResult{
				"get": {Count: 30000, Misses: 4000, GoodputRate: 1400, Errors: map[string]int64{"timeout": 14000, "connection": 19}},
				"set": {Count: 6636, GoodputRate: 542.1, Errors: map[string]int64{"timeout": 3200}},
			}}},
		{Name: "cap", Kind: scenarios.PhaseCapacity, Capacity: &rundir.CapacityResult{HighestRateHeld: 3000,
			Curve: []rundir.CapacityPoint{{Rate: 3000, Achieved: 2999, Goodput: 2999, Passed: true}, {Rate: 3125, Achieved: 3100, Goodput: 3050},
				{Rate: 3000, Achieved: 3001, Goodput: 3001, Passed: true, Recheck: true}, {Rate: 3125, Achieved: 3090, Goodput: 3080, Recheck: true}},
			Confirmation: &rundir.CapacityConfirmation{Confirmed: true,
				Held: &rundir.CapacityRateRun{Rate: 3000, Probes: 2, Passed: 2, AchievedMin: 2999, AchievedMax: 3001, GoodputMin: 2999, GoodputMax: 3001,
					P99Min: map[string]float64{"read": 0.00121}, P99Max: map[string]float64{"read": 0.00148}},
				FirstFailed: &rundir.CapacityRateRun{Rate: 3125, Probes: 2}}}},
		{Name: "grow", Kind: scenarios.PhaseGrowth, Cliff: &rundir.Cliff{Stage: "stage-5", StageIndex: 4, Op: "get", Reason: rundir.CliffThroughput,
			Value: 16344, Baseline: 60630, Records: 100000, UsedMemoryBytes: 138.5e6, Evidence: []rundir.CliffEvidence{
				{Reason: rundir.CliffThroughput, Op: "get", Value: 16344, Baseline: 60630, Spread: 1601.2, Threshold: 30315, Earlier: []float64{1, 2, 3, 4}, Next: &next},
				{Reason: rundir.CliffThroughput, Op: "set", Value: 14874, Baseline: 71881.5, Spread: 1500, Threshold: 35940.75, Earlier: []float64{1, 2, 3, 4}},
			}}},
	}}
	txt := Text(s)
	for _, want := range []string{
		"phase steady (steady): target 4000 ops/s achieved 3663.6 ops/s goodput 1942.1 ops/s over 10.0s, 36636 ops, 17219 errors,",
		"  errors by class: timeout 17200 (46.9%), connection 19 (0.1%); misses: get 4000 (13.3% of get)\n",
		"  capacity: highest rate held 3000 ops/s (4 probes)\n  confirmed: 3000 ops/s held 2 of 2 probes, achieved 2999..3001, goodput 2999..3001 ops/s, read p99 1.21ms..1.48ms; first failed 3125 ops/s failed 2 of 2 probes\n",
		"    FAIL (recheck) rate 3125 achieved 3090 goodput 3080\n",
		"  CLIFF at stage-5 (100000 records, used_memory 138.5 MB): get alone 16344 ok ops/s vs median 60630 of 4 earlier stages (threshold 30315, spread 1601); next stage 9800\n",
		"    also: set alone 14874 ok ops/s vs median 71882 of 4 earlier stages (threshold 35941, spread 1500)\n",
	} {
		if !strings.Contains(txt, want) {
			t.Errorf("text lacks %q:\n%s", want, txt)
		}
	}
	// The op table's misses and ok ops/s columns.
	for _, l := range strings.Split(txt, "\n") {
		if f := strings.Fields(l); len(f) > 5 && f[0] == "get" && f[1] == "latency" {
			if f[2] != "30000" || f[3] != "14019" || f[4] != "4000" || f[5] != "1400.0" {
				t.Errorf("get row %q: want count 30000, errors 14019, misses 4000, 1400.0 ok ops/s", l)
			}
		}
	}
	// A phase without failures prints no outcome line.
	if strings.Count(txt, "errors by class") != 1 {
		t.Errorf("outcome lines:\n%s", txt)
	}
}
