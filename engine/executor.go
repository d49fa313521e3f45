package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/verdict"
)

// A phase kind's executor turns its phase into segments, runs them on
// the run's shared machinery (stages: dispatch, workers, histograms,
// the latency logs) and sums them up in the phase's result. Each kind's
// executor is a file of its own (exec_<kind>.go); kinds.go maps each
// kind to its executor.
type executor interface {
	// run runs env's phase and fills pr (its name, kind and start are
	// set; the run sets its end and server stats). It fills pr.Result
	// and returns the phase's measured ops, for histograms.hlog and the
	// SLO verdict.
	run(ctx context.Context, env *phaseEnv, pr *rundir.PhaseResult) (*metrics.Set, error)
	// judge is the phase's SLO verdict once the run is over (hist: its
	// measured ops, nil when none were kept); nil when the kind is not
	// judged (a load).
	judge(pr *rundir.PhaseResult, l *verdict.Limits, hist *metrics.Set, ops *scenarios.OpTable) *rundir.Verdict
}

// stages is the run's shared machinery as an executor sees it.
type stages interface {
	// measure runs a segment whose intervals are measured: the progress
	// line, Prometheus, latency.hlog and counts.csv.
	measure(ctx context.Context, s *segment) *segResult
	// unmeasured runs a segment shown on the progress line only (a
	// capacity search's settling): it is not measurement.
	unmeasured(ctx context.Context, s *segment) *segResult
	// stageSpan starts the soakd.stage span of a stage.
	stageSpan(ctx context.Context, s *segment) (context.Context, trace.Span)
	// keepStageHists keeps a stage's measured histograms for
	// histograms.hlog.
	keepStageHists(phase, stage string, set *metrics.Set)
	// stats is the server stats sampler's latest; freshStats samples
	// the server now (a stage's closing snapshot).
	stats() map[string]float64
	freshStats(ctx context.Context) map[string]float64
}

// phaseEnv is what an executor gets: its phase, the phase's segment
// template and what of the run it may read or advance.
type phaseEnv struct {
	ph *scenarios.Phase
	pi int // the phase's index in the scenario
	// base is the phase's segment template: its name, rate, duration,
	// concurrency, max_lag, warmup and random stream; its Mix and Source
	// are nil (an executor sets the mix it runs, phaseMix for most, and
	// its source, mix for most).
	base segment
	// mix is the run's mix as an op source: generated (or corpus) keys
	// and documents, custom ops rendered.
	mix    opSource
	stages stages
	time   timeSource
	// sc is the scenario, read only (record sizes, the seed).
	sc      *scenarios.Scenario
	shard   rundir.Shard
	classes []string
	limits  *verdict.Limits
	// inserted is the count of records known to exist, which load and
	// growth phases advance.
	inserted *scenarios.Inserted
	// exporter feeds Prometheus; nil = none.
	exporter *metrics.Exporter
	// round is the 1-based round of a repeated phase (0: not repeated);
	// order, with it, is the run's round order.
	round int
	order *RoundOrder
	// replay is the phase's indexed capture (a replay phase), else nil.
	replay *replayPlan
	// ops names the run's ops (its custom ops and replay groups).
	ops *scenarios.OpTable
	// resume continues the phase a killed run was running (resume.go);
	// nil: it starts afresh. ck keeps the phase's own state in the run's
	// checkpoints (nil: none).
	resume *phaseResume
	ck     *checkpointer
}

// phaseMix is the phase's mix: block.
func (e *phaseEnv) phaseMix() (*scenarios.Mix, error) {
	mix, err := scenarios.NewMix(e.ph.Mix, e.ops)
	if err != nil {
		return nil, fmt.Errorf("phase %s: %w", e.ph.Name, err)
	}
	return mix, nil
}

