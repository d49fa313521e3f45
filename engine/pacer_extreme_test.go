package engine

import (
	"math"
	"testing"
	"time"
)

// TestScheduleAtSaturates: At never wraps or goes negative, whatever
// the rate and the op index: op i > 0 of a schedule too slow to reach
// it is at the ceiling, so it is never due at once, and At is monotone.
func TestScheduleAtSaturates(t *testing.T) {
	for _, rate := range []float64{1e-11, 1e-300, math.SmallestNonzeroFloat64, 0, -1, math.NaN(), 0.001, 1, 1e7, 1e308, math.Inf(1)} {
		s := Schedule{Rate: rate}
		if got := s.At(0); got != 0 {
			t.Errorf("rate %g: At(0) = %v", rate, got)
		}
		prev := time.Duration(0)
		for _, i := range []uint64{1, 2, 1000, 1 << 32, 1 << 53, 1 << 62, math.MaxUint64 - 1, math.MaxUint64} {
			at := s.At(i)
			if at < prev {
				t.Errorf("rate %g: At(%d) = %v is before At of a lower index (%v)", rate, i, at, prev)
			}
			prev = at
		}
		if at := s.At(1); rate > 0 && rate < 1e-9 && at != maxAt {
			t.Errorf("rate %g: At(1) = %v, want the ceiling %v", rate, at, maxAt)
		}
		// The first op after op 0 is not due within an hour at 1e-11 ops/s
		// (it overflowed to a negative offset and every op was due at once).
		if rate > 0 && rate < 1e-3 {
			if w, stop := s.Pace(time.Hour, 1, 0); stop || w <= 0 {
				t.Errorf("rate %g: Pace after an hour with 1 op done = %v, %v; want a wait", rate, w, stop)
			}
			if d := s.Due(time.Hour); d != 1 {
				t.Errorf("rate %g: Due(1h) = %d, want 1", rate, d)
			}
		}
	}
	if got, want := (Schedule{Rate: 1e-11}).At(1), maxAt; got != want {
		t.Errorf("At(1) at 1e-11 ops/s = %v, want %v", got, want)
	}
	if got := (Schedule{Rate: 1000}).At(1500); got != 1500*time.Millisecond {
		t.Errorf("At(1500) at 1000/s = %v", got)
	}
}
