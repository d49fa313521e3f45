package daemon

import "context"

// The run queue's order. A run waits in acquire for its scenario (one
// run of a scenario at a time) and, when it takes one, a slot
// (max_concurrent). When either frees, every waiter looks again; of
// those that could start, the one asked for first (the lowest ticket)
// starts, so queued runs start in the order they were asked for and the
// history's runs follow one another in time. Configured runs (soaks,
// schedules) still go before API runs: an API run yields to any
// configured run waiting for what it needs.

// runQueue is the queue's state; Daemon.mu guards it.
type runQueue struct {
	slots int
	// busy holds the scenarios with a run going: runs of one scenario
	// go one at a time (their series would collide, and two loads on one
	// store would measure each other).
	busy map[string]bool
	// cfgWaiting counts configured runs (schedules, soaks) waiting per
	// scenario, cfgSlotWaiting those of them waiting for a
	// max_concurrent slot: while any waits, API runs do not take the
	// scenario or a slot (configured runs go first).
	cfgWaiting     map[string]int
	cfgSlotWaiting int
	// waiting are the runs in acquire, and lastTicket the last ticket
	// handed out: of the waiting runs that could start, the one asked for
	// first starts first.
	waiting    map[*activeRun]waiter
	lastTicket uint64
	// wake is closed (and replaced) when a waiter should look again.
	wake chan struct{}
}

// waiter is one run in acquire.
type waiter struct {
	ar       *activeRun
	scenario string
	slot     bool
}

func newRunQueue() runQueue {
	return runQueue{busy: map[string]bool{}, cfgWaiting: map[string]int{},
		waiting: map[*activeRun]waiter{}, wake: make(chan struct{})}
}

// nextTicket hands out the next run's place in the order of asking.
func (q *runQueue) nextTicket() uint64 {
	q.lastTicket++
	return q.lastTicket
}

// wakeAll makes every waiter look again.
func (q *runQueue) wakeAll() {
	close(q.wake)
	q.wake = make(chan struct{})
}

// canStart: w's scenario is free, a slot is free if it needs one (of
// maxConcurrent), and, for an API run, no configured run waits for the
// same.
func (q *runQueue) canStart(w waiter, maxConcurrent int) bool {
	free := !q.busy[w.scenario] && (!w.slot || q.slots < maxConcurrent)
	yield := w.ar.api && (q.cfgWaiting[w.scenario] > 0 || (w.slot && q.cfgSlotWaiting > 0))
	return free && !yield
}

// olderWaiterFirst: a run asked for before w could start now and
// would take what w needs (its scenario, or the last free slot), so it
// goes first. An API run never holds back a configured one.
func (q *runQueue) olderWaiterFirst(w waiter, maxConcurrent int) bool {
	for _, o := range q.waiting {
		if o.ar == w.ar || o.ar.ticket > w.ar.ticket || (o.ar.api && !w.ar.api) {
			continue
		}
		conflict := o.scenario == w.scenario || (o.slot && w.slot && q.slots+1 >= maxConcurrent)
		if conflict && q.canStart(o, maxConcurrent) {
			return true
		}
	}
	return false
}

// enter adds w to the waiters, counting a configured run against the
// API runs.
func (q *runQueue) enter(w waiter) {
	q.waiting[w.ar] = w
	if !w.ar.api {
		q.cfgWaiting[w.scenario]++
		if w.slot {
			q.cfgSlotWaiting++
		}
	}
}

// leave takes w out of the waiters (it starts or gave up).
func (q *runQueue) leave(w waiter) {
	delete(q.waiting, w.ar)
	if w.ar.api {
		return
	}
	if q.cfgWaiting[w.scenario]--; q.cfgWaiting[w.scenario] == 0 {
		delete(q.cfgWaiting, w.scenario)
	}
	if w.slot {
		q.cfgSlotWaiting--
	}
}

// take gives w its scenario (and slot); it has left the waiters.
func (q *runQueue) take(w waiter) {
	if w.slot {
		q.slots++
	}
	q.busy[w.scenario] = true
	w.ar.running = true
}

// free gives back what take took.
func (q *runQueue) free(w waiter) {
	if w.slot {
		q.slots--
	}
	delete(q.busy, w.scenario)
	w.ar.running = false
}

// queuedAPI counts the API runs of active waiting as queued.
func queuedAPI(active map[string]*activeRun) int {
	n := 0
	for _, a := range active {
		if a.api && !a.running {
			n++
		}
	}
	return n
}

// acquire waits until no other run of the scenario is going and, for
// runs that count against max_concurrent (slot), for a free slot. A
// configured run (schedule, soak) goes before every API run waiting
// for the same scenario or a slot, so API runs cannot starve them;
// otherwise runs start in the order they were asked for: a run waits
// behind an earlier one that wants the same scenario or a slot and could
// start now (a queue of runs of one scenario runs in order, so its
// history does not zig-zag).
func (d *Daemon) acquire(ctx context.Context, ar *activeRun, scenario string, slot bool) error {
	me := waiter{ar: ar, scenario: scenario, slot: slot}
	d.mu.Lock()
	d.q.enter(me)
	for {
		if d.q.canStart(me, d.cfg.MaxConcurrent) && !d.q.olderWaiterFirst(me, d.cfg.MaxConcurrent) {
			d.q.leave(me)
			d.q.take(me)
			// Runs that waited behind this one look again (another
			// slot may be free for them).
			d.q.wakeAll()
			d.mu.Unlock()
			return nil
		}
		w := d.q.wake
		d.mu.Unlock()
		select {
		case <-w:
			d.mu.Lock()
		case <-ctx.Done():
			d.mu.Lock()
			d.q.leave(me)
			// API runs held back by this one look again.
			d.q.wakeAll()
			d.mu.Unlock()
			return ctx.Err()
		}
	}
}

// release gives back the scenario (and slot) acquire took.
func (d *Daemon) release(ar *activeRun, scenario string, slot bool) {
	d.mu.Lock()
	d.q.free(waiter{ar: ar, scenario: scenario, slot: slot})
	d.q.wakeAll()
	d.mu.Unlock()
}
