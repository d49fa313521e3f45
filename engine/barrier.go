package engine

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/soakd/soakd/targets"
)

// Phase barriers: when a run is split over N shards, the shards meet at
// a counter in the store itself (targets.Barrier) before every phase of
// every persistence variant: before the first phase (so no shard starts
// before the others are up) and between phases (so no shard reads
// records another shard has not loaded yet). There is none after the
// last phase: nothing runs after it that depends on the other shards.
// The wait lies between phases, outside every phase's timing: it counts
// in no latency, schedule, rate or duration.

// DefaultBarrierTimeout is how long a shard waits for the others at a
// barrier when Options.BarrierTimeout is 0.
const DefaultBarrierTimeout = 10 * time.Minute

// BarrierKey is the store key of the barrier before phase pi of the
// scenario (in persistence variant v; "" = none) in run id.
func BarrierKey(id, scenario string, pi int, variant string) string {
	k := "soakd:barrier:" + id + ":" + scenario + ":" + strconv.Itoa(pi)
	if variant != "" {
		k += ":" + variant
	}
	return k
}

// barrierName names the barrier before phase pi for people: "before
// load" for the first phase, "after load" between phases.
func (r *runner) barrierName(pi int, v string) string {
	name := func(i int) string {
		n := r.plan.sc.Phases[i].Name
		if v != "" {
			n += "[" + v + "]"
		}
		return n
	}
	if pi == 0 {
		return "before " + name(0)
	}
	return "after " + name(pi-1)
}

// barrierOn reports whether this run synchronises its phases with the
// other shards: sharded, a run id, and a target that can hold a barrier.
func (r *runner) barrierOn() bool {
	if r.opts.Shard.Count <= 1 || r.opts.RunID == "" {
		return false
	}
	_, ok := r.currentTarget().(targets.Barrier)
	return ok
}

// waitBarrier waits for every shard at the barrier before phase pi. It
// returns ctx's error when the run is interrupted, and an error naming
// the shard, the barrier and the arrivals when the shards do not all
// arrive within the timeout.
func (r *runner) waitBarrier(ctx context.Context, pi int, v string) error {
	if !r.barrierOn() {
		return nil
	}
	b := r.currentTarget().(targets.Barrier)
	key := BarrierKey(r.opts.RunID, r.plan.sc.Name, pi, v)
	name := r.barrierName(pi, v)
	to := r.opts.BarrierTimeout
	if to <= 0 {
		to = DefaultBarrierTimeout
	}
	n := r.opts.Shard.Count
	ctx, span := r.opts.Tracer.Start(ctx, "soakd.barrier", trace.WithAttributes(
		attribute.String("soakd.barrier", name), attribute.Int("soakd.shards", n)))
	defer span.End()
	w := targets.BarrierWait{N: n, Timeout: to}
	if r.opts.Progress != nil {
		// Like the progress line: in place on a terminal (cleared once
		// the shards are all there), else at once and then each interval,
		// or each ProgressEvery when the lines are thinned.
		w.ReportEvery = r.opts.Interval
		live, isLive := r.opts.Progress.(LiveLine)
		if !isLive && r.progress.every > 0 {
			w.ReportEvery = r.progress.every
		}
		w.Report = func(arrived int) {
			line := fmt.Sprintf("[barrier %s] %d/%d shards", name, arrived, n)
			if isLive {
				live.Live(line)
				return
			}
			fmt.Fprintln(r.opts.Progress, line)
		}
		if isLive {
			defer live.Live("")
		}
	}
	// A resumed shard killed while it waited here arrived already.
	w.Rejoin = r.resume.arrived(key)
	w.OnArrive = func() { r.ck.arrived(key) }
	err := targets.WaitBarrier(ctx, b, key, w)
	if err == nil || ctx.Err() != nil {
		return err
	}
	span.SetStatus(codes.Error, err.Error())
	if errors.Is(err, targets.ErrBarrierTimeout) {
		return fmt.Errorf("shard %s: barrier %s (%s): %w; a shard may have failed or started late (--barrier-timeout sets the wait)", r.opts.Shard, name, key, err)
	}
	return fmt.Errorf("shard %s: barrier %s (%s): %w", r.opts.Shard, name, key, err)
}
