package engine

import (
	"context"
	"math"
	"path/filepath"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/soakd/soakd/rundir"
)

// TestTickedSchedule: op i is intended at the start of the tick its own
// instant falls in; Due counts exactly the ops intended by an elapsed
// time; Total calls for what the rate does, the last tick cut at the
// end; Pace waits for the next tick.
func TestTickedSchedule(t *testing.T) {
	for _, c := range []struct {
		rate float64
		tick time.Duration
	}{{6000, 20 * time.Millisecond}, {250, 20 * time.Millisecond}, {3, time.Second}, {1e6, time.Millisecond}, {7.3, 7 * time.Millisecond}} {
		s := Ticked{Schedule: Schedule{Rate: c.rate}, Tick: c.tick}
		u := s.Schedule
		for i := uint64(0); i < 5000; i++ {
			at := s.At(i)
			if at%c.tick != 0 || at > u.At(i) || u.At(i)-at >= c.tick {
				t.Fatalf("rate %v tick %v: op %d at %v, own instant %v: want the start of its tick", c.rate, c.tick, i, at, u.At(i))
			}
			// Due(el) counts the ops intended at or before el.
			if d := s.Due(at); d <= i {
				t.Fatalf("rate %v tick %v: Due(At(%d)=%v) = %d, want > %d", c.rate, c.tick, i, at, d, i)
			}
			if at > 0 {
				if d := s.Due(at - 1); d > i {
					t.Fatalf("rate %v tick %v: Due(%v) = %d counts op %d intended at %v", c.rate, c.tick, at-1, d, i, at)
				}
			}
		}
		for _, d := range []time.Duration{time.Second, 1500 * time.Millisecond, 31 * time.Second, c.tick / 2, c.tick*3 + 1} {
			if got, want := s.Total(d), u.Total(d); got != want {
				t.Errorf("rate %v tick %v: Total(%v) = %d, want the rate's %d", c.rate, c.tick, d, got, want)
			}
		}
		// Whole ticks: the ticked and the even schedule call for the
		// same ops by each tick's end.
		for k := time.Duration(1); k < 50; k++ {
			if got, want := s.Due(k*c.tick-1), u.Due(k*c.tick-1); got != want {
				t.Fatalf("rate %v tick %v: by tick %d's end %d ops are due, the rate calls for %d", c.rate, c.tick, k, got, want)
			}
		}
		next := s.At(s.Due(c.tick / 2))
		if w, stop := s.Pace(c.tick/2, s.Due(c.tick/2), 0); stop || w != next-c.tick/2 {
			t.Errorf("rate %v tick %v: Pace mid-tick waits %v, want %v to the next tick's op", c.rate, c.tick, w, next-c.tick/2)
		}
	}
}

// TestTickedExtremes: saturation as Schedule's, for any index and rate.
func TestTickedExtremes(t *testing.T) {
	for _, rate := range []float64{1e-300, 0.001, 1, 1e9, math.MaxFloat64, 0, -1, math.NaN()} {
		s := Ticked{Schedule: Schedule{Rate: rate}, Tick: 20 * time.Millisecond}
		for _, i := range []uint64{0, 1, 2, 1 << 40, math.MaxUint64} {
			if at := s.At(i); at < 0 || at > maxAt {
				t.Errorf("rate %v: At(%d) = %v out of [0, maxAt]", rate, i, at)
			}
		}
		for _, el := range []time.Duration{-1, 0, time.Hour, maxAt - 1, maxAt, math.MaxInt64} {
			if d := s.Due(el); d > maxDue {
				t.Errorf("rate %v: Due(%v) = %d past maxDue", rate, el, d)
			}
		}
	}
}

// TestSegmentKeepsTickOnRateChange: a live rate change keeps the
// segment's ticks.
func TestSegmentKeepsTickOnRateChange(t *testing.T) {
	seg := &segment{Rate: 100, Tick: 20 * time.Millisecond}
	if p, ok := seg.pacing().(Ticked); !ok || p.Rate != 100 || p.Tick != seg.Tick {
		t.Fatalf("pacing %#v, want Ticked at 100 ops/s in 20ms ticks", seg.pacing())
	}
	if p, ok := seg.atRate(400).(Ticked); !ok || p.Rate != 400 || p.Tick != seg.Tick {
		t.Fatalf("atRate(400) = %#v, want Ticked at 400 ops/s in 20ms ticks", seg.atRate(400))
	}
	if _, ok := (&segment{Rate: 100}).pacing().(Schedule); !ok {
		t.Fatal("a segment without a tick is not paced op by op")
	}
}

