package engine

import (
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/soakd/soakd/scenarios"
)

// Control steers a run while it is in progress. The daemon hands one to
// engine.Run through Options.Control; `soakd run` passes none.
//
// SetRate changes the rate of the open-loop segment (a steady phase or a
// ramp step) that is running now: the dispatcher restarts the absolute
// schedule from the moment it sees the change, at the new rate, keeping
// the count of ops already sent. The override ends with that segment;
// the next phase or step runs at its own configured rate.
type Control struct {
	gen  atomic.Uint64 // bumped by each SetRate
	rate atomic.Uint64 // float64 bits of the last SetRate

	mu        sync.Mutex
	changedCh chan struct{} // closed by the next SetRate (changed)
	phase     string        // phase[/stage] now running; "" between segments
	current   float64       // its effective rate (0 = closed loop)
	// before is the segment's rate before its latest change: setCurrent
	// keeps it when the segment running now is given a new rate, and the
	// change then applied records it (summary.json's from_rate).
	before float64
	// changes are the rate changes the dispatcher applied, in order
	// (summary.json's rate_changes).
	changes []appliedChange
}

// appliedChange is one rate change as the dispatcher applied it: the
// new schedule's start and rate, and the rate it replaced.
type appliedChange struct {
	phase, stage string
	at           time.Time
	rate, from   float64
}

// SetRate asks the running open-loop segment to change its rate. It
// fails when no open-loop segment is running.
func (c *Control) SetRate(rate float64) error {
	if err := scenarios.CheckRate(rate, false); err != nil {
		return fmt.Errorf("rate %v: %w", rate, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.phase == "" {
		return fmt.Errorf("no phase is running")
	}
	if c.current == 0 {
		return fmt.Errorf("phase %s is closed-loop (rate 0): its rate cannot be changed", c.phase)
	}
	c.rate.Store(math.Float64bits(rate))
	c.gen.Add(1)
	if c.changedCh != nil {
		close(c.changedCh)
		c.changedCh = nil
	}
	return nil
}

// changed returns a channel closed by the next SetRate (nil for a nil
// Control: it never closes). A caller that reads it before comparing
// generation() cannot miss a change: a change after that comparison
// closes this channel or a later one, and a later one is made only by
// a SetRate that closed this one.
func (c *Control) changed() <-chan struct{} {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.changedCh == nil {
		c.changedCh = make(chan struct{})
	}
	return c.changedCh
}

// Current reports the segment running now and its effective rate.
func (c *Control) Current() (phase string, rate float64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.phase, c.current
}

func (c *Control) setCurrent(phase string, rate float64) {
	if c == nil {
		return
	}
	c.mu.Lock()
	if phase != "" && phase == c.phase {
		c.before = c.current // a change to the running segment
	} else {
		c.before = rate
	}
	c.phase, c.current = phase, rate
	c.mu.Unlock()
}

// applied records a rate change the dispatcher put into effect at at;
// setCurrent gave the segment its new rate just before.
func (c *Control) applied(phase, stage string, rate float64, at time.Time) {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.changes = append(c.changes, appliedChange{phase: phase, stage: stage, at: at, rate: rate, from: c.before})
	c.mu.Unlock()
}

// appliedChanges returns a copy of the changes applied so far; nil-safe.
func (c *Control) appliedChanges() []appliedChange {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]appliedChange(nil), c.changes...)
}

// generation returns the change counter; nil-safe.
func (c *Control) generation() uint64 {
	if c == nil {
		return 0
	}
	return c.gen.Load()
}

func (c *Control) requested() float64 { return math.Float64frombits(c.rate.Load()) }

// epoch is one stretch of an open-loop segment at one rate: op i (i >=
// base) is intended at t0 + sched.At(i-base). A rate change starts a new
// epoch; workers read the epoch carried by their chunk.
type epoch struct {
	t0    time.Time
	base  uint64
	sched pacing
}

// intended returns op i's intended start.
func (e *epoch) intended(i uint64) time.Time { return e.t0.Add(e.sched.At(i - e.base)) }
