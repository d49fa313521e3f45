package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/soakd/soakd/internal/hostprobe"
	"github.com/soakd/soakd/internal/term"
	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// soakdVersion is the build's stamp or VCS revision, else the caller's
// version, else "unknown": a summary always says which soakd wrote it.
func soakdVersion(caller string) string {
	if v := rundir.BuildVersion(); v != "" {
		return v
	}
	if caller != "" {
		return caller
	}
	return "unknown"
}

// Options configure one run.
type Options struct {
	Scenario *scenarios.Scenario
	Target   targets.Target
	// TargetKind and TargetURL are for the summary (URL is redacted).
	TargetKind scenarios.TargetKind
	TargetURL  string
	OutDir     string // run directory (created)
	// Progress gets the live progress line each interval (a LiveLine
	// shows it in place); nil = none.
	Progress io.Writer
	// ProgressEvery thins Progress's lines for a log or a pipe: each
	// segment's first and last line and one each ProgressEvery in
	// between. 0 = a line every interval. A LiveLine gets every line.
	ProgressEvery time.Duration
	Exporter      *metrics.Exporter
	Interval      time.Duration // default 1s
	Shard         rundir.Shard
	// Control, when set, lets the caller change the running phase's rate
	// live (the daemon's POST /api/v1/runs/{id}/rate).
	Control *Control
	Tracer  trace.Tracer // spans for run, phases, stages; nil = none
	// Version is the caller's own name for its build (main.version):
	// the summary's soakd_version when the binary carries no stamp or
	// VCS revision (go run, daemon builds from a tarball).
	Version string
	// Reopen opens the scenario's target again with another managed
	// persistence variant: with target.managed.persistences the whole
	// phase list runs once per variant (with repeat: N > 1, phase by
	// phase in interleaved rounds: rounds.go). nil = no persistence
	// matrix.
	Reopen func(persistence string) (targets.Target, error)
	// Targets, when set, makes several targets the run's variants (in
	// place of persistence variants): the first is Target, every other
	// is opened by its Open when the run starts its variants.
	Targets []TargetVariant
	// RunID names this run across its shards. With Shard.Count > 1, a
	// run id and a target that implements targets.Barrier, the shards
	// wait for each other before every phase (see barrier.go); without
	// one, phases are not synchronised across shards.
	RunID string
	// BarrierTimeout bounds each barrier wait (0 = DefaultBarrierTimeout).
	BarrierTimeout time.Duration
	// SelfHealthRoot is where soakd's own health is read each interval
	// (internal/selfhealth: "/" on a real host): each phase's self
	// record, whether it was generator- or host-bound, and the
	// soakd_self_* metrics. "" = not sampled (no self records).
	SelfHealthRoot string
	// Plan is the run's plan, made by Prepare with these options before
	// the target was opened, so that its errors come first; nil = Run
	// prepares it. The caller closes a plan it made.
	Plan *Plan
	// Checkpoint, when set, makes the run keep checkpoint.json beside
	// its logs each interval (checkpoint.go), so that it can be resumed.
	Checkpoint *CheckpointConfig
	// Resume, when set, continues the killed run in OutDir from this
	// checkpoint (resume.go) instead of starting a new one; the caller
	// checked that it is this run's (CheckResume, the identity) and
	// holds the run directory's lock.
	Resume *rundir.Checkpoint

	// hlogWrap, when set, wraps the latency log's file (tests inject a
	// writer that fails part-way, like a disk filling up).
	hlogWrap func(io.Writer) io.Writer
	// drainDeadline replaces DrainDeadline (tests).
	drainDeadline time.Duration
	// time replaces wallTime (tests in a synctest bubble: bubbleTime).
	time timeSource
	// selfSource replaces the sampler of SelfHealthRoot (tests).
	selfSource selfSource
	// pauserWrap, when set, gets each collector's pauser as it is made
	// (tests set its budget and read its counts).
	pauserWrap func(*pauser)
}

