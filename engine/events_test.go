package engine

import (
	"context"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/targets"
)

// metricValue finds the gauge or counter of family name whose labels
// include want.
func metricValue(t *testing.T, fams []*dto.MetricFamily, name string, want map[string]string) (float64, bool) {
	t.Helper()
	for _, f := range fams {
		if f.GetName() != name {
			continue
		}
	next:
		for _, m := range f.GetMetric() {
			l := map[string]string{}
			for _, lp := range m.GetLabel() {
				l[lp.GetName()] = lp.GetValue()
			}
			for k, v := range want {
				if l[k] != v {
					continue next
				}
			}
			if m.Counter != nil {
				return m.GetCounter().GetValue(), true
			}
			return m.GetGauge().GetValue(), true
		}
	}
	return 0, false
}

// TestRateChangeCounted: a live rate change the dispatcher applies is
// counted in soakd_rate_changes_total of its phase (the dashboards'
// rate change annotation).
func TestRateChangeCounted(t *testing.T) {
	sc := scenario(t, `
keyspace: {records: 100}
phases:
  - {name: steady, kind: steady, rate: 200, duration: 1s, concurrency: 2, mix: {get: 100}}
`)
	tg, err := targets.Open(context.Background(), sc.Target, targets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	exp := metrics.NewExporter(sc.Name, "0", targets.Classes(), nil)
	ctl := &Control{}
	done := make(chan error, 1)
	go func() {
		_, err := Run(context.Background(), Options{Scenario: sc, Target: tg, TargetKind: "embedded", OutDir: t.TempDir(), Control: ctl, Exporter: exp})
		done <- err
	}()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if ph, _ := ctl.Current(); ph != "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("phase never started")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := ctl.SetRate(300); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(exp)
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := metricValue(t, fams, "soakd_rate_changes_total", map[string]string{"phase": "steady"}); !ok || n != 1 {
		t.Errorf("soakd_rate_changes_total{phase=steady} = %v (%v), want 1", n, ok)
	}
}
