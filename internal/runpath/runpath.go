// Package runpath is the one way a scenario runs, for `soakd run` and
// for the daemon alike (Run): the scenario's warnings, the target (and
// its persistence or target variants) opened, the Prometheus exporter
// with the SLO series, tracing, the shards' feasibility, engine.Run,
// then the post-run work: the figures read back from the finished logs
// and the run directory's summary. Overrides are applied and checked
// before (Apply). A feature added here exists in both, or in neither.
package runpath

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/soakd/soakd/engine"
	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
)

// Options configure one run.
type Options struct {
	Scenario *scenarios.Scenario // overrides applied, validated
	OutDir   string
	Shard    rundir.Shard
	// RunID names the run across its shards (phase barriers); "" none.
	// Run drops it where the shards cannot share a barrier.
	RunID string
	// BarrierTimeout bounds each phase barrier across shards.
	BarrierTimeout time.Duration
	// Getenv supplies credentials (target.auth) and OTEL_* settings.
	Getenv func(string) string
	// Warn receives what the run says and goes ahead with (nil: none).
	Warn    func(Warning)
	Version string
	// NoSelfHealth leaves soakd's own-health sampler off (tests whose
	// verdicts must not depend on the shared host's load).
	NoSelfHealth bool
	// OTLPEndpoint sends spans there; "" = OTEL_EXPORTER_OTLP_ENDPOINT
	// from Getenv, else off.
	OTLPEndpoint string
	// Exporter is the run's metrics (NewExporter when nil).
	Exporter *metrics.Exporter
	Progress io.Writer       // live progress line; nil = none
	Control  *engine.Control // live rate changes (daemon API)
	// ProgressEvery thins the progress lines (engine.Options).
	ProgressEvery time.Duration
	// Targets, two or more, are the targets the run compares as its
	// variants (target-1 = Scenario.Target, already overridden to the
	// first): run --target A --target B with repeats, interleaved.
	Targets []scenarios.Target
	// BeforeStart, when set, is called once the target is open, just
	// before the first op, with the run's exporter (the CLI serves it,
	// waits for --start-at). Its error ends the run before it starts:
	// Run returns it with no summary.
	BeforeStart func(ctx context.Context, exp *metrics.Exporter) error
	// Resume continues the killed run in OutDir from its checkpoint
	// (Resumable says whether it can be) instead of starting a new one:
	// Scenario must be the run's, rebuilt by the caller (Recipe helps).
	// A refusal is a *NotResumableError and leaves OutDir untouched.
	Resume bool
	// ForceResume resumes even though the scenario, the binary, the
	// target or the host differs from the checkpoint's.
	ForceResume bool
	// Recipe is kept in the run's checkpoint (rundir.Checkpoint.Recipe)
	// for whoever resumes it: what the caller needs to rebuild Scenario
	// (the CLI's scenario file and overrides). nil = none.
	Recipe json.RawMessage
	// CheckpointEvery spaces the run's checkpoints: a kill loses at
	// most about this much of the results (0: DefaultCheckpointEvery).
	CheckpointEvery time.Duration
}

// WarningKind says where a Warning comes from.
type WarningKind int

const (
	// WarnScenario is one of the scenario's own warnings
	// (file:line: field: warning: ...), as soakd validate prints them.
	WarnScenario WarningKind = iota
	// WarnTarget is the target's (once per run: persistence variants
	// reopen the target and would repeat it).
	WarnTarget
	// WarnShards says the shards' phases are not kept in step.
	WarnShards
	// WarnClose is a failure after the run: closing the target or
	// flushing the spans.
	WarnClose
	// WarnMemory says the target's memory plan cannot happen on this
	// host (memoryplan.go), before the first op.
	WarnMemory
)

// Warning is something a run says and goes ahead with.
type Warning struct {
	Kind WarningKind
	Msg  string
}

// closeTimeout bounds closing the target and flushing the spans.
const closeTimeout = 5 * time.Second

// Run runs o.Scenario to its end (or ctx's) and writes the run
// directory. The summary is nil when nothing ran (the error says why:
// the target could not be opened, BeforeStart refused); otherwise it is
// complete, with the run's error when it ended early
// (rundir.StatusInterrupted) or its results could not all be written
// (*rundir.WriteError).
func Run(ctx context.Context, o Options) (sum *rundir.Summary, err error) {
	// The run directory's lock first: a resume is refused, or a second
	// process kept out, before anything is opened.
	var ck *rundir.Checkpoint
	var lock *dirLock
	if o.Resume {
		if ck, lock, err = prepareResume(o); err != nil {
			return nil, err
		}
	} else {
		if lock, err = lockNew(o.OutDir); err != nil {
			return nil, err
		}
		defer func() {
			if sum == nil {
				lock.remove() // nothing ran: the directory is left as it was
			}
		}()
	}
	defer lock.unlock()
	warn := o.Warn
	if warn == nil {
		warn = func(Warning) {}
	}
	for _, w := range o.Scenario.Warnings() {
		warn(Warning{WarnScenario, w.Error()})
	}
	var once sync.Once
	rn, err := open(ctx, o, func(msg string) {
		once.Do(func() { warn(Warning{WarnTarget, msg}) })
	})
	if err != nil {
		return nil, err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
		defer cancel()
		if err := rn.close(cctx); err != nil {
			warn(Warning{WarnClose, err.Error()})
		}
	}()
	for _, msg := range memoryPlanWarnings(rn.target) {
		warn(Warning{WarnMemory, msg})
	}
	runID, msg := barrierRunID(o, rn.target)
	if msg != "" {
		warn(Warning{WarnShards, msg})
	}
	if o.BeforeStart != nil {
		if err := o.BeforeStart(ctx, rn.exporter); err != nil {
			return nil, err
		}
	}
	wctx, stopWatch := watchSLO(ctx, o.Scenario, rn.exporter)
	sum, err = rn.start(wctx, runID, ck)
	if b := stopWatch(); b != nil && sum != nil {
		sum.StatusReason = b.Error()
	}
	if sum != nil && errors.Is(context.Cause(ctx), ErrSuspended) {
		// Stopped to be resumed: no summary, the checkpoint stays. A
		// run stopped before its first checkpoint could not be resumed:
		// it ends interrupted, its summary written.
		if _, err := rundir.ReadCheckpoint(o.OutDir); err == nil {
			return nil, ErrSuspended
		}
	}
	err = finish(o.OutDir, o.Scenario, sum, err, rn.exporter)
	if sum != nil {
		sum.Dir = o.OutDir
	}
	return sum, err
}
