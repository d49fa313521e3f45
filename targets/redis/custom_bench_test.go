package redis

import (
	"math/rand/v2"
	"testing"

	"github.com/soakd/soakd/datagen"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// BenchmarkCustomGet is BenchmarkGet/fast for the custom op
// [GET, "{key}"]: each op is rendered from its compiled template (as the
// engine's worker does) and sent over the fast path. Compare its
// cpu-ns/op and allocs/op with BenchmarkGet/fast's.
func BenchmarkCustomGet(b *testing.B) {
	tg := benchTarget(b, ProtocolFast)
	seed(b, tg, scenarios.OpSet, "user1")
	sc, err := scenarios.Parse("b.yaml", []byte(`name: b
target: {kind: redis, url: "redis://127.0.0.1:6379"}
ops:
  cget: {redis: [GET, "{key}"]}
phases:
  - {name: s, kind: steady, rate: 10, duration: 1s, mix: {cget: 100}}
`))
	if err != nil {
		b.Fatal(err)
	}
	if err := tg.(targets.Preparer).Prepare(b.Context(), sc); err != nil {
		b.Fatal(err)
	}
	prog, err := datagen.Compile(sc, scenarios.KindRedis)
	if err != nil {
		b.Fatal(err)
	}
	names, err := sc.OpTable()
	if err != nil {
		b.Fatal(err)
	}
	op, _ := names.Lookup("cget")
	b.ReportAllocs()
	b.SetParallelism(25)
	cpu0 := processCPU(b)
	b.RunParallel(func(pb *testing.PB) {
		rd := datagen.NewRenderer(prog)
		rng := rand.New(rand.NewPCG(1, 2))
		r := &targets.Request{Op: op, KeyNum: 1, Key: []byte("user1")}
		for pb.Next() {
			r.Buf, r.Parts = rd.Render(op, r.Key, 0, rng, r.Buf[:0], r.Parts[:0])
			if err := tg.Do(b.Context(), r); err != nil {
				b.Errorf("cget: %v", err)
				return
			}
		}
	})
	b.ReportMetric(float64(processCPU(b)-cpu0)/float64(b.N), "cpu-ns/op")
}
