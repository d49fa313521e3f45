package engine

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/report"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/targets"
)

func TestGrowthEmbedded(t *testing.T) {
	sc := scenario(t, `
name: growth-embedded
keyspace: {records: 100000}
record: {fields: 1, field_bytes: 64}
phases:
  - name: grow
    kind: growth
    concurrency: 4
    mix: {get: 90, set: 10}
    # after_cliff -1: all four stages run even when a busy host makes a
    # cliff (a stall at a short stage's end lowers its achieved rate).
    growth: {batch: 1500, measure_rate: 400, measure_for: 500ms, stop_records: 5000, after_cliff: -1}
`)
	sum, dir := runEmbedded(t, sc)
	p := sum.Phases[0]
	// 1500, 3000, 4500, then a clamped 500 to reach 5000.
	if len(p.Stages) != 4 {
		t.Fatalf("%d stages, want 4", len(p.Stages))
	}
	wantRec := []int64{1500, 3000, 4500, 5000}
	for i, st := range p.Stages {
		if st.Records != wantRec[i] {
			t.Errorf("stage %d records %d, want %d", i, st.Records, wantRec[i])
		}
		if st.Load == nil || st.Load.Ops["set"].Count != wantRec[i]-map[bool]int64{true: 0, false: wantRec[max(i-1, 0)]}[i == 0] {
			t.Errorf("stage %d load %+v", i, st.Load)
		}
		if st.Completed != 200 || st.TargetRate != 400 {
			t.Errorf("stage %d measured %d ops at target %v, want 200 at 400", i, st.Completed, st.TargetRate)
		}
		if g := st.Ops["get"]; g.Misses != 0 || len(g.Errors) != 0 || g.Count == 0 {
			t.Errorf("stage %d: %d gets missed, errors %v: reads must cover only loaded records", i, g.Misses, g.Errors)
		}
		if st.Server["keys"] < float64(wantRec[i]) {
			t.Errorf("stage %d: server has %v keys, want >= %d", i, st.Server["keys"], wantRec[i])
		}
	}
	// Errors and misses are deterministic here; p99 and the achieved
	// rate (ops completed inside each short window) are the host's as
	// much as the store's on a shared 2-core machine.
	if c := p.Cliff; c != nil && c.Reason != "p99" && c.Reason != "rate" {
		t.Errorf("cliff on the embedded store at 400 ops/s: %+v", c)
	}
	back, err := rundir.ReadSummary(dir)
	if err != nil {
		t.Fatal(err)
	}
	if back.Phases[0].Stages[3].Records != 5000 {
		t.Errorf("records not in summary.json")
	}
	if txt := report.Text(back); !strings.Contains(txt, "5000 records") || !strings.Contains(txt, "stage stage-4:") {
		t.Errorf("summary text:\n%s", txt)
	}
}

