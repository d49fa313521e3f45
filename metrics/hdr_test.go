package metrics

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

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

func TestExporterValues(t *testing.T) {
	e := NewExporter("sc", "0", []string{"ok", "timeout"}, map[string]string{"version": "t"})
	r := NewRecorder([]scenarios.Op{scenarios.OpRead})
	for i := 0; i < 10; i++ {
		r.Record(scenarios.OpRead, 300_000, 100_000, 1000, 0) // 0.3 ms
	}
	r.Record(scenarios.OpRead, 2_000_000, 100_000, 1000, 1)
	w := NewSet(nil)
	r.Drain(w)
	e.Update("steady", 1000, 11, w)
	e.Update("steady", 1000, 11, w) // cumulative across intervals
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(e)
	if n := testutil.CollectAndCount(e, "soakd_ops_total"); n != 2 {
		t.Errorf("soakd_ops_total series %d", n)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, mf := range mfs {
		switch mf.GetName() {
		case "soakd_ops_total":
			for _, m := range mf.Metric {
				out := ""
				for _, l := range m.Label {
					if l.GetName() == "outcome" {
						out = l.GetValue()
					}
				}
				want := map[string]float64{"ok": 20, "timeout": 2}[out]
				if m.Counter.GetValue() != want {
					t.Errorf("ops_total{outcome=%s} = %v want %v", out, m.Counter.GetValue(), want)
				}
			}
		case "soakd_op_latency_seconds":
			found = true
			h := mf.Metric[0].Histogram
			if h.GetSampleCount() != 22 {
				t.Errorf("histogram count %d", h.GetSampleCount())
			}
			for _, b := range h.Bucket {
				if b.GetUpperBound() == 0.0003 && b.GetCumulativeCount() != 0 && b.GetCumulativeCount() != 20 {
					t.Errorf("bucket 0.3ms = %d", b.GetCumulativeCount())
				}
				if b.GetUpperBound() == 0.0004 && b.GetCumulativeCount() != 20 {
					t.Errorf("bucket 0.4ms = %d, want 20", b.GetCumulativeCount())
				}
				if b.GetUpperBound() == 0.003 && b.GetCumulativeCount() != 22 {
					t.Errorf("bucket 3ms = %d, want 22", b.GetCumulativeCount())
				}
			}
		}
	}
	if !found {
		t.Fatal("no soakd_op_latency_seconds")
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
