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
	srvLog := rundir.CreateServerLog(r.opts.OutDir) // server.csv: what verdicts read back
	stop := everyInterval(ctx, r.opts.Interval, func(ctx context.Context) { r.sampleStats(ctx, srvLog) })
	return func() {
		stop()
		srvLog.Close()
	}
}

// sampleStats takes one background sample of the current target's
// server stats: to the exporter, and kept (in memory and server.csv)
// when the target was not swapped meanwhile.
func (r *runner) sampleStats(ctx context.Context, srvLog *rundir.ServerLogWriter) {
	tg := r.currentTarget()
	src, ok := tg.(targets.StatsSource)
	if !ok {
		return
	}
	c, cc := context.WithTimeout(ctx, r.opts.Interval)
	t0 := r.time.now()
	st, err := src.ServerStats(c)
	took := r.time.since(t0)
	cc()
	if r.opts.Exporter != nil && ctx.Err() == nil {
		r.opts.Exporter.ServerStats(st, err, took)
	}
	if err == nil && r.currentTarget() == tg {
		r.srv.observeSpan(t0, r.time.now(), st)
		srvLog.Add(t0, st)
	}
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
