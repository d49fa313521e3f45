package engine

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/scenarios"
)

// dispatchRig runs dispatch alone in a synctest bubble: no workers, a
// work queue of room chunks that the test reads (or leaves full).
type dispatchRig struct {
	d       dispatcher
	seg     *segment
	clk     *clock
	work    chan chunk
	stripes []*metrics.Recorder
	sched   atomic.Uint64
}

func newDispatchRig(t *testing.T, seg *segment, room int) *dispatchRig {
	t.Helper()
	if seg.Mix == nil {
		mix, err := scenarios.NewMix(map[string]float64{"read": 100}, nil)
		if err != nil {
			t.Fatal(err)
		}
		seg.Mix = mix
	}
	if seg.Source == nil {
		seg.Source = &mixSource{} // its op kinds only: no request is filled
	}
	rec := metrics.NewRecorder(seg.Mix.Ops())
	if seg.Warmup > 0 {
		rec = metrics.NewWarmupRecorder(seg.Mix.Ops())
	}
	return &dispatchRig{d: dispatcher{time: bubbleTime{}}, seg: seg, clk: newClock(seg, time.Now()), work: make(chan chunk, room), stripes: []*metrics.Recorder{rec}}
}

func (d *dispatchRig) run(ctx context.Context) bool {
	var batchable [scenarios.NumOps]bool
	return d.d.run(ctx, d.seg, d.clk, d.work, 1, &batchable, d.stripes, &d.sched)
}

// drops returns the ops dropped in the measured window and in the warmup.
func (d *dispatchRig) drops() (window, warm int64) {
	ops := d.seg.Mix.Ops()
	w, wu := metrics.NewSet(ops), metrics.NewSet(ops)
	d.stripes[0].DrainSplit(w, wu)
	for _, os := range w.Ops {
		if os != nil {
			window += os.Dropped
		}
	}
	for _, os := range wu.Ops {
		if os != nil {
			warm += os.Dropped
		}
	}
	return window, warm
}

// TestDispatchDropsPastMaxLag: with no worker taking ops, the queue
// fills with the first 10 and every later op is dropped once it is
// max_lag late, never sent; the drops split at the warmup's end by
// intended start, and the schedule ends when the last op is dropped:
// max_lag plus at most one pacer step after its intended start.
func TestDispatchDropsPastMaxLag(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		d := newDispatchRig(t, &segment{Phase: "p", Rate: 1000, Duration: time.Second, Warmup: 300 * time.Millisecond, MaxLag: 100 * time.Millisecond}, 10)
		start := time.Now()
		if d.run(context.Background()) {
			t.Error("reported a rate change none was made")
		}
		took := time.Since(start)
		if n := d.sched.Load(); n != 1000 {
			t.Errorf("scheduled %d, want the 1000 of 1 s at 1000/s", n)
		}
		if len(d.work) != 10 {
			t.Errorf("%d chunks queued, want 10 (the queue's room)", len(d.work))
		}
		window, warm := d.drops()
		// Ops 0-9 are queued; 10-299 are intended in the 300 ms warmup.
		if warm != 290 || window != 700 {
			t.Errorf("dropped %d in the warmup and %d measured, want 290 and 700", warm, window)
		}
		if w := d.clk.warmSched.Load(); w != 300 {
			t.Errorf("warmup scheduled %d, want 300", w)
		}
		// The last op is intended at 999 ms and dropped past 1099 ms.
		if lo := 1099 * time.Millisecond; took <= lo || took > lo+minSleep {
			t.Errorf("dispatch ended after %s, want within a pacer step after %s", took, lo)
		}
	})
}