func TestCapacityEmbedded(t *testing.T) {
	t.Parallel()
	// Two workers on a store with a fixed 10 ms service time hold at most
	// 200 ops/s: the search must find that rate, settle the store after
	// each failed probe, and hold 50 ops/s (25% busy).
	sc := scenario(t, `
keyspace: {records: 100}
phases:
  - name: cap
    kind: capacity
    concurrency: 2
    mix: {get: 100}
    capacity: {start: 50, factor: 4, max: 800, step_duration: 500ms, precision: 0.3}
slo:
  latency: {"*": {p99: 500ms}}
`)
	sum := runInBubble(t, sc, &recordingTarget{service: 10 * time.Millisecond}, Options{})
	p := sum.Phases[0]
	c := p.Capacity
	// In a synctest bubble the store holds exactly 200 ops/s: the
	// search steps 50, 200, 800, bisects down to 238 (the last that
	// fails) and confirms 200 and 238 again.
	if c == nil || c.HighestRateHeld != 200 {
		t.Fatalf("capacity %+v: want 200 ops/s", c)
	}
	var rates []float64
	for _, pt := range c.Curve {
		rates = append(rates, pt.Rate)
	}
	if want := []float64{50, 200, 800, 500, 350, 275, 238, 200, 238}; !slices.Equal(rates, want) {
		t.Errorf("probes at %v, want %v", rates, want)
	}
	if pt := c.Curve[0]; pt.Rate != 50 || !pt.Passed || pt.P99["get"] <= 0 {
		t.Errorf("first probe %+v", pt)
	}
	failed := 0
	for i, pt := range c.Curve {
		if i > 0 && !c.Curve[i-1].Passed && pt.SettledSeconds <= 0 {
			t.Errorf("probe %d at %v ran without settling after a failed probe", i, pt.Rate)
		}
		if !pt.Passed {
			failed++
		}
		if want := int64(math.Ceil(pt.Rate / 2)); p.Stages[i].Completed+p.Stages[i].Dropped != want {
			t.Errorf("probe %d at %v completed %d + dropped %d, want %d", i, pt.Rate, p.Stages[i].Completed, p.Stages[i].Dropped, want)
		}
	}
	if failed == 0 {
		t.Errorf("no probe failed above 200 ops/s: %+v", c.Curve)
	}
	// The answer is probed again: the rate held passed every probe of it
	// (at least two), and the confirmation keeps what they saw.
	cf := c.Confirmation
	if cf == nil || cf.Held == nil || cf.Held.Rate != c.HighestRateHeld || cf.Held.Probes < 2 || cf.Held.Passed != cf.Held.Probes ||
		cf.Held.AchievedMin <= 0 || cf.Held.AchievedMin > cf.Held.AchievedMax || cf.Held.GoodputMax <= 0 || cf.Held.P99Max["get"] < cf.Held.P99Min["get"] {
		t.Errorf("confirmation %+v held %+v", cf, cf.Held)
	}
	rechecks := 0
	for _, pt := range c.Curve {
		if pt.Recheck {
			rechecks++
		}
	}
	if rechecks < 1 || rechecks > 4 || len(p.Stages) != len(c.Curve) {
		t.Errorf("%d rechecks, %d stages, %d probes", rechecks, len(p.Stages), len(c.Curve))
	}
	if !sum.SLO.Passed {
		t.Errorf("capacity run failed its SLO: %+v", sum.SLO)
	}

	// An SLO no store meets: the start rate fails, nothing held.
	sc = scenario(t, `
keyspace: {records: 100}
phases:
  - {name: cap, kind: capacity, concurrency: 2, mix: {get: 100}, capacity: {start: 8, max: 800, step_duration: 300ms}}
slo:
  latency: {"*": {p50: 1ns}}
`)
	sum, _ = runEmbedded(t, sc)
	c = sum.Phases[0].Capacity
	// It searched below start, down to 1 op/s, before reporting 0.
	if c.HighestRateHeld != 0 || len(c.Curve) != 4 || c.Curve[3].Rate != 1 || sum.SLO.Passed {
		t.Errorf("impossible SLO: %+v passed %v", c, sum.SLO.Passed)
	}
	for i, pt := range c.Curve {
		if pt.Passed || len(pt.Failed) == 0 || (i > 0 && (pt.Rate >= c.Curve[i-1].Rate || pt.SettledSeconds <= 0)) {
			t.Errorf("probe %d: %+v", i, pt)
		}
	}
}

// TestGrowthExportsStageAndRecords: while a growth phase runs,
// soakd_growth_stage follows the stage number and soakd_dataset_records
// the records inserted so far.
func TestGrowthExportsStageAndRecords(t *testing.T) {
	sc := scenario(t, `
name: growth-gauges
keyspace: {records: 100000}
record: {fields: 1, field_bytes: 64}
phases:
  - name: grow
    kind: growth
    concurrency: 2
    mix: {get: 90, set: 10}
    growth: {batch: 1000, measure_rate: 400, measure_for: 400ms, stop_records: 3000, after_cliff: -1}
`)
	// after_cliff: -1 runs all three stages whatever the measurements say:
	// this test is about the gauges following the stages, and a rate or
	// p99 "cliff" from a CPU-starved host must not end growth early
	// (cliff detection has its own tests).
	tg, err := targets.Open(context.Background(), sc.Target, targets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	exp := metrics.NewExporter(sc.Name, "0", targets.Classes(), nil)
	reg := prometheus.NewRegistry()
	if err := exp.Register(reg); err != nil {
		t.Fatal(err)
	}
	stages := map[float64]float64{} // stage -> highest records seen in it
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-time.After(20 * time.Millisecond):
			case <-stop:
				return
			}
			mfs, _ := reg.Gather()
			var stage, recs float64
			for _, mf := range mfs {
				for _, m := range mf.GetMetric() {
					switch mf.GetName() {
					case "soakd_growth_stage":
						stage = max(stage, m.GetGauge().GetValue())
					case "soakd_dataset_records":
						recs = m.GetGauge().GetValue()
					}
				}
			}
			stages[stage] = max(stages[stage], recs)
		}
	}()
	_, err = Run(context.Background(), Options{Scenario: sc, Target: tg, TargetKind: sc.Target.Kind, OutDir: t.TempDir(), Exporter: exp, Interval: 50 * time.Millisecond})
	close(stop)
	<-done
	if err != nil {
		t.Fatal(err)
	}
	for s := 1.0; s <= 3; s++ {
		if stages[s] != 1000*s {
			t.Errorf("stage %v: dataset_records %v, want %v (seen %v)", s, stages[s], 1000*s, stages)
		}
	}
}