// runPhase runs phase pi (ph: the phase, or one round's slice of it) on
// its kind's executor.
func (r *runner) runPhase(ctx context.Context, pi int, ph *scenarios.Phase) (*rundir.PhaseResult, error) {
	ex, ok := executorFor(ph.Kind)
	if !ok {
		return nil, fmt.Errorf("phase %s: kind %s is not implemented in this build", ph.Name, ph.Kind)
	}
	env := &phaseEnv{
		ph: ph, pi: pi, stages: r, time: r.time, mix: r.mix, sc: r.plan.sc, shard: r.opts.Shard, classes: r.plan.classes,
		limits: r.plan.limits, inserted: r.inserted, exporter: r.opts.Exporter, round: r.round, order: r.order,
		replay: r.plan.replays[ph.Name], ops: r.plan.ops, resume: r.resume.take(pi), ck: r.ck,
		base: segment{
			Phase: ph.Name, Kind: ph.Kind, Rate: ph.Rate, Duration: ph.Duration.D(),
			Concurrency: ph.Concurrency, MaxLag: ph.MaxLag.D(), Warmup: ph.Warmup.D(), Tick: ph.Tick.D(),
			Seed: phaseSeed(r.plan.sc.Seed, r.opts.Shard.Index, pi) + uint64(r.round)*0xd1b54a32d192ed03,
		},
	}
	pr := &rundir.PhaseResult{Name: ph.Name, Kind: ph.Kind, Start: r.time.now().UTC(), TickSeconds: ph.Tick.D().Seconds()}
	if env.resume != nil {
		pr.Start = env.resume.start.UTC()
		env.resume.seam = r.addSeam
	}
	r.ck.beginPhase(pi, ph.Name, ph.Kind, pr.Start)
	r.self.beginPhase()
	total, err := ex.run(ctx, env, pr)
	pr.Self = r.self.endPhase(r.time.now(), pr.Lag.P99)
	if err != nil {
		return nil, err
	}
	pr.End = r.time.now().UTC()
	r.totals = append(r.totals, phaseTotal{ph.Name, total})
	pr.Server = r.stats()
	return pr, nil
}

// measure runs a measured segment; a stage's keeps soakd's own health
// over it.
func (r *runner) measure(ctx context.Context, s *segment) *segResult {
	if s.Stage == "" {
		return r.runSegment(ctx, s, r)
	}
	r.self.beginStage()
	res := r.runSegment(ctx, s, r)
	res.self = r.self.endStage(r.time.now())
	return res
}

func (r *runner) unmeasured(ctx context.Context, s *segment) *segResult {
	return r.runSegment(ctx, s, progressOnly{r})
}

// progressOnly shows a settle slice on the progress line only: it is
// not measurement, so it feeds neither Prometheus nor latency.hlog.
type progressOnly struct{ r *runner }

func (p progressOnly) onInterval(seg *segment, from, to time.Time, elapsed time.Duration, w *metrics.Set, completed, done int64, _ func()) {
	if p.r.opts.Progress == nil || !p.r.progress.show(seg, to.Sub(from), p.r.opts.Interval) {
		return
	}
	achieved := 0.0
	if dt := to.Sub(from).Seconds(); dt > 0 {
		achieved = float64(completed) / dt
	}
	p.r.progress.print(p.r.opts.Progress, elapsed, progressLine(seg, seg.Rate, elapsed, achieved, done, w, p.r.plan.classes, p.r.plan.ops))
}

// stageSpan starts the soakd.stage span of a ramp step, growth stage or
// capacity probe.
func (r *runner) stageSpan(ctx context.Context, s *segment) (context.Context, trace.Span) {
	return r.opts.Tracer.Start(ctx, "soakd.stage", trace.WithAttributes(attribute.String("soakd.stage", s.Stage),
		attribute.Int("soakd.stage.index", s.StageIndex), attribute.Float64("soakd.target_rate", s.Rate)))
}

