package daemon

// The run queue's order. A run waits in acquire for its scenario (one
// run of a scenario at a time) and, when it takes one, a slot
// (max_concurrent). When either frees, every waiter looks again; of
// those that could start, the one asked for first (the lowest ticket)
// starts, so queued runs start in the order they were asked for and the
// history's runs follow one another in time. Configured runs (soaks,
// schedules) still go before API runs: an API run yields to any
// configured run waiting for what it needs.

// waiter is one run in acquire.
type waiter struct {
	ar       *activeRun
	scenario string
	slot     bool
}

func (d *Daemon) addWaiterLocked(w waiter) {
	if d.waiting == nil {
		d.waiting = map[*activeRun]waiter{}
	}
	d.waiting[w.ar] = w
}

func (d *Daemon) removeWaiterLocked(ar *activeRun) { delete(d.waiting, ar) }

// canStartLocked: w's scenario is free, a slot is free if it needs one,
// and, for an API run, no configured run waits for the same.
func (d *Daemon) canStartLocked(w waiter) bool {
	free := !d.busy[w.scenario] && (!w.slot || d.slots < d.cfg.MaxConcurrent)
	yield := w.ar.api && (d.cfgWaiting[w.scenario] > 0 || (w.slot && d.cfgSlotWaiting > 0))
	return free && !yield
}

// olderWaiterFirstLocked: a run asked for before w could start now and
// would take what w needs (its scenario, or the last free slot), so it
// goes first. An API run never holds back a configured one.
func (d *Daemon) olderWaiterFirstLocked(w waiter) bool {
	for _, o := range d.waiting {
		if o.ar == w.ar || o.ar.ticket > w.ar.ticket || (o.ar.api && !w.ar.api) {
			continue
		}
		conflict := o.scenario == w.scenario || (o.slot && w.slot && d.slots+1 >= d.cfg.MaxConcurrent)
		if conflict && d.canStartLocked(o) {
			return true
		}
	}
	return false
}