// runner is one run's state as it goes; what is read only about the
// run is its Plan.
type runner struct {
	// opts are the run's options, defaults filled in (Interval,
	// Tracer, drainDeadline).
	opts Options
	plan *Plan
	// target is the current target; tgMu guards it against the stats
	// sampler while a persistence matrix swaps targets between segments.
	target targets.Target
	tgMu   sync.Mutex
	// inserted is the count of records known to exist, which load and
	// growth phases advance; shard numbers this shard's inserts.
	inserted *scenarios.Inserted
	shard    *shardState
	// mix is the run's mix source, on inserted and shard.
	mix *mixSource

	// logs are latency.hlog, counts.csv and the write-error note.
	logs       runLogs
	totals     []phaseTotal // per phase, for histograms.hlog
	stageHists []stageHist  // per stage, for histograms.hlog

	// srv is the current target's latest server stats and the
	// persistence periods seen in them (stats.go).
	srv serverStats
	// self is soakd's own health per phase and stage (selfhealth.go).
	self selfRecorder

	// round is the 1-based round of a repeated phase being run (0: not
	// repeated); it gives each round its own random stream, shared by
	// the variants. order is the run's round order (nil: not repeated).
	round int
	order *RoundOrder
	// progress drops the progress line of a segment's short last
	// interval.
	progress progressGate
	// time is the run's clock and pacer (timesource.go).
	time timeSource
	// ck writes the run's checkpoints (nil: none); resume is where a
	// resumed run starts from (nil: a new run); seams are the run's
	// resumes so far.
	ck     *checkpointer
	resume *resumeState
	seams  []rundir.Seam
	rates  []appliedChange // live rate changes before the last resume (ratechanges.go)
}

