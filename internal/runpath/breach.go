package runpath

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
)

// BreachError ends a run whose SLO broke in slo.stop_after consecutive
// windows of slo.window (the run's status reason and the phase's
// ended_early say so).
type BreachError struct {
	Phase, Op, Quantile string
	Limit               float64 // seconds
	Windows             int
	Width               time.Duration
}

func (e *BreachError) Error() string {
	q, _ := strconv.ParseFloat(e.Quantile, 64)
	name := "p" + strconv.FormatFloat(q*100, 'g', -1, 64)
	if q >= 1 {
		name = "max"
	}
	return fmt.Sprintf("stopped on a sustained SLO breach (slo.stop_after): %s latency %s over %s in %d consecutive %s windows of phase %s",
		e.Op, name, rundir.FormatSeconds(e.Limit), e.Windows, e.Width, e.Phase)
}

// breachWatch follows the exporter's SLO counts of the steady phases
// and finds the first op and limit broken in `after` consecutive
// windows: a window breaks a pNN limit when more than (100-NN)% of its
// ops were slower than the limit (max: any op), counted as
// soakd_op_latency_over_slo_total counts them. Windows start at the end
// of the phase's warmup, as the post-run window checks' do.
type breachWatch struct {
	width  time.Duration
	after  int
	warmup map[string]time.Duration // the steady phases, with their warmups

	phase    string
	winStart time.Time // zero: the window's base counts not taken yet
	base     map[string]metrics.SLOCount
	run      map[string]int
}

func newBreachWatch(sc *scenarios.Scenario) *breachWatch {
	b := &breachWatch{width: sc.SLO.Window.D(), after: sc.SLO.StopAfter, warmup: map[string]time.Duration{}}
	for _, p := range sc.Phases {
		if p.Kind.Budgeted() { // the kinds the SLO's budgets and windows judge
			b.warmup[p.Name] = p.Warmup.D()
		}
	}
	return b
}

// observe takes the counts of phase (the phase running) at now; it
// returns the breach that ends the run, or nil.
func (b *breachWatch) observe(now time.Time, phase string, counts []metrics.SLOCount) *BreachError {
	warm, steady := b.warmup[phase]
	if !steady {
		b.phase = ""
		return nil
	}
	if phase != b.phase {
		// A new phase: its first window opens after its warmup.
		b.phase, b.winStart, b.base, b.run = phase, now.Add(warm), nil, map[string]int{}
	}
	if now.Before(b.winStart) {
		return nil
	}
	if b.base == nil {
		b.base = keyed(counts)
		b.winStart = now
		return nil
	}
	if now.Sub(b.winStart) < b.width {
		return nil
	}
	var found *BreachError
	for k, c := range keyed(counts) {
		prev := b.base[k]
		total, over := c.Total-prev.Total, c.Over-prev.Over
		if total == 0 {
			continue
		}
		q, _ := strconv.ParseFloat(c.Quantile, 64)
		if float64(over) > (1-q)*float64(total) {
			b.run[k]++
		} else {
			b.run[k] = 0
		}
		if b.run[k] >= b.after && (found == nil || k < found.Op+" "+found.Quantile) {
			found = &BreachError{Phase: phase, Op: c.Op, Quantile: c.Quantile, Limit: c.Limit, Windows: b.run[k], Width: b.width}
		}
	}
	b.base, b.winStart = keyed(counts), now
	return found
}

func keyed(cs []metrics.SLOCount) map[string]metrics.SLOCount {
	m := make(map[string]metrics.SLOCount, len(cs))
	for _, c := range cs {
		m[c.Op+" "+c.Quantile] = c
	}
	return m
}

// watchSLO is ctx, ended by the first sustained breach when the
// scenario sets slo.stop_after; stop ends the watch and returns the
// breach that ended the run (nil: none).
func watchSLO(ctx context.Context, sc *scenarios.Scenario, exp *metrics.Exporter) (context.Context, func() *BreachError) {
	if sc == nil || sc.SLO.StopAfter <= 0 || sc.SLO.Window <= 0 || exp == nil {
		return ctx, func() *BreachError { return nil }
	}
	wctx, cancel := context.WithCancelCause(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		watchBreaches(wctx, sc, exp, cancel)
	}()
	return wctx, func() *BreachError {
		cancel(nil)
		<-done
		b, _ := context.Cause(wctx).(*BreachError)
		return b
	}
}

// watchBreaches samples exp every second until ctx ends, and cancels
// the run with the first sustained breach.
func watchBreaches(ctx context.Context, sc *scenarios.Scenario, exp *metrics.Exporter, cancel context.CancelCauseFunc) {
	b := newBreachWatch(sc)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			phase, counts := exp.SLOCounts()
			if e := b.observe(now, phase, counts); e != nil {
				cancel(e)
				return
			}
		}
	}
}
