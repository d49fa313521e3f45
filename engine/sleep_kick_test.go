package engine

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// A wakeable pacer's wake ends the sleep in progress at once; a wake
// with no sleep in progress ends the next one at once; after that,
// sleeps last their time again (the wake is spent).
func TestPacerSleeperWake(t *testing.T) {
	sleepers := map[string]func() pacerSleeper{"default": newPacerSleeper, "timer": func() pacerSleeper { return newTimerSleeper() }}
	for name, mk := range sleepers {
		s := mk()
		w, ok := s.(wakeable)
		if !ok {
			t.Fatalf("%s: %T cannot be woken", name, s)
		}
		// sleepBy runs sleep(d) and says whether it ended within bound.
		sleepBy := func(d, bound time.Duration) bool {
			ended := make(chan struct{})
			go func() { s.sleep(d); close(ended) }()
			select {
			case <-ended:
				return true
			case <-time.After(bound):
				w.wake() // let it end
				<-ended
				return false
			}
		}
		w.wake()
		if !sleepBy(time.Hour, 20*time.Second) {
			t.Errorf("%s: a sleep of 1h after a wake did not end at once", name)
		}
		ended := make(chan struct{})
		go func() { s.sleep(time.Hour); close(ended) }()
		time.Sleep(20 * time.Millisecond)
		w.wake()
		select {
		case <-ended:
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: a wake did not end a sleep of 1h in progress", name)
		}
		for i := 0; i < 3; i++ {
			start := time.Now()
			s.sleep(5 * time.Millisecond)
			if el := time.Since(start); el < 5*time.Millisecond {
				t.Errorf("%s: sleep(5ms) after a spent wake returned after %v", name, el)
			}
		}
		s.close()
	}
}

// At 1 op/s a wakeable pacer sleeps until the next op (at most wakeCap)
// instead of waking every pollCap to look for a stop or a rate change,
// and a stop still ends the schedule at once; a pacer that cannot be
// woken polls.
func TestPacerSleepsUntilTheNextOp(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		wakeable bool
		most     int // sleeps in 10.505 s
	}{{true, 12}, {false, 1100}} {
		synctest.Test(t, func(t *testing.T) {
			var sleeps atomic.Int64
			d := newDispatchRig(t, &segment{Phase: "p", Rate: 1, Duration: time.Hour}, 4096)
			d.d.time = countingTime{wakeable: c.wakeable, sleeps: &sleeps}
			ctx, cancel := context.WithCancel(context.Background())
			go func() {
				time.Sleep(10505 * time.Millisecond)
				cancel()
			}()
			d.run(ctx)
			if sent := d.sched.Load(); sent != 11 {
				t.Errorf("wakeable %v: %d ops sent by 10.505 s, want 11", c.wakeable, sent)
			}
			n := int(sleeps.Load())
			end := time.Duration(d.clk.winEnd.Load() - d.clk.t0.UnixNano())
			if c.wakeable && (n > c.most || end != 10505*time.Millisecond) {
				t.Errorf("woken pacer: %d sleeps in 10.505 s (want at most %d), window ends at %v (want the stop's 10.505s)", n, c.most, end)
			}
			if !c.wakeable && (n < 1000 || n > c.most || end != 10510*time.Millisecond) {
				t.Errorf("polling pacer: %d sleeps in 10.505 s (want 1000-%d: every 10 ms), window ends at %v (want 10.51s)", n, c.most, end)
			}
		})
	}
}
