package runpath

import (
	"context"
	"fmt"

	"go.opentelemetry.io/otel/trace"

	"github.com/soakd/soakd/engine"
	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/targets"
)

// opened is a run whose target, exporter and tracer are ready.
type opened struct {
	o        Options
	target   targets.Target
	exporter *metrics.Exporter
	topts    targets.Options
	tracer   trace.Tracer
	plan     *engine.Plan // prepared before the target opened
	shutdown func(context.Context) error
}

// open opens the target, the exporter and tracing (its errors mean the
// run could not start: bad input, target unreachable, tracing
// misconfigured). warn gets the target's warnings. Close it.
func open(ctx context.Context, o Options, warn func(string)) (*opened, error) {
	sc := o.Scenario
	r := &opened{o: o, exporter: o.Exporter}
	if r.exporter == nil {
		exp, err := NewExporter(sc, o.Shard, o.Version)
		if err != nil {
			return nil, err
		}
		r.exporter = exp
	}
	// The plan first: its errors (a capture or corpus that cannot be
	// read, a custom op with no template for the store) come before
	// the target is opened or a managed server started.
	plan, err := engine.Prepare(ctx, sc, engine.Options{TargetKind: sc.Target.Kind, Shard: o.Shard})
	if err != nil {
		return nil, err
	}
	r.plan = plan
	r.topts = targets.Options{Env: o.Getenv, Warn: warn, Concurrency: sc.MaxConcurrency(), AllowDestructive: sc.AllowDestructive}
	tg, err := targets.Open(ctx, sc.Target, r.topts)
	if err != nil {
		plan.Close()
		return nil, err
	}
	r.target = tg
	tp, shutdown, err := metrics.NewTracerProvider(ctx, metrics.TracingConfig{Endpoint: o.OTLPEndpoint, Getenv: o.Getenv, Version: o.Version})
	if err != nil {
		tg.Close()
		plan.Close()
		return nil, fmt.Errorf("tracing: %w", err)
	}
	r.tracer, r.shutdown = tp.Tracer("github.com/soakd/soakd"), shutdown
	return r, nil
}

// start runs the scenario to its end (or ctx's): engine.Run's summary
// and error. The run directory's logs are written; its summary is
// finish's.
func (r *opened) start(ctx context.Context, runID string, resume *rundir.Checkpoint) (*rundir.Summary, error) {
	sc := r.o.Scenario
	var tvs []engine.TargetVariant
	if len(r.o.Targets) > 1 {
		for i, t := range r.o.Targets {
			tvs = append(tvs, engine.TargetVariant{Name: fmt.Sprintf("target-%d", i+1), URL: t.URL,
				Open: func() (targets.Target, error) { return targets.Open(ctx, t, r.topts) }})
		}
	}
	return engine.Run(ctx, engine.Options{Targets: tvs,
		Scenario: sc, Target: r.target, TargetKind: sc.Target.Kind, TargetURL: sc.Target.URL,
		OutDir: r.o.OutDir, Progress: r.o.Progress, ProgressEvery: r.o.ProgressEvery, Exporter: r.exporter, Tracer: r.tracer, Shard: r.o.Shard,
		Control: r.o.Control, Reopen: targets.Reopener(ctx, sc.Target, r.topts), RunID: runID, BarrierTimeout: r.o.BarrierTimeout,
		Version: r.o.Version, SelfHealthRoot: selfHealthRoot(r.o.NoSelfHealth), Plan: r.plan,
		Checkpoint: &engine.CheckpointConfig{Identity: currentIdentity(r.o), Recipe: r.o.Recipe, Every: checkpointEvery(r.o.CheckpointEvery)}, Resume: resume,
	})
}

// close closes the target and the plan, and flushes the spans (bounded
// by ctx).
func (r *opened) close(ctx context.Context) error {
	r.target.Close()
	r.plan.Close()
	if err := r.shutdown(ctx); err != nil {
		return fmt.Errorf("tracing: %w", err)
	}
	return nil
}

// selfHealthRoot is where the run reads its own health: the host's /proc,
// or nowhere when off.
func selfHealthRoot(off bool) string {
	if off {
		return ""
	}
	return "/"
}
