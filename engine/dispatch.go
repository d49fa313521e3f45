package engine

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/scenarios"
)

// dispatcher is what the open-loop dispatch needs beyond its segment:
// the run's clock and pacer, the live rate control and the exporter.
type dispatcher struct {
	time     timeSource
	ctl      *Control          // live rate changes; nil = none
	exporter *metrics.Exporter // nil = none
	// seg is the running segment the dispatch reports to and, resumed,
	// starts from (resume.go); nil in tests of the dispatch alone.
	seg *segRun
}

// run runs the open-loop schedule, sleeping with a pacerSleeper. It never
// waits for a worker: when the queue is full the ops stay due (late) and
// are sent as soon as there is room, or counted dropped past max_lag.
//
// The schedule is absolute from t0 (plus the shard's offset, so the
// shards of one run interleave). When Options.Control changes the rate,
// a new epoch starts at that moment: ops already sent stay counted, the
// next op is due at once and later ones follow at the new rate; a
// segment bounded by duration still ends at t0+duration. Consecutive
// ops the target batches go to one worker as one chunk (up to
// chunkMax); any other op is a chunk of its own. It reports whether the
// rate was changed.
func (d dispatcher) run(ctx context.Context, seg *segment, clk *clock, work chan chunk, chunkMax int, batchable *[scenarios.NumOps]bool, stripes []*metrics.Recorder, scheduled *atomic.Uint64) (retimed bool) {
	pacer := d.time.pacer()
	defer pacer.close()
	t0 := clk.t0
	ctl := d.ctl
	gen := ctl.generation()
	longest := pollCap
	if w, ok := pacer.(wakeable); ok {
		defer wakeOn(ctx, ctl, gen, w)()
		longest = wakeCap
	}
	ep := &epoch{t0: t0.Add(seg.Offset), sched: seg.pacing()}
	limitFor := func(ep *epoch) uint64 { return seg.limitFor(ep, t0) }
	warmEnd := time.Unix(0, clk.warmEnd)
	var sent, warm uint64
	if f := d.from(); f != nil {
		// Resumed: the schedule goes on from the index due now.
		if f.ep != nil {
			ep = f.ep
		}
		sent, warm, retimed = f.sent, f.warm, f.retimed
	}
	limit := limitFor(ep)
	warmBound := func() (bound uint64, ok bool) { return seg.warmBound(ep, warmEnd) }
	// countWarm advances warm to the indices sent so far that belong to
	// the warmup.
	countWarm := func() {
		if b, ok := warmBound(); ok {
			warm = max(warm, min(b, sent))
		}
	}
	for {
		if ctx.Err() != nil {
			clk.stopAt(d.time.now())
			break
		}
		if g := ctl.generation(); g != gen {
			gen = g
			if rate := ctl.requested(); rate > 0 {
				ep = &epoch{t0: d.time.now(), base: sent, sched: seg.atRate(rate)}
				limit = limitFor(ep)
				d.retimed(&epochState{T0: ep.t0, Base: ep.base, Rate: rate})
				retimed = true
				ctl.setCurrent(currentName(seg), rate)
				ctl.applied(seg.Phase, seg.Stage, rate, ep.t0)
				if d.exporter != nil {
					d.exporter.RateChanged(seg.Phase)
				}
			}
			continue
		}
		if sent >= limit {
			// The schedule has no op left. A count (requests:) ends the
			// segment; a duration does not end before its time: at a
			// rate whose next op falls after the end, or a live rate
			// that low, the segment waits out its duration (a rate
			// change may still come) and is judged over all of it.
			left := seg.Duration - d.time.since(t0)
			if seg.Duration <= 0 || (seg.Limit > 0 && sent >= seg.Limit) || left <= 0 {
				break
			}
			pacer.sleep(min(left, max(longest, seg.Tick)))
			continue
		}
		el := d.time.since(ep.t0)
		due := ep.base + ep.sched.Due(el)
		if due > limit {
			due = limit
		}
		// Ops later than max_lag are dropped here, counted per op kind.
		if seg.MaxLag > 0 && el > seg.MaxLag {
			tooLate := ep.base + ep.sched.Due(el-seg.MaxLag-1)
			if tooLate > due {
				tooLate = due
			}
			if tooLate > sent {
				now := d.time.now()
				// The warmup's share of them, then the measured rest.
				b, _ := warmBound()
				split := min(max(b, sent), tooLate)
				seg.countDrops(stripes[0], metrics.InWarmup, sent, split, now.Sub(ep.intended(sent)))
				seg.countDrops(stripes[0], metrics.InWindow, split, tooLate, now.Sub(ep.intended(split)))
				sent = tooLate
				countWarm()
			}
		}
		full := false
		for sent < due {
			n := due - sent
			if n > uint64(chunkMax) {
				n = uint64(chunkMax)
			}
			if n > 1 {
				n = seg.batchRun(batchable, sent, n)
			}
			select {
			case work <- chunk{first: sent, n: uint32(n), ep: ep}:
				sent += n
			default:
				full = true
			}
			if full {
				break
			}
		}
		countWarm()
		d.progress(warm)
		scheduled.Store(sent)
		if sent >= limit {
			continue
		}
		wait, _ := ep.sched.Pace(d.time.since(ep.t0), sent-ep.base, limit-ep.base)
		if full || wait < minSleep {
			wait = minSleep
		}
		if most := max(longest, seg.Tick); wait > most {
			// Look at the context and the control often enough that a
			// stop or a rate change at a low rate takes effect promptly
			// (pollCap) when nothing wakes the pacer for them, or once a
			// tick when ticks are longer (a wake between two ticks would
			// cost as much as the tick's own).
			wait = most
		}
		pacer.sleep(wait)
	}
	// Scheduled counts everything the schedule called for, dropped included.
	scheduled.Store(sent)
	clk.warmSched.Store(warm)
	return retimed
}

