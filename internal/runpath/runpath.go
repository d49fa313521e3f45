// Package runpath is the one way a scenario run is wired, for `soakd
// run` and for the daemon alike: overrides applied and validated, the
// target (and its persistence variants) opened, the Prometheus exporter
// with the SLO series, tracing, then engine.Run. A feature added here
// exists in both, or in neither.
package runpath

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/soakd/soakd/engine"
	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
	"github.com/soakd/soakd/verdict"
)

// Overrides change a scenario for one run: --target/--rate/--duration/
// --seed on the command line, a schedule's or API request's target in
// the daemon. Zero fields change nothing.
type Overrides struct {
	Target   string   // URL; the kind follows from its scheme; merged into the scenario's (MergeTargetURL)
	Rate     *float64 // every non-load phase's rate
	Duration string   // every steady phase's duration
	Warmup   string   // every steady phase's warmup
	Records  string   // keyspace.records, and load phases' records
	// Concurrency is every phase's workers (0: unchanged).
	Concurrency int
	Seed        string
	// Repeat is the scenario's repeat: (0: unchanged).
	Repeat int
	// Note is told of an adjustment an override made (a warmup not
	// shorter than the new duration); nil: none.
	Note func(string)
}

// OverrideError is an override value that is wrong in itself; Name is
// the override ("target", "rate", ...), without a flag's dashes.
type OverrideError struct {
	Name string
	Msg  string
}

func (e *OverrideError) Error() string { return e.Name + e.Msg }

// Apply applies o to sc and validates the result. An override value
// that is wrong in itself is an *OverrideError; otherwise the scenario's
// problems after the overrides are returned (none: ready to run). The
// daemon checks schedule and soak targets with it at config load, and
// every run with it again.
func Apply(sc *scenarios.Scenario, o Overrides) ([]scenarios.FieldError, error) {
	if o.Target != "" {
		kind := scenarios.KindFromURL(o.Target)
		if kind == "" || kind == scenarios.KindEmbedded {
			return nil, &OverrideError{"target", " " + scenarios.RedactURL(o.Target) + ": unknown URL scheme (use redis://, rediss://, mongodb://, http(s)://, cql://, cqls://)"}
		}
		if scenarios.CanonicalKind(sc.Target.Kind) != kind {
			sc.Target.Kind = kind // an alias (scylla, cassandra) naming the same adapter stays
		}
		sc.Target.URL = MergeTargetURL(sc.Target.URL, o.Target)
	}
	if o.Rate != nil {
		if err := scenarios.CheckRate(*o.Rate, true); err != nil {
			return nil, &OverrideError{"rate", fmt.Sprintf(" %v: %v", *o.Rate, err)}
		}
		for i := range sc.Phases {
			if ph := &sc.Phases[i]; ph.TakesRateOverride() {
				ph.Rate = *o.Rate
			}
		}
	}
	if o.Duration != "" {
		d, err := scenarios.ParseDuration(o.Duration)
		switch {
		case err != nil:
			return nil, &OverrideError{"duration", fmt.Sprintf(" %s: %s", o.Duration, DurationHint(o.Duration))}
		case d <= 0:
			return nil, &OverrideError{"duration", fmt.Sprintf(" %s: not a positive duration (use a duration like 30s)", o.Duration)}
		}
		for i := range sc.Phases {
			if ph := &sc.Phases[i]; ph.TakesDurationOverride() {
				ph.Duration = d
				if o.Warmup == "" && ph.Warmup >= d {
					// A shorter try of a shipped scenario: keep a fifth
					// of it as warmup instead of refusing it.
					w := d / 5
					if o.Note != nil {
						o.Note(fmt.Sprintf("phase %s: warmup %s is not shorter than --duration %s; using warmup %s (set --warmup to choose)", ph.Name, ph.Warmup.D(), d.D(), w.D()))
					}
					ph.Warmup = w
				}
			}
		}
	}
	if o.Warmup != "" {
		d, err := scenarios.ParseDuration(o.Warmup)
		switch {
		case err != nil:
			return nil, &OverrideError{"warmup", fmt.Sprintf(" %s: %s", o.Warmup, DurationHint(o.Warmup))}
		case d < 0:
			return nil, &OverrideError{"warmup", fmt.Sprintf(" %s: negative (use a duration like 0s or 5s)", o.Warmup)}
		}
		for i := range sc.Phases {
			if ph := &sc.Phases[i]; ph.TakesDurationOverride() {
				ph.Warmup = d
			}
		}
	}
	if o.Records != "" {
		n, err := strconv.ParseInt(o.Records, 10, 64)
		if err != nil || n <= 0 {
			return nil, &OverrideError{"records", fmt.Sprintf(" %s: use a positive whole number like 10000", o.Records)}
		}
		for i := range sc.Phases {
			sc.Phases[i].OverrideRecords(n, sc.Keyspace.Records)
		}
		sc.Keyspace.Records = n
	}
	if o.Concurrency != 0 {
		if o.Concurrency < 0 || o.Concurrency > scenarios.MaxConcurrency {
			return nil, &OverrideError{"concurrency", fmt.Sprintf(" %d: use a whole number in 1..%d", o.Concurrency, scenarios.MaxConcurrency)}
		}
		for i := range sc.Phases {
			sc.Phases[i].Concurrency = o.Concurrency
		}
	}
	if o.Seed != "" {
		seed, err := strconv.ParseInt(o.Seed, 10, 64)
		if err != nil {
			return nil, &OverrideError{"seed", fmt.Sprintf(" %s: use a whole number like 42", o.Seed)}
		}
		sc.Seed = seed
	}
	if o.Repeat != 0 {
		if o.Repeat < 1 || o.Repeat > scenarios.MaxRepeat {
			return nil, &OverrideError{"repeat", fmt.Sprintf(" %d: use a whole number in 1..%d", o.Repeat, scenarios.MaxRepeat)}
		}
		sc.Repeat = o.Repeat
	}
	return sc.Validate(), nil
}

