package engine

import (
	"context"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// fakeStages is the shared machinery for an executor under test: it
// runs no load, records the segments it is handed and answers each as
// if every op it scheduled completed in its window.
type fakeStages struct {
	segs []segment
	kept []string // stages whose histograms were kept
}

func (f *fakeStages) measure(_ context.Context, s *segment) *segResult {
	f.segs = append(f.segs, *s)
	n := s.Limit
	if s.Rate > 0 && s.Duration > 0 {
		n = uint64(s.Rate * s.Duration.Seconds())
	}
	return &segResult{Total: metrics.NewSet(s.Mix.Ops()), Scheduled: n, Elapsed: s.Duration}
}

func (f *fakeStages) unmeasured(ctx context.Context, s *segment) *segResult {
	return f.measure(ctx, s)
}

func (f *fakeStages) stageSpan(ctx context.Context, _ *segment) (context.Context, trace.Span) {
	return noop.NewTracerProvider().Tracer("").Start(ctx, "stage")
}

func (f *fakeStages) keepStageHists(phase, stage string, _ *metrics.Set) {
	f.kept = append(f.kept, phase+"/"+stage)
}

func (f *fakeStages) stats() map[string]float64                     { return nil }
func (f *fakeStages) freshStats(context.Context) map[string]float64 { return nil }

// testEnv is phase pi of sc's environment on fake stages.
func testEnv(t *testing.T, sc *scenarios.Scenario, pi int, sh rundir.Shard) (*phaseEnv, *fakeStages) {
	t.Helper()
	if sh.Count == 0 {
		sh.Count = 1
	}
	ph := &sc.Phases[pi]
	f := &fakeStages{}
	return &phaseEnv{
		ph: ph, pi: pi, stages: f, time: wallTime{}, sc: sc, shard: sh, classes: targets.Classes(),
		inserted: &scenarios.Inserted{},
		base: segment{Phase: ph.Name, Kind: ph.Kind, Rate: ph.Rate, Duration: ph.Duration.D(), Concurrency: ph.Concurrency,
			MaxLag: ph.MaxLag.D(), Warmup: ph.Warmup.D(), Seed: 7},
	}, f
}

// A ramp executor runs its steps as stages step-N at their own rates and
// durations, without warmup, each with its own random stream; the
// phase's target rate is the highest step's.
func TestRampExecutorSteps(t *testing.T) {
	sc := scenario(t, `
keyspace: {records: 100}
phases:
  - name: r
    kind: ramp
    concurrency: 2
    warmup: 1s
    mix: {get: 100}
    steps: [{rate: 100, duration: 2s}, {rate: 300, duration: 1s}, {rate: 200, duration: 3s}]
`)
	env, f := testEnv(t, sc, 0, rundir.Shard{})
	pr := &rundir.PhaseResult{Name: "r", Kind: sc.Phases[0].Kind}
	if _, err := (rampExec{}).run(context.Background(), env, pr); err != nil {
		t.Fatal(err)
	}
	want := []struct {
		stage    string
		rate     float64
		duration time.Duration
	}{{"step-1", 100, 2 * time.Second}, {"step-2", 300, time.Second}, {"step-3", 200, 3 * time.Second}}
	if len(f.segs) != len(want) || len(pr.Stages) != len(want) {
		t.Fatalf("%d segments, %d stages, want %d", len(f.segs), len(pr.Stages), len(want))
	}
	seeds := map[uint64]bool{}
	for i, w := range want {
		s := f.segs[i]
		if s.Stage != w.stage || s.StageIndex != i+1 || s.Rate != w.rate || s.Duration != w.duration || s.Warmup != 0 {
			t.Errorf("segment %d: %s #%d at %v for %s warmup %s, want %s at %v for %s, no warmup", i, s.Stage, s.StageIndex, s.Rate, s.Duration, s.Warmup, w.stage, w.rate, w.duration)
		}
		seeds[s.Seed] = true
		if f.kept[i] != "r/"+w.stage {
			t.Errorf("histograms kept for %q, want r/%s", f.kept[i], w.stage)
		}
	}
	if len(seeds) != 3 {
		t.Errorf("steps share a random stream: %v", seeds)
	}
	if pr.TargetRate != 300 || pr.Scheduled != 200+300+600 {
		t.Errorf("target rate %v, scheduled %d; want 300 and 1100", pr.TargetRate, pr.Scheduled)
	}
}

// A load executor on shard 1 of 2 inserts its half of the records in
// order, from its slice's first key, without duration or warmup, and
// once it has run its whole slice the dataset holds every shard's.
func TestLoadExecutorShardSlice(t *testing.T) {
	sc := scenario(t, `
keyspace: {records: 1000}
phases:
  - {name: load, kind: load, rate: 500, duration: 1m, concurrency: 2, mix: {insert: 100}}
`)
	env, f := testEnv(t, sc, 0, rundir.Shard{Index: 1, Count: 2})
	pr := &rundir.PhaseResult{Name: "load", Kind: sc.Phases[0].Kind}
	if _, err := (loadExec{}).run(context.Background(), env, pr); err != nil {
		t.Fatal(err)
	}
	if len(f.segs) != 1 {
		t.Fatalf("%d segments", len(f.segs))
	}
	s := f.segs[0]
	if !s.Sequential || s.KeyBase != 500 || s.Limit != 500 || s.Duration != 0 || s.Warmup != 0 || s.Rate != 250 || s.Offset != 2*time.Millisecond {
		t.Errorf("segment %+v: want records 500-999 in order at 250/s, offset 2ms, no duration", s)
	}
	if n := env.inserted.Load(); n != 1000 {
		t.Errorf("records known to exist %d, want the whole load's 1000", n)
	}
	if v := (loadExec{}).judge(pr, nil, nil, nil); v != nil {
		t.Errorf("a load is judged: %+v", v)
	}
}