// TestDispatchSendsOnSchedule: every op is handed out at its intended
// start (a reader that is always ready), chunk by chunk in index order,
// and the dispatcher ends at the segment's end, not its last op: a
// duration is waited out (a live rate change could still come).
func TestDispatchSendsOnSchedule(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		d := newDispatchRig(t, &segment{Phase: "p", Rate: 250, Duration: 200 * time.Millisecond}, 1)
		t0 := d.clk.t0
		got := make(chan []time.Duration)
		go func() {
			var at []time.Duration
			next := uint64(0)
			for c := range d.work {
				if c.first != next || c.n != 1 {
					t.Errorf("chunk %d+%d, want %d+1", c.first, c.n, next)
				}
				next = c.first + uint64(c.n)
				if lag := time.Since(c.ep.intended(c.first)); lag != 0 {
					t.Errorf("op %d handed out %s after its intended start", c.first, lag)
				}
				at = append(at, time.Since(t0))
			}
			got <- at
		}()
		d.run(context.Background())
		close(d.work)
		at := <-got
		if len(at) != 50 || d.sched.Load() != 50 {
			t.Fatalf("%d ops handed out, %d scheduled, want 50", len(at), d.sched.Load())
		}
		for i, a := range at {
			if want := time.Duration(i) * 4 * time.Millisecond; a != want {
				t.Errorf("op %d handed out at %s, want %s", i, a, want)
			}
		}
		if el := time.Since(t0); el != 200*time.Millisecond {
			t.Errorf("dispatch ended at %s, want at the segment's end, 200ms (the last op is at 196ms)", el)
		}
	})
}

// TestDispatchRateChangeStartsAnEpoch: a rate change made at 505 ms
// wakes the dispatcher (its next op at 100/s was due at 510 ms); a new
// epoch starts there, the ops sent so far stay counted and the rest
// of the 1 s follows at 1000/s.
func TestDispatchRateChangeStartsAnEpoch(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		d := newDispatchRig(t, &segment{Phase: "p", Stage: "s", Rate: 100, Duration: time.Second}, 4096)
		ctl := &Control{}
		d.d.ctl = ctl
		ctl.setCurrent("p/s", 100)
		t0 := d.clk.t0
		go func() {
			time.Sleep(505 * time.Millisecond)
			if err := ctl.SetRate(1000); err != nil {
				t.Error(err)
			}
		}()
		if !d.run(context.Background()) {
			t.Error("rate change not reported")
		}
		close(d.work)
		var eps []*epoch
		var last time.Time
		n := uint64(0)
		for c := range d.work {
			if len(eps) == 0 || eps[len(eps)-1] != c.ep {
				eps = append(eps, c.ep)
			}
			n += uint64(c.n)
			last = c.ep.intended(c.first + uint64(c.n) - 1)
		}
		// 51 ops at 0..500 ms, then 495 from 505 ms to 999 ms.
		if n != 546 || d.sched.Load() != 546 {
			t.Errorf("sent %d, scheduled %d, want 546", n, d.sched.Load())
		}
		if len(eps) != 2 || eps[1].base != 51 || eps[1].t0.Sub(t0) != 505*time.Millisecond {
			t.Fatalf("epochs %+v, want a second from op 51 at 505ms", eps)
		}
		if got := last.Sub(t0); got != 999*time.Millisecond {
			t.Errorf("last op intended at %s, want 999ms (the segment keeps its end)", got)
		}
		ch := ctl.appliedChanges()
		if len(ch) != 1 || ch[0].rate != 1000 || ch[0].phase != "p" || ch[0].stage != "s" || ch[0].at.Sub(t0) != 505*time.Millisecond {
			t.Errorf("applied changes %+v", ch)
		}
		if ph, rate := ctl.Current(); ph != "p/s" || rate != 1000 {
			t.Errorf("Current() = %q %v during the segment, want p/s 1000", ph, rate)
		}
	})
}

// TestDispatchStopsOnCancel: a cancel wakes the dispatcher and ends the
// schedule at once: the window ends there and only the ops sent by then
// are counted.
func TestDispatchStopsOnCancel(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		d := newDispatchRig(t, &segment{Phase: "p", Rate: 100, Duration: time.Minute}, 4096)
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			time.Sleep(255 * time.Millisecond)
			cancel()
		}()
		d.run(ctx)
		if n := d.sched.Load(); n != 26 {
			t.Errorf("scheduled %d, want the 26 due by 250ms", n)
		}
		if end := time.Duration(d.clk.winEnd.Load() - d.clk.t0.UnixNano()); end != 255*time.Millisecond {
			t.Errorf("window ends at %s, want 255ms (the cancel, which wakes the pacer)", end)
		}
	})
}