// Run executes every phase of the scenario and writes the run's logs
// into OutDir (latency.hlog, counts.csv, histograms.hlog, run.json, the
// write-error note left blank or holding the logs' error); the summary
// files are the caller's (internal/runpath). The returned summary says
// whether the SLOs held. A cancelled ctx ends the run early: results so
// far are kept and the run is marked interrupted.
func Run(ctx context.Context, o Options) (_ *rundir.Summary, err error) {
	if o.Interval <= 0 {
		o.Interval = time.Second
	}
	if o.Shard.Count == 0 {
		o.Shard.Count = 1
	}
	if o.drainDeadline <= 0 {
		o.drainDeadline = DrainDeadline
	}
	if o.Tracer == nil {
		o.Tracer = noop.NewTracerProvider().Tracer("")
	}
	if o.Plan != nil && o.Plan.sc != o.Scenario {
		return nil, errors.New("Options.Plan was prepared for another scenario")
	}
	if o.time == nil {
		if err := pacerCheck(timerfdRefused(), runtime.GOMAXPROCS(0)); err != nil {
			return nil, err
		}
	}
	plan := o.Plan
	if plan == nil {
		if plan, err = Prepare(ctx, o.Scenario, o); err != nil {
			return nil, err
		}
		defer plan.Close()
	}
	r := &runner{opts: o, plan: plan, target: o.Target, inserted: plan.inserted()}
	r.progress.every = o.ProgressEvery
	if r.time = o.time; r.time == nil {
		r.time = wallTime{}
	}
	r.shard = newShardState(o.Shard, plan.sc)
	if o.Exporter != nil {
		o.Exporter.SetOps(plan.ops)
	}
	if r.mix, err = newMixSource(plan, r.inserted, r.shard); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(o.OutDir, 0o755); err != nil {
		return nil, fmt.Errorf("run directory: %w", err)
	}
	start := r.time.now()
	if o.Resume != nil {
		if r.resume, err = newResumeState(o.Resume, plan); err != nil {
			return nil, err
		}
		if err := r.logs.reopen(o.OutDir, o.Resume.Logs, o.hlogWrap); err != nil {
			return nil, &ResumeError{err.Error()}
		}
		start = o.Resume.Start
		r.logs.resumeAt(start)
	} else {
		if err := r.logs.create(o.OutDir, o.hlogWrap); err != nil {
			return nil, fmt.Errorf("run directory: %w", err)
		}
		r.logs.start(start)
		// An earlier run's checkpoint must not describe these logs.
		_ = os.Remove(filepath.Join(o.OutDir, rundir.CheckpointFile))
		// What a killed run's reader needs beside the partial log:
		// run.json (scenario, target, phase kinds) and the reserved
		// write-error note. Both are best effort: a run dir that cannot
		// take them fails on its own writes soon enough.
		_ = rundir.WriteRunInfo(o.OutDir, runInfo(r.plan.sc, o, start))
	}
	host := hostprobe.Read("/")
	r.logs.note, _ = rundir.ReserveWriteNote(o.OutDir)
	if o.Checkpoint != nil {
		r.ck = newCheckpointer(r, o, start)
	}

	if p, ok := o.Target.(targets.Preparer); ok {
		if err := p.Prepare(ctx, r.plan.sc); err != nil {
			r.ck.close()
			if o.Resume != nil {
				r.logs.abandon() // the killed run's logs stay for another try
				return nil, fmt.Errorf("prepare target: %w", err)
			}
			r.logs.discard()
			os.Remove(filepath.Join(o.OutDir, rundir.RunInfoFile))
			return nil, fmt.Errorf("prepare target: %w", err)
		}
	}

	sum := &rundir.Summary{
		SchemaVersion: rundir.SchemaVersion,
		Scenario:      r.plan.sc.Name,
		ScenarioFile:  r.plan.sc.File,
		SoakdVersion:  soakdVersion(o.Version),
		ScenarioHash:  r.plan.sc.Hash(),
		Target:        rundir.TargetInfo{Kind: string(o.TargetKind), URL: scenarios.RedactURL(o.TargetURL)},
		Shard:         o.Shard,
		Start:         start.UTC(),
		Status:        rundir.StatusCompleted,
	}
	if d, ok := o.Target.(targets.Describer); ok {
		sum.Target.Server = d.Describe()
	}
	if ml, ok := o.Target.(targets.MemoryLimiter); ok {
		sum.Target.MemoryLimits = ml.MemoryLimits()
	}
	for _, tv := range o.Targets {
		if sum.Target.Variants == nil {
			sum.Target.Variants = map[string]string{}
		}
		sum.Target.Variants[tv.Name] = scenarios.RedactURL(tv.URL)
	}
	sum.Target.Note = targets.Note(o.TargetKind) // the embedded store's: its figures measure soakd
	if o.Resume != nil {
		if err := r.resumeRun(o.Resume, sum); err != nil {
			r.ck.close()
			r.logs.abandon()
			return nil, err
		}
		r.ck.resumed(o.Resume)
	}

	ctx, runSpan := r.opts.Tracer.Start(ctx, "soakd.run", trace.WithTimestamp(start), trace.WithAttributes(
		attribute.String("soakd.scenario", r.plan.sc.Name), attribute.String("soakd.target.kind", string(o.TargetKind)),
		attribute.String("soakd.shard", o.Shard.String())))
	defer runSpan.End()
	// A managed server that dies mid-run ends the run (cause errTargetDown).
	ctx, cancelRun := context.WithCancelCause(ctx)
	defer cancelRun(nil)
	plan.faults.watch(cancelRun)
	var phaseSpans []trace.Span
	stopStats := r.startStats(ctx)
	stopSelf := r.startSelf(ctx, host.Cores)
	defer stopSelf()
	// stopErr ends the run early with what ran so far written: a phase
	// barrier the other shards never reached, or a variant that could
	// not start.
	var stopErr, fatal error
	if r.plan.sc.Repeats() > 1 {
		stopErr, fatal = r.runRounds(ctx, sum, &phaseSpans, cancelRun)
	} else {
		stopErr, fatal = r.runVariants(ctx, sum, &phaseSpans, cancelRun)
	}
	if fatal != nil {
		stopStats()
		runSpan.SetStatus(codes.Error, fatal.Error())
		// The logs stay .partial, as a killed run's; their
		// files are closed (a daemon runs on).
		r.ck.close()
		r.logs.abandon()
		return nil, fatal
	}
	stopStats()
	var down *targetDownError
	if errors.As(context.Cause(ctx), &down) && stopErr == nil {
		stopErr = down
	}
	if err := r.plan.faults.corpusError(); err != nil && stopErr == nil {
		stopErr = err
	}
	if ctx.Err() != nil || stopErr != nil {
		sum.Status = rundir.StatusInterrupted
		if stopErr != nil {
			sum.StatusReason = stopErr.Error()
		}
	}
	sum.End = r.time.now().UTC()
	host.LoadEnd = hostprobe.Load("/")
	sum.Host = &host
	addRateChanges(sum, r.rateChanges())
	sum.Seams = r.seams
	evaluate(sum, r.plan.limits, r.plan.ops, r.phaseSet)
	// Phase spans end here, at their phases' end times, so they carry
	// the SLO verdicts computed over the whole run.
	// A resumed run's phases finished before the kill have no span.
	spanned := sum.Phases[len(sum.Phases)-len(phaseSpans):]
	for i, ps := range phaseSpans {
		pr := &spanned[i]
		ps.SetAttributes(resultAttrs(&pr.Result)...)
		if pr.SLO != nil {
			ps.SetAttributes(attribute.Bool("soakd.slo.passed", pr.SLO.Passed))
		}
		ps.End(trace.WithTimestamp(pr.End))
	}
	runSpan.SetAttributes(attribute.String("soakd.status", sum.Status), attribute.Bool("soakd.slo.passed", sum.SLO.Passed))
	if !sum.SLO.Passed {
		runSpan.SetStatus(codes.Error, "SLO not met")
	}
	if stopErr != nil {
		runSpan.SetStatus(codes.Error, stopErr.Error())
	}

	// Each file is tried even when an earlier one failed (a full disk).
	// The summary's analyses and files are the caller's (runpath): the
	// note stays for it, blank or holding the first error.
	r.ck.close()
	if werr := r.logs.finish(r.writeHistograms()); werr != nil {
		return sum, &rundir.WriteError{Dir: o.OutDir, Err: werr}
	}
	return sum, stopErr
}

