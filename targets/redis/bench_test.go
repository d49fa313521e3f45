package redis

import (
	"testing"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

func benchOp(b *testing.B, op scenarios.Op) {
	if testing.Short() {
		b.Skip("needs redis-server")
	}
	s, err := StartServer(b.Context(), ServerConfig{Dir: b.TempDir()})
	if err != nil {
		b.Skip(err)
	}
	defer s.Stop()
	tg, err := targets.Open(b.Context(), scenarios.Target{Kind: "redis", URL: s.URL()}, targets.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer tg.Close()
	b.ReportAllocs()
	b.SetParallelism(25)
	b.RunParallel(func(pb *testing.PB) {
		r := &targets.Request{Op: op, KeyNum: 1, Key: []byte("user1"), Fields: record(1, 10)}
		for pb.Next() {
			if err := tg.Do(b.Context(), r); err != nil && err != targets.ErrNotFound {
				b.Error(err)
				return
			}
		}
	})
}

func BenchmarkGet(b *testing.B)    { benchOp(b, scenarios.OpGet) }
func BenchmarkSet(b *testing.B)    { benchOp(b, scenarios.OpSet) }
func BenchmarkRead(b *testing.B)   { benchOp(b, scenarios.OpRead) }
func BenchmarkInsert(b *testing.B) { benchOp(b, scenarios.OpInsert) }

func BenchmarkBatchRead(b *testing.B) {
	s, err := StartServer(b.Context(), ServerConfig{Dir: b.TempDir()})
	if err != nil {
		b.Skip(err)
	}
	defer s.Stop()
	tg, err := targets.Open(b.Context(), scenarios.Target{Kind: "redis", URL: s.URL()}, targets.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer tg.Close()
	bt := tg.(targets.Batcher)
	reqs := make([]*targets.Request, 64)
	for i := range reqs {
		reqs[i] = &targets.Request{Op: scenarios.OpGet, Key: []byte("k")}
	}
	errs := make([]error, len(reqs))
	b.ReportAllocs()
	for b.Loop() {
		bt.DoBatch(b.Context(), reqs, errs)
	}
	b.ReportMetric(float64(b.N*len(reqs))/b.Elapsed().Seconds(), "ops/s")
}