// TestTickedPhaseThroughEngine: a steady phase in 50 ms ticks sends
// every op at a tick's start, ten a tick at 200 ops/s, 60 ticks in 3 s;
// it sends the rate's 600 ops, and measures by intended start: with a
// warmup of 1.025 s, the tick at 1.0 s is warmup, so the measured ops
// are those of the 39 ticks from 1.05 s, 390, all completed.
func TestTickedPhaseThroughEngine(t *testing.T) {
	t.Parallel()
	sc := scenario(t, `
keyspace: {records: 1000}
phases:
  - {name: steady, kind: steady, rate: 200, duration: 3s, warmup: 1025ms, tick: 50ms, concurrency: 20, mix: {read: 100}}
`)
	tg := &recordingTarget{service: 5 * time.Millisecond}
	sum := runInBubble(t, sc, tg, Options{Interval: 250 * time.Millisecond})
	seen := tg.seen()
	if len(seen) != 600 {
		t.Fatalf("the store saw %d ops, want the rate's 600", len(seen))
	}
	t0 := seen[0].At
	perTick := map[time.Duration]int{}
	for _, r := range seen {
		off := r.At.Sub(t0)
		if off%(50*time.Millisecond) != 0 {
			t.Fatalf("an op was sent %v after the first, not at a tick's start", off)
		}
		perTick[off]++
	}
	if len(perTick) != 60 {
		t.Errorf("ops went out at %d instants, want one per tick: 60", len(perTick))
	}
	for off, n := range perTick {
		if n != 10 {
			t.Errorf("tick at %v sent %d ops, want 10", off, n)
		}
	}
	p := sum.Phases[0]
	if p.Scheduled != 390 || p.Completed != 390 || p.Dropped != 0 {
		t.Errorf("measured scheduled %d, completed %d, dropped %d: want the 390 ops of the ticks from 1.05 s", p.Scheduled, p.Completed, p.Dropped)
	}
	if p.TickSeconds != 0.05 {
		t.Errorf("tick_seconds %v, want 0.05", p.TickSeconds)
	}
	// Nothing takes time in the bubble: every lag is 0, which the
	// histogram's lowest bucket reports as under 1 µs.
	if p.MaxLag >= 1e-6 || p.Lag.Max >= 1e-6 {
		t.Errorf("max lag %v (lag max %v): every op was sent at its tick's start", p.MaxLag, p.Lag.Max)
	}
}

// countingTime is bubbleTime whose pacer counts its sleeps; with
// wakeable its pacer can be woken (as the timerfd's), else it only polls.
type countingTime struct {
	bubbleTime
	sleeps   *atomic.Int64
	wakeable bool
}

func (c countingTime) pacer() pacerSleeper {
	s := countingSleeper{c.sleeps, newTimerSleeper()}
	if c.wakeable {
		return countingWaker{s}
	}
	return s
}

type countingSleeper struct {
	n *atomic.Int64
	s *timerSleeper
}

func (s countingSleeper) sleep(d time.Duration) { s.n.Add(1); s.s.sleep(d) }
func (countingSleeper) close()                  {}

type countingWaker struct{ countingSleeper }

func (w countingWaker) wake() { w.s.wake() }

// TestTickedPacerWakesOncePerTick: at 250 ops/s in 20 ms ticks the
// pacer sleeps once a tick, 50 times in a second; op by op it sleeps
// once an op, 250 times. (Its 10 ms look at the context and the control
// would have woken it twice a tick.)
func TestTickedPacerWakesOncePerTick(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		tick time.Duration
		want int64
	}{{20 * time.Millisecond, 50}, {0, 250}} {
		synctest.Test(t, func(t *testing.T) {
			var sleeps atomic.Int64
			d := newDispatchRig(t, &segment{Phase: "p", Rate: 250, Duration: time.Second, Tick: c.tick, MaxLag: time.Second}, 1000)
			d.d.time = countingTime{sleeps: &sleeps}
			d.run(context.Background())
			if got := sleeps.Load(); got < c.want-1 || got > c.want+1 {
				t.Errorf("tick %v: the pacer slept %d times in 1 s at 250 ops/s, want %d", c.tick, got, c.want)
			}
			if got := d.sched.Load(); got != 250 {
				t.Errorf("tick %v: %d ops scheduled, want 250", c.tick, got)
			}
		})
	}
}

// TestTickedCollectorRunsBetweenTicks: the collector of a phase in
// 100 ms ticks ends its intervals half a tick after each second, not
// at the second itself, which is a tick's start (where the pacer has
// the whole tick to send). Without ticks it ends them on the second.
func TestTickedCollectorRunsBetweenTicks(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		tick string
		off  int64 // ms past each whole second
	}{{"100ms", 50}, {"0s", 0}} {
		sc := scenario(t, `
keyspace: {records: 1000}
phases:
  - {name: steady, kind: steady, rate: 100, duration: 4s, tick: `+c.tick+`, concurrency: 8, mix: {read: 100}}
`)
		dir := t.TempDir()
		sum := runInBubble(t, sc, &recordingTarget{service: time.Millisecond}, Options{OutDir: dir, Interval: time.Second})
		if got := sum.Phases[0].Completed; got != 400 {
			t.Fatalf("tick %s: completed %d, want 400", c.tick, got)
		}
		counts, err := rundir.ReadCounts(filepath.Join(dir, "counts.csv"))
		if err != nil {
			t.Fatal(err)
		}
		start := sum.Phases[0].Start.UnixMilli()
		var ends []int64
		for _, ic := range counts {
			if ic.Phase == "steady" && ic.Op == "read" {
				ends = append(ends, ic.EndMs-start)
			}
		}
		if len(ends) < 4 {
			t.Fatalf("tick %s: interval ends %v, want at least 4 (the last ends with the segment)", c.tick, ends)
		}
		for k, e := range ends[:3] {
			if want := int64(k+1)*1000 + c.off; e != want {
				t.Errorf("tick %s: interval %d ended %d ms after the phase's start, want %d (ends %v)", c.tick, k+1, e, want, ends)
			}
		}
	}
}
