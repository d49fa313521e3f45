package engine

import (
	"context"
	"time"

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
	go func() {
		defer close(done)
		t := time.NewTicker(r.interval)
		defer t.Stop()
		for {
			tg := r.currentTarget()
			var st map[string]float64
			err := errNoStats
			var took time.Duration
			if src, ok := tg.(targets.StatsSource); ok {
				c, cc := context.WithTimeout(sctx, r.interval)
				t0 := r.time.now()
				st, err = src.ServerStats(c)
				took = r.time.since(t0)
				cc()
				if r.opts.Exporter != nil && sctx.Err() == nil {
					r.opts.Exporter.ServerStats(st, err, took)
				}
			}
			if err == nil && r.currentTarget() == tg {
				r.persist.observe(r.time.now(), st)
				r.statsMu.Lock()
				r.lastStats = st
				r.statsMu.Unlock()
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

func (r *runner) stats() map[string]float64 {
	r.statsMu.Lock()
	defer r.statsMu.Unlock()
	if r.lastStats == nil {
		return nil
	}
	out := make(map[string]float64, len(r.lastStats))
	for k, v := range r.lastStats {
		out[k] = v
	}
	return out
}

// freshStats samples the server now (a stage's closing snapshot) and
// falls back to the background sampler's latest.
func (r *runner) freshStats(ctx context.Context) map[string]float64 {
	if src, ok := r.currentTarget().(targets.StatsSource); ok {
		c, cancel := context.WithTimeout(ctx, 2*time.Second)
		st, err := src.ServerStats(c)
		cancel()
		if err == nil {
			r.persist.observe(r.time.now(), st)
			r.statsMu.Lock()
			r.lastStats = st
			r.statsMu.Unlock()
			return r.stats()
		}
	}
	return r.stats()
}
