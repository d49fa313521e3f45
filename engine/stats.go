package engine

import (
	"context"
	"sync"
	"time"

	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/targets"
)

// startStats samples server stats each interval in the background so a
// slow stats call never delays the load.
func (r *runner) startStats(ctx context.Context) func() {
	if _, ok := r.target.(targets.StatsSource); !ok {
		return func() {}
	}
	sctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	srvLog := rundir.CreateServerLog(r.opts.OutDir) // server.csv: what verdicts read back
	go func() {
		defer close(done)
		defer srvLog.Close()
		t := time.NewTicker(r.interval)
		defer t.Stop()
		for {
			tg := r.currentTarget()
			var st map[string]float64
			err := errNoStats
			var took time.Duration
			t0 := r.time.now()
			if src, ok := tg.(targets.StatsSource); ok {
				c, cc := context.WithTimeout(sctx, r.interval)
				t0 = r.time.now()
				st, err = src.ServerStats(c)
				took = r.time.since(t0)
				cc()
				if r.opts.Exporter != nil && sctx.Err() == nil {
					r.opts.Exporter.ServerStats(st, err, took)
				}
			}
			if err == nil && r.currentTarget() == tg {
				r.srv.observeSpan(t0, r.time.now(), st)
				srvLog.Add(t0, st)
			}
			select {
			case <-sctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return func() { cancel(); <-done }
}

// stats is the latest server stats sample (a copy; nil when none).
func (r *runner) stats() map[string]float64 { return r.srv.latest() }

// freshStats samples the server now (a stage's closing snapshot) and
// falls back to the background sampler's latest.
func (r *runner) freshStats(ctx context.Context) map[string]float64 {
	if src, ok := r.currentTarget().(targets.StatsSource); ok {
		c, cancel := context.WithTimeout(ctx, 2*time.Second)
		st, err := src.ServerStats(c)
		cancel()
		if err == nil {
			r.srv.observe(r.time.now(), st)
			return r.stats()
		}
	}
	return r.stats()
}

// serverStats is the current target's latest server stats sample,
// shared by the background sampler and the stages' closing snapshots,
// and the persistence jobs (BGSAVE, AOF rewrite) seen in the samples.
type serverStats struct {
	mu      sync.Mutex
	last    map[string]float64
	persist persistTracker
}

// observe takes a sample taken at at.
func (s *serverStats) observe(at time.Time, st map[string]float64) {
	s.observeSpan(at, at, st)
}

// observeSpan is observe of a sample asked for at taken (the
// persistence periods start from when the server may have answered).
func (s *serverStats) observeSpan(taken, at time.Time, st map[string]float64) {
	s.persist.observeSpan(taken, at, st)
	s.mu.Lock()
	s.last = st
	s.mu.Unlock()
}

// latest returns a copy of the last sample, nil when there is none.
func (s *serverStats) latest() map[string]float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.last == nil {
		return nil
	}
	out := make(map[string]float64, len(s.last))
	for k, v := range s.last {
		out[k] = v
	}
	return out
}

// newTarget forgets the old target's sample at a target swap; its
// persistence jobs end at at.
func (s *serverStats) newTarget(at time.Time) {
	s.mu.Lock()
	s.last = nil
	s.mu.Unlock()
	s.persist.newTarget(at)
}

// persistence returns the persistence periods that overlap [from, to].
func (s *serverStats) persistence(from, to time.Time) []rundir.PersistenceEvent {
	return s.persist.between(from, to)
}
