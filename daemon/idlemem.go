package daemon

import "runtime/debug"

// releaseIfIdle hands the heap's free pages back to the OS when the run
// that just ended was the last one going. A run's histograms and
// workers (~15-20 MB for a few workers, more for many) are garbage once
// it ends; the runtime would keep their pages resident and release them
// only slowly, so between runs (schedules hourly, daily) the daemon would
// sit at its last run's peak, and over many short runs its RSS would
// drift with which pages the allocator happened to reuse. With another
// run going nothing is released here: that run's pages are in use, and
// `soakd serve --release-memory-every` (internal/memrelease, every 10 s
// by default) returns what is free during runs, at a cost not seen in
// the schedule's lag even at one release a second.
func (d *Daemon) releaseIfIdle() {
	d.mu.Lock()
	idle := len(d.active) == 0 && !d.stopping
	d.mu.Unlock()
	if !idle {
		return
	}
	if d.o.releaseMemory != nil {
		d.o.releaseMemory()
		return
	}
	debug.FreeOSMemory()
}
