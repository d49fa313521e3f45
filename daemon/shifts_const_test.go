package daemon

import (
	"fmt"
	"testing"
	"time"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/rundir"
)

// TestHistoryShiftsIdenticalRuns: 1,000 runs with identical results
// (the same rate, latencies and error ratio in each) hold no shift.
func TestHistoryShiftsIdenticalRuns(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	runs := make([]HistoryRun, 1000)
	for i := range runs {
		runs[i] = HistoryRun{ID: fmt.Sprintf("run-%04d", i), Summary: &rundir.Summary{Scenario: "s", Status: rundir.StatusCompleted,
			Start: start.Add(time.Duration(i) * time.Hour),
			Phases: []rundir.PhaseResult{{Name: "steady", Kind: "steady", Result: rundir.Result{AchievedRate: 49870.25654317215,
				Ops: map[string]rundir.OpResult{"get": {Count: 3, Errors: map[string]int64{"timeout": 1}, Latency: metrics.Summary{Count: 3,
					P50: 0.000123456789, P99: 0.0045678912345, P999: 0.0123456789}}}}}}}}
	}
	if got := HistoryShifts(runs); len(got) != 0 {
		t.Errorf("%d shifts among identical runs, e.g. %v", len(got), got[0])
	}
}
