package engine

import (
	"math"
	"testing"
	"time"
)

func TestScheduleTable(t *testing.T) {
	s := Schedule{Rate: 1000} // one op per ms
	for _, tc := range []struct {
		elapsed time.Duration
		due     uint64
	}{
		{-1, 0}, {0, 1}, {999 * time.Microsecond, 1}, {time.Millisecond, 2}, {10*time.Millisecond + 1, 11}, {time.Second, 1001},
	} {
		if got := s.Due(tc.elapsed); got != tc.due {
			t.Errorf("Due(%v) = %d, want %d", tc.elapsed, got, tc.due)
		}
	}
	if got := s.Total(time.Second); got != 1000 {
		t.Errorf("Total(1s) = %d, want 1000", got)
	}
	if got := (Schedule{Rate: 6000}).Total(30 * time.Second); got != 180000 {
		t.Errorf("Total at 6000/s for 30s = %d", got)
	}
	// Odd rates: Due and At agree exactly at every boundary.
	odd := Schedule{Rate: 7}
	for i := uint64(0); i < 100; i++ {
		if d := odd.Due(odd.At(i)); d != i+1 {
			t.Fatalf("Due(At(%d)) = %d", i, d)
		}
	}
}

func TestPaceTable(t *testing.T) {
	s := Schedule{Rate: 100} // 10 ms apart
	for _, tc := range []struct {
		elapsed     time.Duration
		done, limit uint64
		wait        time.Duration
		stop        bool
	}{
		{0, 0, 0, 0, false},                                        // op 0 due at t0
		{0, 1, 0, 10 * time.Millisecond, false},                    // next in 10 ms
		{25 * time.Millisecond, 1, 0, 0, false},                    // behind: due now, no catch-up sleep
		{25 * time.Millisecond, 3, 0, 5 * time.Millisecond, false}, // ahead
		{time.Second, 5, 5, 0, true},                               // limit reached
	} {
		w, st := s.Pace(tc.elapsed, tc.done, tc.limit)
		if w != tc.wait || st != tc.stop {
			t.Errorf("Pace(%v,%d,%d) = %v,%v want %v,%v", tc.elapsed, tc.done, tc.limit, w, st, tc.wait, tc.stop)
		}
	}
}

// TestScheduleDueIsBounded: absurd rates answer at once (a rate of
// 1e308 used to loop forever in Due's correction loops).
func TestScheduleDueIsBounded(t *testing.T) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, rate := range []float64{1e12, 1e17, 1e308, math.Inf(1), math.NaN(), 0, -5} {
			s := Schedule{Rate: rate}
			for _, el := range []time.Duration{0, time.Nanosecond, time.Second, time.Hour} {
				_ = s.Due(el)
				_ = s.Total(el)
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Schedule.Due did not return for an absurd rate")
	}
	if got := (Schedule{Rate: 1e308}).Due(time.Second); got != maxDue {
		t.Errorf("Due at 1e308 = %d, want the %d ceiling", got, uint64(maxDue))
	}
	if got := (Schedule{Rate: 1000}).Due(time.Second); got != 1001 {
		t.Errorf("Due at 1000/s after 1s = %d, want 1001", got)
	}
}