// limitFor is the schedule's last index (exclusive) in epoch ep of a
// segment started at t0: its count, or what its duration holds.
func (seg *segment) limitFor(ep *epoch, t0 time.Time) uint64 {
	limit := seg.Limit
	if seg.Duration > 0 {
		left := seg.Duration - ep.t0.Sub(t0)
		if n := ep.base + ep.sched.Total(left); limit == 0 || n < limit {
			limit = n
		}
	}
	return limit
}

// warmBound is the first index of epoch ep intended at or after the
// warmup's end (the warmup is a prefix of the schedule); ok is false
// when no index of ep is in the warmup.
func (seg *segment) warmBound(ep *epoch, warmEnd time.Time) (bound uint64, ok bool) {
	if seg.Warmup <= 0 || !warmEnd.After(ep.t0) {
		return ep.base, false
	}
	// By intended start, as the workers count (Due of the instant
	// before the warmup's end): for a ticked schedule that is not
	// Total, which cuts the last tick.
	return ep.base + ep.sched.Due(warmEnd.Sub(ep.t0)-1), true
}

// from is where a resumed segment's dispatch starts; nil: at its start.
func (d dispatcher) from() *dispatchFrom {
	if d.seg == nil {
		return nil
	}
	return d.seg.from
}

// progress reports the warmup's share of the indices sent so far.
func (d dispatcher) progress(warm uint64) {
	if d.seg != nil {
		d.seg.warmSent.Store(warm)
	}
}

// retimed reports a live rate change's new schedule.
func (d dispatcher) retimed(e *epochState) {
	if d.seg != nil {
		d.seg.retime.Store(e)
	}
}

// wakeOn wakes the pacer when ctx ends or ctl's rate changes after
// generation gen, until the returned stop is called; stop waits for it
// to end, so the pacer can be closed after it.
func wakeOn(ctx context.Context, ctl *Control, gen uint64, w wakeable) (stop func()) {
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			// The channel before the generation: a change after the
			// comparison closes it (Control.changed).
			ch := ctl.changed()
			if g := ctl.generation(); g != gen {
				gen = g
				w.wake()
				continue
			}
			select {
			case <-ctx.Done():
				w.wake()
				return
			case <-ch:
			case <-quit:
				return
			}
		}
	}()
	return func() { close(quit); <-done }
}

// batchRun returns how many of the n ops from index first go to the
// store as one batch: the run of consecutive ops the target batches,
// or 1 when the first is one it does not.
func (seg *segment) batchRun(batchable *[scenarios.NumOps]bool, first, n uint64) uint64 {
	if !batchable[seg.opFor(first)] {
		return 1
	}
	k := uint64(1)
	for k < n && batchable[seg.opFor(first+k)] {
		k++
	}
	return k
}

// exactDrops is the largest run of dropped indices whose op kinds are
// counted one by one; longer runs are split by the mix's weights, so an
// overloaded pacer never walks a huge backlog index by index.
const exactDrops = 4096

// countDrops counts schedule indices [from, to) of seg as dropped in
// window w of rec, per op kind, with lag how late the first was.
func (seg *segment) countDrops(rec *metrics.Recorder, w metrics.Window, from, to uint64, lag time.Duration) {
	if to <= from {
		return
	}
	var n [scenarios.NumOps]int64
	if to-from <= exactDrops {
		for i := from; i < to; i++ {
			n[seg.opFor(i)]++
		}
	} else {
		seg.Mix.Split(int64(to-from), &n)
	}
	for op, k := range n {
		if k > 0 {
			rec.DropIn(w, scenarios.Op(op), k, int64(lag))
		}
	}
}