// NewExporter is a run's exporter: soakd_run_info with version and
// target kind, and soakd_slo_latency_seconds for every op of the
// scenario's mixes ("*" limits merged, max as quantile 1).
func NewExporter(sc *scenarios.Scenario, shard rundir.Shard, version string) (*metrics.Exporter, error) {
	ops, err := sc.OpTable()
	if err != nil {
		return nil, err
	}
	limits, err := verdict.New(sc.SLO, ops)
	if err != nil {
		return nil, err
	}
	exp := metrics.NewExporter(sc.Name, shard.Label(), targets.Classes(), map[string]string{"version": version, "target_kind": string(sc.Target.Kind)})
	for _, s := range limits.Series(sc.MixOps()) {
		exp.SetSLO(s.Op, s.Quantile, s.Seconds)
	}
	return exp, nil
}

// Options configure one run.
type Options struct {
	Scenario *scenarios.Scenario // overrides applied, validated
	OutDir   string
	Shard    rundir.Shard
	// BarrierTimeout bounds each phase barrier across shards (the run
	// id is Start's: the caller settles it once the target is open).
	BarrierTimeout time.Duration
	// Getenv supplies credentials (target.auth) and OTEL_* settings.
	Getenv func(string) string
	// Warn receives target warnings (once per run is the caller's call).
	Warn    func(string)
	Version string
	// OTLPEndpoint sends spans there; "" = OTEL_EXPORTER_OTLP_ENDPOINT
	// from Getenv, else off.
	OTLPEndpoint string
	// Exporter is the run's metrics (NewExporter when nil).
	Exporter *metrics.Exporter
	Progress io.Writer       // live progress line; nil = none
	Control  *engine.Control // live rate changes (daemon API)
	// Targets, two or more, are the targets the run compares as its
	// variants (target-1 = Scenario.Target, already overridden to the
	// first): run --target A --target B with repeats, interleaved.
	Targets []scenarios.Target
}

// Run is an opened run: its target, exporter and tracer are ready.
type Run struct {
	o        Options
	Target   targets.Target
	Exporter *metrics.Exporter
	topts    targets.Options
	tracer   trace.Tracer
	shutdown func(context.Context) error
}

// Open opens the target, the exporter and tracing (its errors mean the
// run could not start: bad input, target unreachable, tracing
// misconfigured). Close it.
func Open(ctx context.Context, o Options) (*Run, error) {
	sc := o.Scenario
	r := &Run{o: o, Exporter: o.Exporter}
	if r.Exporter == nil {
		exp, err := NewExporter(sc, o.Shard, o.Version)
		if err != nil {
			return nil, err
		}
		r.Exporter = exp
	}
	r.topts = targets.Options{Env: o.Getenv, Warn: o.Warn, Concurrency: sc.MaxConcurrency()}
	tg, err := targets.Open(ctx, sc.Target, r.topts)
	if err != nil {
		return nil, err
	}
	r.Target = tg
	tp, shutdown, err := metrics.NewTracerProvider(ctx, metrics.TracingConfig{Endpoint: o.OTLPEndpoint, Getenv: o.Getenv, Version: o.Version})
	if err != nil {
		tg.Close()
		return nil, fmt.Errorf("tracing: %w", err)
	}
	r.tracer, r.shutdown = tp.Tracer("github.com/soakd/soakd"), shutdown
	return r, nil
}

// Start runs the scenario to its end (or ctx's) and writes the run
// directory: engine.Run's summary and error.
func (r *Run) Start(ctx context.Context, runID string) (*rundir.Summary, error) {
	sc := r.o.Scenario
	var tvs []engine.TargetVariant
	if len(r.o.Targets) > 1 {
		for i, t := range r.o.Targets {
			tvs = append(tvs, engine.TargetVariant{Name: fmt.Sprintf("target-%d", i+1), URL: t.URL,
				Open: func() (targets.Target, error) { return targets.Open(ctx, t, r.topts) }})
		}
	}
	return engine.Run(ctx, engine.Options{Targets: tvs,
		Scenario: sc, Target: r.Target, TargetKind: sc.Target.Kind, TargetURL: sc.Target.URL,
		OutDir: r.o.OutDir, Progress: r.o.Progress, Exporter: r.Exporter, Tracer: r.tracer, Shard: r.o.Shard,
		Control: r.o.Control, Reopen: targets.Reopener(ctx, sc.Target, r.topts), RunID: runID, BarrierTimeout: r.o.BarrierTimeout,
	})
}

// Close closes the target and flushes the spans (bounded by ctx).
func (r *Run) Close(ctx context.Context) error {
	r.Target.Close()
	if err := r.shutdown(ctx); err != nil {
		return fmt.Errorf("tracing: %w", err)
	}
	return nil
}
