package engine

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// A pacer sleep never ends before its time (a late one shows as lag;
// an early one would send ops before their intended start).
func TestPacerSleeperNeverEarly(t *testing.T) {
	sleepers := map[string]func() pacerSleeper{"default": newPacerSleeper}
	addFallback(sleepers)
	for name, mk := range sleepers {
		s := mk()
		for _, d := range []time.Duration{0, 30 * time.Microsecond, 200 * time.Microsecond, time.Millisecond, 3 * time.Millisecond} {
			for i := 0; i < 10; i++ {
				start := time.Now()
				s.sleep(d)
				if el := time.Since(start); el < d {
					t.Fatalf("%s: sleep(%v) returned after %v", name, d, el)
				}
			}
		}
		s.close()
	}
}

// While the pacer sleeps, the worker it just woke runs, even on one P:
// the pacer must not hold the only P while it waits (with nanosleep on
// a locked thread, the woken worker waited for sysmon to take the P
// back, up to 10 ms, and that was the lag tail on one core).
func TestPacerSleeperYieldsItsP(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the timerfd pacer is Linux's")
	}
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	s := newPacerSleeper()
	defer s.close()
	if _, ok := s.(*timerfdSleeper); !ok {
		t.Fatalf("the pacer sleeps with %T, not the timerfd", s)
	}
	work := make(chan int)
	var ran atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range work {
			ran.Store(int64(i))
		}
	}()
	missed := 0
	for i := 1; i <= 300; i++ {
		work <- i
		s.sleep(100 * time.Microsecond)
		if ran.Load() != int64(i) {
			missed++
		}
	}
	close(work)
	<-done
	// The nanosleep sleeper misses every second one (150 of 300: the
	// worker runs only when the next send parks the pacer). The timerfd
	// one misses none, or one now and then under -race, whose scheduler
	// shuffles run-queue order on purpose.
	if missed > 15 {
		t.Fatalf("in %d of 300 sleeps the woken worker had not run when the pacer woke", missed)
	}
}
