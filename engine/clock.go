package engine

import (
	"sync/atomic"
	"time"

	"github.com/soakd/soakd/metrics"
)

// clock is a segment's accounting frame, shared by the dispatcher, the
// workers and the collector. An op belongs to the warmup or to the
// measured window by its intended start; a measured op completed after
// the window's end is counted in the drain, not in the window.
type clock struct {
	t0      time.Time
	warmEnd int64 // unix ns: ops intended before it are warmup
	// winEnd (unix ns) is where the measured window ends: t0+duration,
	// or earlier when the segment is stopped; noEnd for count-bounded
	// segments.
	winEnd atomic.Int64
	// lastEnd (unix ns) is the latest completion of a measured op.
	lastEnd atomic.Int64
	// warmSched counts the ops scheduled in the warmup (closed loop:
	// claimed in it; open loop: set by the dispatcher at its end).
	warmSched atomic.Uint64
	// warmTail counts warmup ops (by intended start) that completed
	// inside the measured window: they count toward the achieved rate,
	// which goes by completion time, not toward the measured figures.
	warmTail  atomic.Int64
	warmErrs  atomic.Int64 // warmTail ops that failed
	completed atomic.Int64
}

func newClock(seg *segment, t0 time.Time) *clock {
	c := &clock{}
	c.start(seg, t0)
	return c
}

// start sets the segment's origin. The workers and the collector are
// made before it (runSegment) and read it only after it is set: the
// open-loop workers through the chunks the dispatcher sends them, the
// others after the segment's begin channel is closed.
func (c *clock) start(seg *segment, t0 time.Time) {
	c.t0, c.warmEnd = t0, t0.Add(seg.Warmup).UnixNano()
	c.winEnd.Store(noEnd)
	if seg.Duration > 0 {
		c.winEnd.Store(t0.Add(seg.Duration).UnixNano())
	}
}

// stopAt ends the measured window at t if it would end later.
func (c *clock) stopAt(t time.Time) {
	ns := t.UnixNano()
	for {
		cur := c.winEnd.Load()
		if ns >= cur || c.winEnd.CompareAndSwap(cur, ns) {
			return
		}
	}
}

// window says where an op intended at intended and completed at end
// belongs.
func (c *clock) window(intended, end int64) metrics.Window {
	switch {
	case intended < c.warmEnd:
		return metrics.InWarmup
	case end > c.winEnd.Load():
		return metrics.InDrain
	}
	return metrics.InWindow
}

// completedAt notes a measured op's completion for the drain time.
func (c *clock) completedAt(end int64) {
	for {
		cur := c.lastEnd.Load()
		if end <= cur || c.lastEnd.CompareAndSwap(cur, end) {
			return
		}
	}
}
