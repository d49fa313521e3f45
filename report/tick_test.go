package report

import (
	"strings"
	"testing"
	"time"

	"github.com/soakd/soakd/rundir"
)

// TestTextShowsTick: a phase run in ticks says so next to its target
// rate; one without says nothing of ticks.
func TestTextShowsTick(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	s := &rundir.Summary{Scenario: "s", Status: rundir.StatusCompleted, Start: start, End: start.Add(time.Minute),
		Phases: []rundir.PhaseResult{
			{Name: "soak", Kind: "steady", Start: start, End: start.Add(time.Minute), TickSeconds: 0.02, Result: rundir.Result{TargetRate: 250}},
			{Name: "even", Kind: "steady", Start: start, End: start.Add(time.Minute), Result: rundir.Result{TargetRate: 250}}}}
	got := Text(s)
	if want := "phase soak (steady): target 250 ops/s in 20ms ticks achieved"; !strings.Contains(got, want) {
		t.Errorf("text lacks %q:\n%s", want, got)
	}
	if want := "phase even (steady): target 250 ops/s achieved"; !strings.Contains(got, want) || strings.Count(got, "ticks") != 1 {
		t.Errorf("text lacks %q, or names ticks for the phase without them:\n%s", want, got)
	}
}
