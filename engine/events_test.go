package engine

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/scenarios"
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
// rate change annotation). In a synctest bubble.
func TestRateChangeCounted(t *testing.T) {
	t.Parallel()
	sc := scenario(t, `
keyspace: {records: 100}
phases:
  - {name: steady, kind: steady, rate: 200, duration: 1s, concurrency: 2, mix: {get: 100}}
`)
	exp := metrics.NewExporter(sc.Name, "0", targets.Classes(), nil)
	synctest.Test(t, func(t *testing.T) {
		ctl := &Control{}
		go func() {
			time.Sleep(502 * time.Millisecond)
			if err := ctl.SetRate(300); err != nil {
				t.Error(err)
			}
		}()
		_, err := Run(context.Background(), Options{Scenario: sc, Target: &recordingTarget{service: time.Millisecond}, TargetKind: "fake",
			OutDir: t.TempDir(), Control: ctl, Exporter: exp, time: bubbleTime{}})
		if err != nil {
			t.Fatal(err)
		}
	})
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

// cliffTarget fails 30% of gets once `after` sets (the growth phase's
// inserts) have been done: an error cliff at a known stage.
type cliffTarget struct {
	after      int64
	sets, gets atomic.Int64
}

func (t *cliffTarget) Do(ctx context.Context, r *targets.Request) error {
	switch r.Op {
	case scenarios.OpSet:
		t.sets.Add(1)
	case scenarios.OpGet:
		if t.sets.Load() >= t.after && t.gets.Add(1)%10 < 3 {
			return errors.New("injected failure")
		}
	}
	return nil
}

func (t *cliffTarget) Close() error { return nil }

// TestCliffExported: a growth phase's confirmed cliff reaches
// soakd_cliff_time_seconds with its stage, reason and the stage's start
// (the dashboards' cliff annotation).
func TestCliffExported(t *testing.T) {
	sc := scenario(t, `
name: cliff-events
keyspace: {records: 100000}
record: {fields: 1, field_bytes: 16}
phases:
  - name: grow
    kind: growth
    concurrency: 2
    mix: {get: 100}
    growth: {batch: 200, measure_rate: 200, measure_for: 300ms, max_stages: 5, after_cliff: 0}
`)
	exp := metrics.NewExporter(sc.Name, "0", targets.Classes(), nil)
	sum, err := Run(context.Background(), Options{Scenario: sc, Target: &cliffTarget{after: 600}, TargetKind: "fake",
		OutDir: t.TempDir(), Exporter: exp, Interval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	p := sum.Phases[0]
	c := p.Cliff
	if c == nil || c.Unconfirmed {
		t.Fatalf("no confirmed cliff (errors from the third stage on): %+v", c)
	}
	t.Logf("cliff %s (%s) at stage index %d", c.Stage, c.Reason, c.StageIndex)
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(exp)
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	at, ok := metricValue(t, fams, "soakd_cliff_time_seconds", map[string]string{"phase": "grow", "stage": c.Stage, "reason": c.Reason})
	if want := float64(p.Stages[c.StageIndex].Start.UnixNano()) / 1e9; !ok || at != want {
		t.Errorf("soakd_cliff_time_seconds{stage=%s,reason=%s} = %v (%v), want the stage's start %v", c.Stage, c.Reason, at, ok, want)
	}
}
