package engine

import (
	"context"
	"fmt"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// variants returns the persistence variants the run goes through
// (target.managed.persistences, when Options.Reopen can start servers),
// or [""]: one pass with the target the run was given.
func (r *runner) variants() []string {
	if len(r.opts.Targets) > 0 {
		var out []string
		for _, tv := range r.opts.Targets {
			out = append(out, tv.Name)
		}
		return out
	}
	m := r.plan.sc.Target.Managed
	if r.opts.Reopen == nil || m == nil || len(m.Persistences) == 0 {
		return []string{""}
	}
	return m.Persistences
}

// enterVariant makes variant v (the vi-th) the run's target before its
// pass over the phases, and returns the function that ends the pass. The
// first variant runs on the target the run opened when that was started
// with it; every other variant gets a fresh server from Options.Reopen,
// starting from an empty dataset, and closed when its pass ends.
func (r *runner) enterVariant(ctx context.Context, vi int, v string) (leave func(), err error) {
	if v == "" {
		return func() {}, nil
	}
	orig := r.currentTarget()
	r.inserted.Store(r.plan.initInserted)
	tg, err := r.openVariant(vi, v)
	if tg == nil || err != nil {
		return func() {}, err
	}
	if p, ok := tg.(targets.Preparer); ok {
		if err := p.Prepare(ctx, r.plan.sc); err != nil {
			tg.Close()
			return nil, fmt.Errorf("persistence %s: prepare target: %w", v, err)
		}
	}
	r.setTarget(tg)
	return func() {
		r.setTarget(orig)
		tg.Close()
	}, nil
}

// TargetVariant is one of several targets a run compares (Options.Targets).
type TargetVariant struct {
	Name string // target-1, target-2, ...
	URL  string
	Open func() (targets.Target, error)
}

// openVariant opens variant v (the vi-th) a server or target of its
// own, or returns nil when it runs on the target the run was given (the
// first target; the first persistence variant when the run's target was
// started with it).
func (r *runner) openVariant(vi int, v string) (targets.Target, error) {
	if len(r.opts.Targets) > 0 {
		if vi == 0 {
			return nil, nil
		}
		tg, err := r.opts.Targets[vi].Open()
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", v, scenarios.RedactURL(r.opts.Targets[vi].URL), err)
		}
		return tg, nil
	}
	m := r.plan.sc.Target.Managed
	first := m.Persistence
	if first == "" {
		first = m.Persistences[0]
	}
	if vi == 0 && v == first {
		return nil, nil
	}
	tg, err := r.opts.Reopen(v)
	if err != nil {
		return nil, fmt.Errorf("persistence %s: %w", v, err)
	}
	return tg, nil
}

func (r *runner) currentTarget() targets.Target {
	r.tgMu.Lock()
	defer r.tgMu.Unlock()
	return r.target
}

// setTarget swaps the target between segments (no worker is running) and
// forgets the old target's stats.
func (r *runner) setTarget(tg targets.Target) {
	r.tgMu.Lock()
	r.target = tg
	r.tgMu.Unlock()
	// The old server's stats and persistence jobs end with it.
	r.srv.newTarget(r.time.now())
}
