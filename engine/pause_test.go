package engine

import (
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestPauserSleepsWhenBudgetSpent: a pause sleeps only once the slice
// since the collector woke (or since the last pause) has used the
// budget, and the next slice starts when the sleep ends.
func TestPauserSleepsWhenBudgetSpent(t *testing.T) {
	now := time.Unix(1000, 0)
	var slept []time.Duration
	p := &pauser{budget: 100 * time.Microsecond, now: func() time.Time { return now },
		sleep: func(d time.Duration) { slept = append(slept, d); now = now.Add(d) }}
	p.begin()
	now = now.Add(99 * time.Microsecond)
	p.pause()
	if len(slept) != 0 {
		t.Fatalf("paused after 99us of a 100us budget")
	}
	now = now.Add(time.Microsecond)
	p.pause()
	if len(slept) != 1 || slept[0] != collectorNap {
		t.Fatalf("after 100us: slept %v, want one nap of %v", slept, collectorNap)
	}
	// The nap does not count toward the next slice.
	now = now.Add(60 * time.Microsecond)
	p.pause()
	if len(slept) != 1 {
		t.Fatalf("paused 60us into a new slice")
	}
	// A new interval starts a new slice.
	now = now.Add(time.Second)
	p.begin()
	p.pause()
	if len(slept) != 1 || p.pauses != 1 || p.slices != 2 {
		t.Fatalf("slept %v, %d pauses, %d slices: want 1, 1, 2", slept, p.pauses, p.slices)
	}
}

// TestPauseLetsPollerWaiterRun: with one P, a goroutine parked in the
// netpoller (as the pacer on its timerfd) runs inside a busy loop that
// pauses, not only after it ends. (runtime.Gosched would not do: the
// scheduler gives the P straight back to the only runnable goroutine
// without polling the network.)
func TestPauseLetsPollerWaiterRun(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	var woke atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var b [1]byte
		if _, err := r.Read(b[:]); err == nil {
			woke.Store(true)
		}
	}()
	// Let the reader park in the poller.
	for i := 0; i < 100; i++ {
		runtime.Gosched()
	}
	if _, err := w.Write([]byte{1}); err != nil {
		t.Fatal(err)
	}
	p := newPauser(wallTime{})
	p.budget = 0 // every pause sleeps
	p.begin()
	const units = 50
	ranAt := -1
	sink := 0
	for u := 0; u < units && ranAt < 0; u++ {
		for i := 0; i < 20000; i++ { // a unit of work that never blocks
			sink += i * u
		}
		p.pause()
		if woke.Load() {
			ranAt = u
		}
	}
	_ = sink
	if ranAt < 0 {
		t.Fatalf("the reader parked in the poller did not run during %d paused units of work", units)
	}
	wg.Wait()
}

// TestCollectorPausesBetweenUnits: each interval the collector pauses
// after every stripe's drain and between the ops it merges, rebuilds
// and writes, not once after all of it. (Budget 0: every pause point
// sleeps, on the bubble's clock.)
func TestCollectorPausesBetweenUnits(t *testing.T) {
	t.Parallel()
	sc := scenario(t, `
keyspace: {records: 1000}
phases:
  - {name: steady, kind: steady, rate: 400, duration: 2s, concurrency: 16, max_lag: 1h, mix: {read: 50, update: 50}}
`)
	var mu sync.Mutex
	var ps []*pauser
	wrap := func(p *pauser) {
		p.budget = 0
		mu.Lock()
		ps = append(ps, p)
		mu.Unlock()
	}
	sum := runInBubble(t, sc, &recordingTarget{service: time.Millisecond}, Options{Interval: 500 * time.Millisecond, pauserWrap: wrap})
	if got := sum.Phases[0].Completed; got != 800 {
		t.Fatalf("completed %d ops, want 800", got)
	}
	if len(ps) != 1 {
		t.Fatalf("%d collectors, want 1", len(ps))
	}
	p := ps[0]
	// 8 stripes (16 workers), 2 ops: per interval a pause after each
	// stripe (8), after each op merged into the phase's totals (2) and
	// rebuilt (2), after each latency.hlog line (4), after the hlog and
	// counts.csv, and after each op folded into the exporter's totals.
	t.Logf("%d pauses over %d intervals", p.pauses, p.slices)
	// The 4 intervals of the 2 s phase hold ops; the segment ends at
	// its duration, on the 2 s tick, so a last flush may find nothing
	// but the stripes to drain.
	const stripes, ops, withOps = 8, 2, 4
	if want := p.slices*stripes + withOps*(2*ops+2*ops+1); p.slices < withOps || p.pauses < want {
		t.Fatalf("%d pauses over %d intervals: want at least %d (%d a stripe each interval, %d more in each of the %d with ops)", p.pauses, p.slices, want, stripes, 2*ops+2*ops+1, withOps)
	}
}
