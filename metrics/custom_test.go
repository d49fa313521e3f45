package metrics

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/soakd/soakd/scenarios"
)

// A custom op (a scenario's ops:) is exported under its own name, in
// the op label, like a built-in op; latency.hlog tags carry it too.
func TestCustomOpNameInMetrics(t *testing.T) {
	names := &scenarios.OpTable{}
	op, err := names.Add("cart_add")
	if err != nil {
		t.Fatal(err)
	}
	rec := NewRecorder([]scenarios.Op{op})
	rec.Record(op, 2e6, 1e6, 1e6, 0)
	w := NewWindowSet([]scenarios.Op{op})
	rec.Drain(w)
	e := newTestExporter()
	e.SetOps(names)
	e.Update("steady", 100, 100, w)
	reg := prometheus.NewRegistry()
	if err := e.Register(reg); err != nil {
		t.Fatal(err)
	}
	n, err := testutil.GatherAndCount(reg, "soakd_ops_total")
	if err != nil || n == 0 {
		t.Fatalf("soakd_ops_total: %d series, %v", n, err)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "op" {
					if l.GetValue() != "cart_add" {
						t.Errorf("%s has op=%q", mf.GetName(), l.GetValue())
					}
					found = true
				}
			}
		}
	}
	if !found {
		t.Fatal("no series with an op label")
	}
	hl := string(w.AppendHlog(nil, "steady", names, 0, 1, &HlogEncoder{}))
	if !strings.Contains(hl, "steady.cart_add.latency") || !strings.Contains(hl, "steady.cart_add.service") {
		t.Errorf("hlog lines do not name cart_add:\n%s", hl)
	}
}
