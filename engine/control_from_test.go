package engine

import (
	"testing"
	"time"

	"github.com/soakd/soakd/rundir"
)

// TestControlRecordsTheRateReplaced: each change applied to a segment
// records the rate it replaced, the segment's configured one first and
// then the previous change's; a new segment starts again from its own.
func TestControlRecordsTheRateReplaced(t *testing.T) {
	c := &Control{}
	at := time.Unix(100, 0)
	c.setCurrent("ramp/step-1", 200)
	c.setCurrent("ramp/step-1", 500)
	c.applied("ramp", "step-1", 500, at)
	c.setCurrent("ramp/step-1", 800)
	c.applied("ramp", "step-1", 800, at.Add(time.Second))
	c.setCurrent("", 0)
	c.setCurrent("ramp/step-2", 400)
	c.setCurrent("ramp/step-2", 100)
	c.applied("ramp", "step-2", 100, at.Add(2*time.Second))
	got := c.appliedChanges()
	want := [][2]float64{{200, 500}, {500, 800}, {400, 100}}
	if len(got) != len(want) {
		t.Fatalf("changes %+v, want %v", got, want)
	}
	for i, w := range want {
		if got[i].from != w[0] || got[i].rate != w[1] {
			t.Errorf("change %d: %v -> %v, want %v -> %v", i, got[i].from, got[i].rate, w[0], w[1])
		}
	}
}

// TestRateChangesInSummary: addRateChanges puts each applied change in
// its phase of the summary with its time, offset, stage, new rate and
// the rate it replaced.
func TestRateChangesInSummary(t *testing.T) {
	start := time.Unix(1000, 0).UTC()
	sum := &rundir.Summary{Phases: []rundir.PhaseResult{{Name: "load", Start: start}, {Name: "ramp", Start: start.Add(10 * time.Second)}}}
	addRateChanges(sum, []appliedChange{{phase: "ramp", stage: "step-2", at: start.Add(14 * time.Second), rate: 800, from: 500}})
	want := rundir.RateChange{At: start.Add(14 * time.Second), OffsetSeconds: 4, Stage: "step-2", Rate: 800, FromRate: 500}
	if got := sum.Phases[1].RateChanges; len(got) != 1 || got[0] != want || len(sum.Phases[0].RateChanges) != 0 {
		t.Errorf("rate_changes %+v, want only ramp's %+v", sum.Phases, want)
	}
}
