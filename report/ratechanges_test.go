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
