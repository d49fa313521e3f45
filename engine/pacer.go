// Package engine is soakd's load engine, load generation only: the
// open-loop pacer on an absolute schedule, dispatch and the worker pool,
// shard segments, phases (load, steady, ramp, capacity probes, growth
// stages), the live progress line and the latency logs. It fills a
// rundir.Summary, has it judged by verdict/ and written through rundir/
// (summary.txt from report/). `soakd run` and the daemon both drive it
// through internal/runpath.
package engine

import (
	"math"
	"time"
)

// Schedule is a constant-rate absolute schedule: op i is intended to start
// at t0 + i/rate. It is pure, so it can be tested without sleeping.
type Schedule struct {
	Rate float64 // ops/s, > 0
}

// At returns the intended start offset of op i. It saturates at
// maxAt (about 292 years) instead of overflowing, for any i and any
// rate: a tiny, zero, negative or NaN rate puts op i (i > 0) at maxAt,
// never at a negative or wrapped offset that would make it due at once.
func (s Schedule) At(i uint64) time.Duration {
	if i == 0 {
		return 0
	}
	f := float64(i) * 1e9 / s.Rate
	if !(f >= 0 && f < float64(maxAt)) {
		return maxAt
	}
	return time.Duration(f)
}

// maxAt is At's ceiling: the largest float64 below 2^63 ns, so the
// conversion to time.Duration is exact and in range.
const maxAt = time.Duration(1<<63 - 1024)

// Due returns how many ops are due by elapsed: those with At(i) <= elapsed.
// It is O(1) whatever the rate: the float estimate is corrected by at
// most a few steps (At truncates), and it saturates at maxDue.
func (s Schedule) Due(elapsed time.Duration) uint64 {
	if elapsed < 0 || !(s.Rate > 0) {
		return 0
	}
	f := math.Floor(float64(elapsed)*s.Rate/1e9) + 1
	if !(f < maxDue) {
		return maxDue
	}
	u := uint64(f)
	// At() truncates; make Due(At(i)) include i exactly.
	for k := 0; k < 4 && u > 0 && s.At(u-1) > elapsed; k++ {
		u--
	}
	for k := 0; k < 4 && s.At(u) <= elapsed; k++ {
		u++
	}
	return u
}

// maxDue bounds Due: no schedule a process can run gets near it, and it
// keeps a nonsense rate from overflowing the index arithmetic.
const maxDue = 1 << 62

// Total returns the number of ops scheduled in [0, d).
func (s Schedule) Total(d time.Duration) uint64 {
	if d <= 0 {
		return 0
	}
	return s.Due(d - 1)
}

// Pace says what the dispatcher does next: given elapsed time and how
// many ops have been dispatched, it returns how long to wait before the
// next op is due (0 when one is due now) and whether the schedule is
// over (limit ops, 0 = unbounded).
func (s Schedule) Pace(elapsed time.Duration, done, limit uint64) (wait time.Duration, stop bool) {
	return paceAt(s, elapsed, done, limit)
}

// paceAt is Pace for any schedule given by its At: the wait until op
// done is intended, 0 when it is due, stop once limit ops are done.
func paceAt[S interface{ At(uint64) time.Duration }](s S, elapsed time.Duration, done, limit uint64) (wait time.Duration, stop bool) {
	if limit > 0 && done >= limit {
		return 0, true
	}
	if next := s.At(done); next > elapsed {
		return next - elapsed, false
	}
	return 0, false
}
