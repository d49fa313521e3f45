package engine

import (
	"context"
	"fmt"
	"math/rand/v2"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// runVariants runs the whole phase list once per persistence variant,
// one variant after another, each on its own server (only one server is
// up at a time: what a growth study needs). stopErr ends the run early
// with what ran kept; fatal is a phase that could not run at all. A
// variant whose server dies (an OOM kill in a growth study) ends there,
// its phase marked (variantDown), and the next variant runs on its own
// fresh server; the run then ends interrupted, saying which died.
func (r *runner) runVariants(ctx context.Context, sum *rundir.Summary, spans *[]trace.Span, _ context.CancelCauseFunc) (stopErr, fatal error) {
	var downs downList
	for vi, v := range r.variants() {
		if ctx.Err() != nil || stopErr != nil {
			break
		}
		leave, err := r.enterVariant(ctx, vi, v)
		if err != nil {
			// The next variant's server did not start: keep what the
			// earlier variants measured, end the run here and say why.
			return err, nil
		}
		vctx, endVariant := context.WithCancelCause(ctx)
		stopWatch := watchTarget(r.currentTarget(), endVariant)
		for pi := range r.plan.sc.Phases {
			if vctx.Err() != nil || stopErr != nil {
				break
			}
			if r.resume.skip(pi) {
				continue // finished before the kill
			}
			if r.resume.passed(pi) {
				// Resumed in its middle: its barrier was passed.
			} else if err := r.waitBarrier(vctx, pi, v); err != nil {
				if vctx.Err() != nil {
					break // interrupted: marked by the caller, as for a phase
				}
				// The other shards are gone or late: end the run here,
				// write what ran so far and report why.
				stopErr = err
				break
			}
			if err := r.runNamed(vctx, sum, spans, pi, &r.plan.sc.Phases[pi], v, 0); err != nil {
				stopWatch()
				endVariant(nil)
				leave()
				return nil, err
			}
		}
		stopWatch()
		downs.add(vctx, v)
		endVariant(nil)
		leave()
	}
	if stopErr == nil {
		stopErr = downs.err()
	}
	return stopErr, nil
}

// runNamed runs phase pi (ph: the phase, or one round's slice of it) for
// variant v in round repeat (0: not repeated) and appends its result to
// sum. The variant and round are part of the phase name everywhere:
// progress line, hlog tags, Prometheus phase label, summary.
func (r *runner) runNamed(ctx context.Context, sum *rundir.Summary, spans *[]trace.Span, pi int, ph *scenarios.Phase, v string, repeat int) error {
	if name := PhaseLabel(ph.Name, v, repeat); name != ph.Name {
		vp := *ph
		vp.Name = name
		ph = &vp
	}
	pctx, ps := r.opts.Tracer.Start(ctx, "soakd.phase", trace.WithAttributes(attribute.String("soakd.phase", ph.Name),
		attribute.String("soakd.phase.kind", string(ph.Kind)), attribute.Float64("soakd.target_rate", ph.Rate)))
	pr, err := r.runPhase(pctx, pi, ph)
	if err != nil {
		ps.SetStatus(codes.Error, err.Error())
		ps.End()
		return err
	}
	pr.Variant, pr.Repeat = v, repeat
	r.variantDown(ctx, pr)
	if !pr.Start.IsZero() && !pr.End.IsZero() {
		pr.PersistenceEvents = r.srv.persistence(pr.Start, pr.End)
	}
	if ctx.Err() == nil {
		r.ck.phaseDone(pr, r.phaseSet(pr.Name))
	}
	sum.Phases = append(sum.Phases, *pr)
	*spans = append(*spans, ps)
	return nil
}

// PhaseLabel is the name a phase runs under: name[variant] for a
// persistence variant, #round (1-based) appended for a round of a
// repeated phase.
func PhaseLabel(name, variant string, repeat int) string {
	if variant != "" {
		name = fmt.Sprintf("%s[%s]", name, variant)
	}
	if repeat > 0 {
		name = fmt.Sprintf("%s#%d", name, repeat)
	}
	return name
}

// variantState is one persistence variant's server while a repeated run
// keeps them all up, and the records its dataset holds.
type variantState struct {
	name     string
	target   targets.Target
	own      bool // opened for the variant (closed at the end)
	inserted int64
}

// runRounds runs the scenario with repeat: N > 1. Every variant's
// server is up for the whole run. Phase by phase: a repeated phase
// (steady, throughput sweep) runs in N rounds, each a 1/N slice of it
// for every variant, in the round's interleave order (so the host's
// drift hits all variants alike); any other phase runs once per variant.
func (r *runner) runRounds(ctx context.Context, sum *rundir.Summary, spans *[]trace.Span, cancelRun context.CancelCauseFunc) (stopErr, fatal error) {
	vs, err := r.openVariants(ctx)
	orig := r.currentTarget()
	var stops []func()
	for _, v := range vs {
		stops = append(stops, watchTarget(v.target, cancelRun))
	}
	defer func() {
		for _, stop := range stops {
			stop()
		}
		r.setTarget(orig)
		for _, v := range vs {
			if v.own {
				v.target.Close()
			}
		}
		r.order = nil
		r.round = 0
	}()
	if err != nil {
		return err, nil
	}
	n := r.plan.sc.Repeats()
	order := NewRoundOrder(r.plan.sc.Interleave, r.plan.sc.Seed)
	r.order = &order
	cur := -1
	enter := func(vi int) {
		if cur == vi {
			return
		}
		if cur >= 0 {
			vs[cur].inserted = r.inserted.Load()
		}
		r.setTarget(vs[vi].target)
		r.inserted.Store(vs[vi].inserted)
		cur = vi
	}
	// Resumed: the phases and rounds finished before the kill are
	// skipped (the checkpoint holds their results), the one it was
	// killed in goes on in its round (resume_rounds.go).
	skip, mid := r.resume.rounds()
	if r.resume != nil && len(vs) == 1 {
		vs[0].inserted = r.inserted.Load() // the checkpoint's
	}
	unit := 0
	run := func(pi int, ph *scenarios.Phase, vi, repeat int) (stop bool, err error) {
		u := unit
		unit++
		if u < skip {
			return false, nil // finished before the kill
		}
		if ctx.Err() != nil {
			return true, nil
		}
		key := vs[vi].name
		if repeat > 1 {
			key = fmt.Sprintf("%s#%d", key, repeat)
		}
		if u == skip && mid != "" {
			// Resumed in its middle: its barrier was passed.
			if label := PhaseLabel(ph.Name, vs[vi].name, repeat); label != mid {
				return true, &ResumeError{fmt.Sprintf("the checkpoint's phase %s is not the run's %d-th phase and round (%s)", mid, u+1, label)}
			}
		} else if err := r.waitBarrier(ctx, pi, key); err != nil {
			if ctx.Err() == nil {
				stopErr = err
			}
			return true, nil
		}
		enter(vi)
		return false, r.runNamed(ctx, sum, spans, pi, ph, vs[vi].name, repeat)
	}
	for pi := range r.plan.sc.Phases {
		ph := &r.plan.sc.Phases[pi]
		if !ph.Repeated() {
			for vi := range vs {
				if stop, err := run(pi, ph, vi, 0); stop || err != nil {
					return stopErr, err
				}
			}
			continue
		}
		for round := range n {
			slice := ph.RepeatSlice(round, n)
			r.round = round + 1
			for _, vi := range order.Order(len(vs), pi, round, 0) {
				if stop, err := run(pi, &slice, vi, round+1); stop || err != nil {
					return stopErr, err
				}
			}
		}
		r.round = 0
	}
	return stopErr, nil
}

// openVariants starts every persistence variant's server (the run's
// own target serves the first, as in runVariants) and prepares it; on
// an error the ones already open are returned to be closed.
func (r *runner) openVariants(ctx context.Context) ([]variantState, error) {
	names := r.variants()
	vs := make([]variantState, 0, len(names))
	for vi, v := range names {
		st := variantState{name: v, target: r.currentTarget(), inserted: r.plan.initInserted}
		if v != "" {
			tg, err := r.openVariant(vi, v)
			if err != nil {
				return vs, err
			}
			if tg != nil {
				st.target, st.own = tg, true
				vs = append(vs, st)
				if p, ok := tg.(targets.Preparer); ok {
					if err := p.Prepare(ctx, r.plan.sc); err != nil {
						return vs, fmt.Errorf("%s: prepare target: %w", v, err)
					}
				}
				continue
			}
		}
		vs = append(vs, st)
	}
	return vs, nil
}

// RoundOrder is the order the variants of a repeated phase run in,
// round by round: the same order every round (alternate: ABAB...) or a
// fresh permutation per round drawn from the scenario's seed (random).
// The same seed gives the same orders.
type RoundOrder struct {
	mode scenarios.Interleave
	seed int64
}

// NewRoundOrder is the order for an interleave mode ("" = random).
func NewRoundOrder(mode scenarios.Interleave, seed int64) RoundOrder {
	if mode == "" {
		mode = scenarios.InterleaveRandom
	}
	return RoundOrder{mode: mode, seed: seed}
}

// Order is the order of n variants in round (0-based) of phase pi;
// stream tells apart orders drawn for different things in one round
// (the variants, a sweep's points).
func (o RoundOrder) Order(n, pi, round, stream int) []int {
	if o.mode == scenarios.InterleaveAlternate {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	rng := rand.New(rand.NewPCG(uint64(o.seed)^0x726570656174, uint64(pi)<<40|uint64(round)<<8|uint64(stream)))
	return rng.Perm(n)
}
