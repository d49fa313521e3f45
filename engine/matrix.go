package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// growthVariants returns the persistence variants a growth phase runs
// under (target.managed.persistences), or nil when there is no matrix.
func (r *runner) growthVariants(ph *scenarios.Phase) []string {
	m := r.sc.Target.Managed
	if ph.Kind != scenarios.PhaseGrowth || r.opts.Reopen == nil || m == nil || len(m.Persistences) == 0 {
		return nil
	}
	return m.Persistences
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
	r.statsMu.Lock()
	r.lastStats = nil
	r.statsMu.Unlock()
}

// runGrowthMatrix runs a growth phase once per persistence variant. The
// first variant runs on the target the run opened (when it was started
// with that variant); every other variant gets a fresh server from
// Options.Reopen, starting from an empty dataset, closed after its
// phase. Results are named phase[variant].
func (r *runner) runGrowthMatrix(ctx context.Context, pi int, ph *scenarios.Phase, variants []string) ([]PhaseResult, error) {
	orig := r.target
	startN := r.inserted.Load()
	endN := startN
	m := r.sc.Target.Managed
	first := m.Persistence
	if first == "" {
		first = m.Persistences[0]
	}
	var out []PhaseResult
	for i, v := range variants {
		if ctx.Err() != nil {
			break
		}
		tg := orig
		reopened := i > 0 || v != first
		if reopened {
			var err error
			if tg, err = r.opts.Reopen(v); err != nil {
				return nil, fmt.Errorf("phase %s[%s]: %w", ph.Name, v, err)
			}
			if p, ok := tg.(targets.Preparer); ok {
				if err := p.Prepare(ctx, r.sc); err != nil {
					tg.Close()
					return nil, fmt.Errorf("phase %s[%s]: prepare target: %w", ph.Name, v, err)
				}
			}
			r.inserted.Store(0)
		} else {
			r.inserted.Store(startN)
		}
		r.setTarget(tg)
		// The variant is part of the phase name everywhere: progress line,
		// hlog tags, Prometheus phase label, summary.
		vp := *ph
		vp.Name = fmt.Sprintf("%s[%s]", ph.Name, v)
		pr, err := r.runPhase(ctx, pi, &vp)
		if !reopened {
			endN = r.inserted.Load()
		}
		r.setTarget(orig)
		if reopened {
			tg.Close()
		}
		if err != nil {
			return nil, err
		}
		pr.Variant = v
		out = append(out, *pr)
	}
	r.inserted.Store(endN)
	return out, nil
}

var errNoStats = errors.New("target reports no server stats")
