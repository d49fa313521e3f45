package engine

import (
	"context"
	"testing"
	"time"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

type nopTarget struct{}

func (nopTarget) Do(context.Context, *targets.Request) error { return nil }
func (nopTarget) Close() error                               { return nil }

// BenchmarkWorkerOp is the engine's per-op path for one open-loop op:
// fill the request, send it, classify, and record it in its window
// (warmup/window/drain accounting included). It must not allocate.
func BenchmarkWorkerOp(b *testing.B) {
	sc, err := scenarios.Parse("bench.yaml", []byte(`
keyspace: {records: 100000}
phases:
  - {name: steady, kind: steady, rate: 1000, duration: 1s, warmup: 100ms, mix: {read: 50, update: 50}}
`))
	if err != nil {
		b.Fatal(err)
	}
	plan, err := Prepare(context.Background(), sc, Options{})
	if err != nil {
		b.Fatal(err)
	}
	inserted := plan.inserted()
	src, err := newMixSource(plan, inserted, nil)
	if err != nil {
		b.Fatal(err)
	}
	mix, _ := scenarios.NewMix(sc.Phases[0].Mix, nil)
	seg := &segment{Phase: "steady", Kind: scenarios.PhaseSteady, Rate: 1000, Duration: time.Second, Warmup: 100 * time.Millisecond,
		Mix: mix, Source: src, Concurrency: 1, Seed: phaseSeed(1, 0, 0)}
	clk := newClock(seg, time.Now())
	rec := metrics.NewWarmupRecorder(mix.Ops())
	c := &crew{target: nopTarget{}, slots: 1, clk: clk, classIdx: plan.classIdx, streams: newStreamCells(1)}
	w := c.newWorker(seg, 0, rec)
	ep := &epoch{t0: clk.t0, sched: Schedule{Rate: 1000}}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w.runChunk(ctx, chunk{first: uint64(i % 1000), n: 1, ep: ep})
	}
}
