package redis

import (
	"syscall"
	"testing"
	"time"

	"github.com/soakd/soakd/internal/testutil"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// benchTarget starts a redis-server for b (skipped without one, failed
// under SOAKD_REQUIRE_TOOLS=1) and opens the adapter on it with client
// protocol p.
func benchTarget(b *testing.B, p Protocol) targets.Target {
	b.Helper()
	testutil.NeedTool(b, "redis-server")
	s, err := StartServer(b.Context(), ServerConfig{Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Stop() })
	tg, err := targets.Open(b.Context(), scenarios.Target{Kind: "redis", URL: s.URL(), Client: scenarios.ClientOf(scenarios.ClientCommon{}, ClientConfig{Protocol: p})}, targets.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { tg.Close() })
	return tg
}

// seed writes key with op before the timer starts (SET for GET, INSERT
// for READ), so the benchmarks time hits: a miss is a different, cheaper
// path, and any error during the timed loop fails the benchmark.
func seed(b *testing.B, tg targets.Target, op scenarios.Op, key string) {
	b.Helper()
	if err := tg.Do(b.Context(), &targets.Request{Op: op, KeyNum: 1, Key: []byte(key), Fields: record(1, 10)}); err != nil {
		b.Fatalf("seed %s %s: %v", op, key, err)
	}
}

// benchOp times op from 25 goroutines on each client protocol
// (BenchmarkGet/fast, BenchmarkGet/goredis).
func benchOp(b *testing.B, op, seedOp scenarios.Op) {
	for _, p := range Protocols {
		b.Run(string(p), func(b *testing.B) { benchOpOn(b, p, op, seedOp) })
	}
}

func benchOpOn(b *testing.B, p Protocol, op, seedOp scenarios.Op) {
	tg := benchTarget(b, p)
	seed(b, tg, seedOp, "user1")
	b.ReportAllocs()
	b.SetParallelism(25)
	cpu0 := processCPU(b)
	b.RunParallel(func(pb *testing.PB) {
		r := &targets.Request{Op: op, KeyNum: 1, Key: []byte("user1"), Fields: record(1, 10)}
		for pb.Next() {
			if err := tg.Do(b.Context(), r); err != nil {
				b.Errorf("%s: %v", op, err)
				return
			}
		}
	})
	b.ReportMetric(float64(processCPU(b)-cpu0)/float64(b.N), "cpu-ns/op")
}

// processCPU is the test process's user+system CPU time (redis-server
// is another process): the client's cost per op, which a busy host
// stretches less than ns/op.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func BenchmarkGet(b *testing.B)    { benchOp(b, scenarios.OpGet, scenarios.OpSet) }
func BenchmarkSet(b *testing.B)    { benchOp(b, scenarios.OpSet, scenarios.OpSet) }
func BenchmarkRead(b *testing.B)   { benchOp(b, scenarios.OpRead, scenarios.OpInsert) }
func BenchmarkInsert(b *testing.B) { benchOp(b, scenarios.OpInsert, scenarios.OpInsert) }

func BenchmarkUpdate(b *testing.B) { benchOp(b, scenarios.OpUpdate, scenarios.OpInsert) }

func BenchmarkBatchRead(b *testing.B) {
	for _, p := range Protocols {
		b.Run(string(p), func(b *testing.B) { benchBatchRead(b, p) })
	}
}

func benchBatchRead(b *testing.B, p Protocol) {
	tg := benchTarget(b, p)
	seed(b, tg, scenarios.OpSet, "k")
	bt := tg.(targets.Batcher)
	reqs := make([]*targets.Request, 64)
	for i := range reqs {
		reqs[i] = &targets.Request{Op: scenarios.OpGet, Key: []byte("k")}
	}
	errs := make([]error, len(reqs))
	b.ReportAllocs()
	for b.Loop() {
		bt.DoBatch(b.Context(), reqs, errs)
		for i, err := range errs {
			if err != nil {
				b.Fatalf("batch GET %d: %v", i, err)
			}
		}
	}
	b.ReportMetric(float64(b.N*len(reqs))/b.Elapsed().Seconds(), "ops/s")
}