// runSegments runs a phase made of fixed segments of mix (a steady
// phase, a ramp's steps, a load, a replay), each scaled to this shard, one after
// another until ctx ends. A segment with a stage name is a stage of pr.
// after, when set, sees each segment's result as it ends. It fills
// pr.Result and its target rate: the segment's, or the highest
// stage's.
func (e *phaseEnv) runSegments(ctx context.Context, pr *rundir.PhaseResult, mix *scenarios.Mix, segs []segment, after func(*segment, *segResult)) (*metrics.Set, error) {
	shardSegments(e.shard, segs)
	acc := newPhaseAcc(mix.Ops())
	first := 0
	// Several segments (a ramp's steps): each one's end is kept in the
	// checkpoints, and a resumed run skips those finished.
	staged := len(segs) > 1
	if staged {
		st, between, err := e.stagedResume(acc, pr)
		if err != nil {
			return nil, err
		}
		if st != nil {
			first = st.Done
			switch {
			case between && first < len(segs):
				e.seamBetween(segs[first].Stage)
			case between:
				e.seamBetween("") // killed after its last step
			}
		}
	}
	for i := first; i < len(segs); i++ {
		if ctx.Err() != nil {
			break
		}
		s := &segs[i]
		sctx, ss := ctx, trace.Span(nil)
		if s.Stage != "" {
			sctx, ss = e.stages.stageSpan(ctx, s)
		}
		prior := e.resumeSegment(sctx, s)
		var res *segResult
		if prior != nil && s.Limit == 0 {
			// The load had written all its records before the kill.
			if after != nil {
				after(s, &segResult{Total: metrics.NewSet(nil)})
			}
			res = prior
		} else {
			res = e.stages.measure(sctx, s)
			if after != nil {
				after(s, res)
			}
			if prior != nil {
				prior.absorb(res)
				res = prior
			}
		}
		if pr.EndedEarly == nil {
			pr.EndedEarly = endedEarly(ctx, s, res, pr.Start)
		}
		acc.add(res)
		if s.Stage != "" {
			st := stageResult(s, res, e.stages.stats(), e.ops)
			res.lost.apply(&st.Result, e.ops)
			pr.Stages = append(pr.Stages, st)
			e.stages.keepStageHists(e.ph.Name, s.Stage, res.Total)
			ss.SetAttributes(resultAttrs(&st.Result)...)
			ss.End()
		}
		if staged && ctx.Err() == nil {
			e.ck.stageDone(&stagedState{Done: i + 1, Stages: pr.Stages, Acc: encodeAcc(&acc.sum), EndedEarly: pr.EndedEarly})
		}
		if len(segs) == 1 {
			pr.TargetRate = s.Rate
			if res.Retimed {
				pr.TargetRate = retimedRate(s, res)
			}
		}
	}
	acc.result(&pr.Result, true, e.classes, e.ops)
	acc.sum.lost.apply(&pr.Result, e.ops)
	if len(segs) > 1 {
		pr.TargetRate = 0
		for _, st := range pr.Stages {
			if st.TargetRate > pr.TargetRate {
				pr.TargetRate = st.TargetRate
			}
		}
	}
	return acc.sum.Total, nil
}

// runStage runs one stage of a phase (a capacity probe, a sweep point)
// in its own span, adds it to the phase's figures, keeps its histograms
// for shard merges and appends its result to pr.Stages. The caller
// ends the span, after adding what it judged.
func (e *phaseEnv) runStage(ctx context.Context, s *segment, acc *phaseAcc, pr *rundir.PhaseResult) (rundir.StageResult, *segResult, trace.Span) {
	sctx, span := e.stages.stageSpan(ctx, s)
	e.resumeSegment(sctx, s) // the stage a killed run was in goes on
	res := e.stages.measure(sctx, s)
	acc.add(res)
	st := stageResult(s, res, e.stages.stats(), e.ops)
	res.lost.apply(&st.Result, e.ops)
	e.stages.keepStageHists(e.ph.Name, s.Stage, res.Total)
	pr.Stages = append(pr.Stages, st)
	return st, res, span
}

// phaseAcc adds up a phase's segments.
type phaseAcc struct{ sum segResult }

func newPhaseAcc(ops []scenarios.Op) *phaseAcc {
	return &phaseAcc{sum: segResult{Total: metrics.NewSet(ops)}}
}