// phaseSet is a phase's measured set (warmup excluded), nil when the
// phase kept none.
func (r *runner) phaseSet(phase string) *metrics.Set {
	for _, t := range r.totals {
		if t.phase == phase {
			return t.set
		}
	}
	return nil
}

// targetDownError is the cause a run ends with when its managed server
// process ended under it.
type targetDownError struct {
	reason   string
	oomKills float64 // the kernel's OOM kills in the server's cgroup (targets.OOMReporter)
}

func (e *targetDownError) Error() string { return "target down mid-run: " + e.reason }

// watchTarget cancels the run when tg's own server process ends
// (targets.Watched); stop ends the watch before soakd closes tg itself.
func watchTarget(tg targets.Target, cancel context.CancelCauseFunc) (stop func()) {
	w, ok := tg.(targets.Watched)
	if !ok || w.Down() == nil {
		return func() {}
	}
	done, quit := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		select {
		case <-w.Down():
			down := &targetDownError{reason: w.DownReason()}
			if o, ok := tg.(targets.OOMReporter); ok {
				down.oomKills = o.OOMKills()
			}
			cancel(down)
		case <-quit:
		}
	}()
	return func() {
		close(quit)
		<-done
	}
}

// interval is called by the collector once per interval: it writes the
// hlog, feeds Prometheus and prints the progress line, pausing between
// them (pauser).
func (r *runner) onInterval(seg *segment, from, to time.Time, elapsed time.Duration, w *metrics.Set, completed, done int64, pause func()) {
	r.logs.interval(seg.Phase, from, to, w, r.plan.classes, r.plan.ops, pause)
	pause()
	dt := to.Sub(from).Seconds()
	achieved := 0.0
	if dt > 0 {
		achieved = float64(completed) / dt
	}
	rate := seg.Rate
	if r.opts.Control != nil {
		if _, cur := r.opts.Control.Current(); cur > 0 {
			rate = cur
		}
	}
	if r.opts.Exporter != nil {
		r.opts.Exporter.UpdatePaused(seg.Phase, rate, achieved, w, pause)
		r.opts.Exporter.SetGoodput(seg.Phase, intervalGoodput(achieved, w, r.plan.classes))
		r.opts.Exporter.SetProgress(seg.StageIndex, r.inserted.Load())
	}
	if r.opts.Progress != nil && r.progress.show(seg, to.Sub(from), r.opts.Interval) {
		r.progress.print(r.opts.Progress, elapsed, progressLine(seg, rate, elapsed, achieved, done, w, r.plan.classes, r.plan.ops))
	}
}

