package engine

import "time"

// The collector's once-an-interval work (drain the stripes, merge the
// window into the totals, rebuild its histograms, latency.hlog,
// counts.csv, the exporter) runs on the same Ps as the pacer. With
// GOMAXPROCS=1 (one core) the pacer, parked on its timerfd in the
// netpoller, cannot run until the collector blocks: the Go scheduler
// looks at the netpoller only when it has no runnable goroutine, so
// runtime.Gosched hands the P straight back to the collector. A burst
// of 1 ms delays every op due in it (50 ops at 50,000 ops/s, 0.1% of
// them each second: the lag's p99.9). pauser cuts the burst into slices
// of at most its budget and between them sleeps briefly, which parks
// the collector on a timer: the scheduler then polls the network and
// runs the pacer and the workers it wakes before the collector again.

// collectorBudget is the collector's longest slice of work between
// pauses: at 50,000 ops/s it delays ~5 ops by at most this much.
const collectorBudget = 100 * time.Microsecond

// collectorNap is the pause's sleep: any positive time parks the
// collector; the runtime wakes it when the P next runs out of work or
// at its timer resolution (up to 1 ms on Linux), so a pause costs the
// collector wall time, not CPU.
const collectorNap = 20 * time.Microsecond

// pauser lets other goroutines run once its budget of work since the
// last pause is spent. Not safe for concurrent use: one per collector.
type pauser struct {
	budget time.Duration
	now    func() time.Time
	sleep  func(time.Duration)
	since  time.Time // start of the current slice of work
	slices int       // begin calls: the collector's intervals (tests)
	pauses int       // pauses taken (tests)
}

func newPauser(ts timeSource) *pauser {
	return &pauser{budget: collectorBudget, now: ts.now, sleep: time.Sleep}
}

// begin starts a slice of work (the collector woke up).
func (p *pauser) begin() {
	p.slices++
	p.since = p.now()
}

// pause ends the slice when it has used its budget: it sleeps, and the
// next slice starts when it wakes.
func (p *pauser) pause() {
	if p.now().Sub(p.since) < p.budget {
		return
	}
	p.sleep(collectorNap)
	p.pauses++
	p.since = p.now()
}

// newPauser is a collector's pauser on the run's clock.
func (r *runner) newPauser() *pauser {
	p := newPauser(r.time)
	if r.opts.pauserWrap != nil {
		r.opts.pauserWrap(p)
	}
	return p
}
