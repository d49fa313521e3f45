package metrics

import (
	"testing"

	"github.com/soakd/soakd/scenarios"
)

func TestRecorderDrainMergesAndResets(t *testing.T) {
	r := NewRecorder([]scenarios.Op{scenarios.OpGet})
	for i := 1; i <= 100; i++ {
		r.Record(scenarios.OpGet, int64(i)*1000_000, 500_000, 10_000, 0)
	}
	r.Record(scenarios.OpGet, 1e6, 1e6, 0, 2)
	r.Drop(scenarios.OpGet, 3, 2e9)
	w := NewSet(nil)
	r.Drain(w)
	g := w.Ops[scenarios.OpGet]
	if g.Count != 101 || g.Classes[0] != 100 || g.Classes[2] != 1 || g.Dropped != 3 {
		t.Fatalf("counts: %+v", g)
	}
	s := Summarize(g.Latency)
	if s.P50 < 0.0499 || s.P50 > 0.0511 || s.Max < 0.0999 || s.Max > 0.1001 {
		t.Errorf("summary %+v", s)
	}
	if w.Lag.TotalCount() != 104 {
		t.Errorf("lag count %d (drops included)", w.Lag.TotalCount())
	}
	w2 := NewSet(nil)
	r.Drain(w2)
	if w2.Ops[scenarios.OpGet].Count != 0 {
		t.Errorf("window not reset")
	}
}

// BenchmarkRecord is the hot-path cost per recorded op (goal: < 100 ns,
// 0 allocs).
func BenchmarkRecord(b *testing.B) {
	r := NewRecorder([]scenarios.Op{scenarios.OpRead, scenarios.OpUpdate})
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r.Record(scenarios.OpRead, int64(i&0xffff)*1000+150_000, 90_000, 20_000, 0)
	}
}

// BenchmarkRecordParallel: stripes shared by concurrent workers.
func BenchmarkRecordParallel(b *testing.B) {
	stripes := []*Recorder{NewRecorder([]scenarios.Op{scenarios.OpRead}), NewRecorder([]scenarios.Op{scenarios.OpRead})}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			stripes[i&1].Record(scenarios.OpRead, int64(i&0xffff)*1000+150_000, 90_000, 20_000, 0)
			i++
		}
	})
}

func BenchmarkDrain(b *testing.B) {
	ops := []scenarios.Op{scenarios.OpRead, scenarios.OpUpdate}
	r := NewRecorder(ops)
	w := NewSet(ops)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		r.Record(scenarios.OpRead, 150_000, 90_000, 20_000, 0)
		r.Drain(w)
	}
}