func progressLine(seg *segment, rate float64, elapsed time.Duration, achieved float64, done int64, w *metrics.Set, classes []string, names *scenarios.OpTable) string {
	var b strings.Builder
	name := seg.Phase
	if seg.Stage != "" {
		name += "/" + seg.Stage
	}
	el := term.Duration(elapsed.Truncate(time.Second))
	switch {
	case seg.Duration > 0 && elapsed-seg.Duration >= 50*time.Millisecond:
		// Past its end the segment only waits for the ops in flight
		// (less than 50 ms past it rounds to its end: not draining).
		fmt.Fprintf(&b, "[%s draining %s+%s]", name, term.Duration(seg.Duration), term.Duration((elapsed - seg.Duration).Round(100*time.Millisecond)))
	case seg.Duration > 0:
		fmt.Fprintf(&b, "[%s %s/%s]", name, el, term.Duration(seg.Duration))
	case seg.Limit > 0:
		// A load (or a requests: N phase): how far, and when it ends at
		// the pace of the last interval.
		fmt.Fprintf(&b, "[%s %s %d/%d", name, el, done, seg.Limit)
		if left := int64(seg.Limit) - done; left > 0 && achieved > 0 {
			fmt.Fprintf(&b, " ETA %s", term.Duration(time.Duration(float64(left)/achieved*float64(time.Second)).Round(time.Second)))
		}
		b.WriteString("]")
	default:
		fmt.Fprintf(&b, "[%s %s]", name, el)
	}
	if rate > 0 {
		fmt.Fprintf(&b, " target %s/s achieved %s/s", term.Rate(rate), term.Rate(achieved))
	} else {
		fmt.Fprintf(&b, " closed-loop achieved %s/s", term.Rate(achieved))
	}
	fmt.Fprintf(&b, " goodput %.0f/s", intervalGoodput(achieved, w, classes))
	var errs, misses, dropped int64
	ops := make([]int, 0)
	for op, os := range w.Ops {
		if os != nil {
			ops = append(ops, op)
			for ci, n := range os.Classes {
				switch {
				case ci == 0 || ci >= len(classes):
				case targets.IsError(classes[ci]):
					errs += n
				default:
					misses += n
				}
			}
			dropped += os.Dropped
		}
	}
	sort.Ints(ops)
	for _, op := range ops {
		os := w.Ops[op]
		if os.Count == 0 {
			continue
		}
		fmt.Fprintf(&b, " | %s p50 %s p99 %s", names.Name(scenarios.Op(op)), fmtDur(metrics.Quantile(os.Latency, 50)), fmtDur(metrics.Quantile(os.Latency, 99)))
	}
	if misses > 0 {
		fmt.Fprintf(&b, " | misses %d", misses)
	}
	fmt.Fprintf(&b, " | errors %d dropped %d lag p99 %s", errs, dropped, fmtDur(metrics.Quantile(w.Lag, 99)))
	return b.String()
}

func fmtDur(sec float64) string {
	switch {
	case sec == 0:
		return "0"
	case sec < 1e-3:
		return fmt.Sprintf("%.0fus", sec*1e6)
	case sec < 1:
		return fmt.Sprintf("%.2fms", sec*1e3)
	}
	return fmt.Sprintf("%.2fs", sec)
}

func resultAttrs(r *rundir.Result) []attribute.KeyValue {
	return []attribute.KeyValue{
		attribute.Float64("soakd.achieved_rate", r.AchievedRate), attribute.Int64("soakd.completed", r.Completed),
		attribute.Int64("soakd.errors", r.Errors), attribute.Int64("soakd.dropped", r.Dropped),
	}
}
