package engine

import (
	"testing"
	"time"
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
