package engine

import "time"

// timeSource is the engine's time outside the workers' send path: what
// the dispatcher, the collector, the drain and the phase executors read
// and how the pacer waits. A run uses wallTime; a test runs the engine
// inside a testing/synctest bubble with bubbleTime, where time.Now,
// timers and tickers are the bubble's fake clock and the pacer sleeps
// on a Go timer the bubble can see (the timerfd is a file read it
// cannot).
//
// Its now must be the time package's clock (the host's, or a bubble's):
// workers and targets stamp ops with time.Now directly, on the hot path.
type timeSource interface {
	now() time.Time
	since(t time.Time) time.Duration
	// pacer returns the dispatcher's sleeper, closed at its end.
	pacer() pacerSleeper
}

// wallTime is the host's clock and the platform's pacer sleeper.
type wallTime struct{}

func (wallTime) now() time.Time                  { return time.Now() }
func (wallTime) since(t time.Time) time.Duration { return time.Since(t) }
func (wallTime) pacer() pacerSleeper             { return newPacerSleeper() }

// timerSleeper sleeps on a Go timer: the pacer where there is no
// timerfd, and in a synctest bubble. It is wakeable.
type timerSleeper struct {
	kick chan struct{} // one pending wake
}

func newTimerSleeper() *timerSleeper { return &timerSleeper{kick: make(chan struct{}, 1)} }

func (s *timerSleeper) sleep(d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-s.kick:
	}
}

func (s *timerSleeper) wake() {
	select {
	case s.kick <- struct{}{}:
	default: // a wake is pending already
	}
}

func (s *timerSleeper) close() {}
