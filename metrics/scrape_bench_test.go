package metrics

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/soakd/soakd/scenarios"
)

// BenchmarkScrapeGather is one /metrics gather of a phase with two ops
// whose latencies reach ~0.8 s: what each scrape allocates (B/op).
// go test -run XXX -bench ScrapeGather -benchmem ./metrics/
func BenchmarkScrapeGather(b *testing.B) {
	ops := []scenarios.Op{scenarios.OpRead, scenarios.OpUpdate}
	e := newTestExporter()
	for k := 0; k < 3; k++ {
		r := NewRecorder(ops)
		for v := int64(100_000); v < 800_000_000; v = v*101/100 + 1 {
			r.Record(scenarios.OpRead, v, v/2, v/10, 0)
			r.Record(scenarios.OpUpdate, v, v/2, v/10, 0)
		}
		w := NewWindowSet(ops)
		r.Drain(w)
		e.Update("steady", 1000, 1000, w)
	}
	reg := prometheus.NewRegistry()
	if err := e.Register(reg); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := reg.Gather(); err != nil {
			b.Fatal(err)
		}
	}
}