func (a *phaseAcc) add(res *segResult) { a.sum.absorb(res) }

// absorb adds segment res to s, a sum of segments run one after another:
// ops merged, schedules, windows and warmup tails added, the longest
// drain, the span from the first start to the last end.
func (s *segResult) absorb(res *segResult) {
	if s.Start.IsZero() {
		s.Start = res.Start
	}
	s.End = res.End
	s.Total.Merge(res.Total)
	s.Scheduled += res.Scheduled
	s.Elapsed += res.Elapsed
	s.Drain = max(s.Drain, res.Drain)
	s.WarmTail += res.WarmTail
	s.WarmTailErrors += res.WarmTailErrors
	s.Canceled = s.Canceled || res.Canceled
	s.lost.add(res.lost)
}

// result fills r with the accumulated figures; withTail counts the
// warmup ops completed in the windows (a phase whose segments have
// warmups).
func (a *phaseAcc) result(r *rundir.Result, withTail bool, classes []string, ops *scenarios.OpTable) {
	s := &a.sum
	tail, tailErrs := s.WarmTail, s.WarmTailErrors
	if !withTail {
		tail, tailErrs = 0, 0
	}
	fillResult(r, s.Total, ops, s.Scheduled, s.Elapsed, s.Drain, tail, tailErrs, classes)
}

func stageResult(s *segment, res *segResult, stats map[string]float64, ops *scenarios.OpTable) rundir.StageResult {
	st := rundir.StageResult{Name: s.Stage, Start: res.Start.UTC(), End: res.End.UTC(), Server: stats}
	fillResult(&st.Result, res.Total, ops, res.Scheduled, res.Elapsed, res.Drain, res.WarmTail, res.WarmTailErrors, nil)
	st.TargetRate = s.Rate
	st.Self = res.self.Health(st.Lag.P99)
	if res.Retimed {
		st.TargetRate = retimedRate(s, res)
	}
	return st
}

// retimedRate is the target rate of a segment whose rate was changed
// live: what the schedule called for over the time it ran.
func retimedRate(s *segment, res *segResult) float64 {
	d := res.End.Sub(res.Start)
	if s.Duration > 0 && d > s.Duration {
		d = s.Duration
	}
	if d <= 0 {
		return s.Rate
	}
	return float64(res.Scheduled) / d.Seconds()
}

// sloJudged is the verdict of most kinds: the SLO's limits on the
// phase's figures and latency histograms.
type sloJudged struct{}

func (sloJudged) judge(pr *rundir.PhaseResult, l *verdict.Limits, hist *metrics.Set, ops *scenarios.OpTable) *rundir.Verdict {
	return l.Judge(judged(pr.Name, &pr.Result, len(pr.Stages) > 0, hist, ops))
}

// endedEarly says where and why segment s (res: what it measured), of a
// phase started at phaseStart, stopped before its duration; nil when it
// ran all of it, had none, or its count (requests:) ended it.
func endedEarly(ctx context.Context, s *segment, res *segResult, phaseStart time.Time) *rundir.EarlyEnd {
	if s.Duration <= 0 || res.CountEnded {
		return nil
	}
	ran := s.Warmup + res.Elapsed
	if res.Elapsed <= 0 && s.Warmup > 0 && res.Canceled {
		ran = res.End.Sub(res.Start) // stopped inside the warmup
	}
	if ran >= s.Duration {
		return nil
	}
	reason := "the schedule ended before the duration"
	if res.Canceled {
		reason = "stopped before its end (signal or stop request)"
		if c := context.Cause(ctx); c != nil && !errors.Is(c, context.Canceled) && !errors.Is(c, context.DeadlineExceeded) {
			reason = c.Error()
		}
	}
	if s.Stage != "" {
		reason = "stage " + s.Stage + ": " + reason
	}
	off := res.Start.Sub(phaseStart)
	return &rundir.EarlyEnd{AtSeconds: (off + ran).Seconds(), OfSeconds: (off + s.Duration).Seconds(), Reason: reason}
}
