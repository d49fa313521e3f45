package engine

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
)

// BenchmarkCheckpoint is the cost of one checkpoint of a steady phase
// of four ops that has measured 10 million ops (latencies spread over
// 100 us .. 1 s, the histograms' buckets well filled): encoding, the
// logs' fsync and the atomic write of checkpoint.json. It reports the
// checkpoint's bytes; at one checkpoint a second, ns/op x 3600 is the
// CPU-and-wait per hour, bytes x 3600 the bytes written per hour.
func BenchmarkCheckpoint(b *testing.B) {
	dir := b.TempDir()
	total := benchMeasuredSet()
	r := &runner{inserted: &scenarios.Inserted{}, time: wallTime{}}
	if err := r.logs.create(dir, nil); err != nil {
		b.Fatal(err)
	}
	r.logs.start(time.Now())
	seg := &segment{Phase: "steady", Rate: 40000, Duration: 12 * time.Hour}
	sr := &segRun{seg: seg, clk: newClock(seg, time.Now()), res: &segResult{Start: time.Now(), Total: total}}
	c := &checkpointer{dir: dir, logs: &r.logs, inserted: r.inserted, stages: &r.stageHists, now: time.Now, out: make(chan []byte, 1),
		ck: rundir.Checkpoint{Version: rundir.CheckpointVersion, Current: &rundir.CheckpointCurrent{Name: "steady", Kind: "steady"}}}
	sr.ckpt = c
	path := filepath.Join(dir, rundir.CheckpointFile)
	b.ResetTimer()
	for b.Loop() {
		// The collector's part, then the writer's (its goroutine in a
		// run), one after the other.
		sr.pos = sr.position()
		c.segment(sr)
		if err := r.logs.sync(); err != nil {
			b.Fatal(err)
		}
		if err := rundir.WriteFileAtomic(path, <-c.out); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if c.err != nil {
		b.Fatal(c.err)
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(st.Size()), "bytes/checkpoint")
}

// BenchmarkCheckpointEncode is the encoding alone of
// BenchmarkCheckpoint's measured set (no disk).
func BenchmarkCheckpointEncode(b *testing.B) {
	total := benchMeasuredSet()
	var n int
	var enc setEncoder // a checkpointer's, kept between checkpoints
	for b.Loop() {
		n = len(enc.encode(total))
	}
	b.ReportMetric(float64(n), "bytes")
}

// benchMeasuredSet is the benchmarks' measured set: four ops, 10 million
// ops with latencies spread over 100 us .. 1 s.
func benchMeasuredSet() *metrics.Set {
	ops := []scenarios.Op{scenarios.OpRead, scenarios.OpUpdate, scenarios.OpInsert, scenarios.OpScan}
	rec := metrics.NewRecorder(ops)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 10_000_000; i++ {
		lat := int64(100_000 * (1 + rng.ExpFloat64()*20))
		rec.Record(ops[i%len(ops)], lat, lat/2, lat/4, 0)
	}
	total := metrics.NewSet(ops)
	rec.Drain(total)
	return total
}
