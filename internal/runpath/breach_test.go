package runpath

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/rundir"
)

// TestBreachWatchCountsConsecutiveWindows drives the watch with made-up
// counts: get's p99 limit allows 1% of a window's ops over it. A window
// with 2 of 100 over breaks it, one with 1 of 100 does not; after the
// warmup, windows of 10 s; stop_after 2 stops on the second breach in a
// row, not on two apart.
func TestBreachWatchCountsConsecutiveWindows(t *testing.T) {
	sc := parse(t, `name: w
target: {kind: embedded}
phases:
  - {name: load, kind: load}
  - {name: soak, kind: steady, rate: 100, duration: 10m, warmup: 5s, mix: {get: 100}}
slo:
  latency: {get: {p99: 1ms}}
  window: 10s
  stop_after: 2
`)
	b := newBreachWatch(sc)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var total, over uint64
	step := func(sec int, n, bad uint64, phase string) *BreachError {
		total, over = total+n, over+bad
		return b.observe(t0.Add(time.Duration(sec)*time.Second), phase, []metrics.SLOCount{{Op: "get", Quantile: "0.99", Limit: 0.001, Total: total, Over: over}})
	}
	if e := step(0, 0, 0, "load"); e != nil {
		t.Fatal("a load phase is not judged")
	}
	if e := step(1, 500, 500, "soak"); e != nil { // the warmup: all slow, not judged
		t.Fatalf("warmup judged: %v", e)
	}
	if e := step(6, 500, 500, "soak"); e != nil { // the window's base
		t.Fatalf("base judged: %v", e)
	}
	for i, w := range []struct{ bad uint64 }{{2}, {1}, {2}} { // breach, hold, breach
		if e := step(16+10*i, 100, w.bad, "soak"); e != nil {
			t.Fatalf("window %d stopped the run after breaches apart: %v", i, e)
		}
	}
	e := step(46, 100, 50, "soak")
	if e == nil {
		t.Fatal("two breached windows in a row did not stop the run")
	}
	if e.Op != "get" || e.Windows != 2 || e.Phase != "soak" || e.Width != 10*time.Second {
		t.Fatalf("breach %+v", e)
	}
	if want := "get latency p99 over 1.00ms in 2 consecutive 10s windows of phase soak"; !strings.Contains(e.Error(), want) {
		t.Fatalf("%q lacks %q", e.Error(), want)
	}
}

// TestRunStopsOnSustainedBreach: a 60 s steady phase whose p99 limit no
// op meets (1 us), with 1 s windows and stop_after 2, stops after a few
// seconds: the run is interrupted with the breach as its reason, the
// phase ended early saying why, and its window check failed.
func TestRunStopsOnSustainedBreach(t *testing.T) {
	sc := parse(t, `name: stop
target: {kind: embedded}
keyspace: {records: 200}
phases:
  - {name: steady, kind: steady, rate: 200, duration: 60s, concurrency: 2, mix: {get: 100}}
slo:
  latency: {get: {p99: 1us}}
  window: 1s
  stop_after: 2
`)
	dir := t.TempDir()
	sum, err := Run(context.Background(), Options{Scenario: sc, OutDir: dir, Getenv: noEnv})
	if sum == nil {
		t.Fatalf("no summary: %v", err)
	}
	if sum.Status != rundir.StatusInterrupted || !strings.Contains(sum.StatusReason, "sustained SLO breach") {
		t.Fatalf("status %q, reason %q", sum.Status, sum.StatusReason)
	}
	p := sum.Phases[0]
	if p.EndedEarly == nil || p.EndedEarly.AtSeconds >= 30 || !strings.Contains(p.EndedEarly.Reason, "get latency p99 over 1us in 2 consecutive 1s windows") {
		t.Fatalf("ended_early %+v", p.EndedEarly)
	}
	if sum.SLO.Passed {
		t.Fatal("a run stopped on a breach passed its SLO")
	}
}
