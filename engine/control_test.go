package engine

import (
	"context"
	"testing"
	"time"

	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/targets"
)

// TestControlSetRateRestartsSchedule changes a steady phase's rate half
// way: ops sent before the change stay counted and the rest of the phase
// follows the new rate from the moment of the change.
func TestControlSetRateRestartsSchedule(t *testing.T) {
	sc := scenario(t, `
keyspace: {records: 100}
phases:
  - {name: steady, kind: steady, rate: 200, duration: 2s, concurrency: 4, mix: {get: 100}}
`)
	tg, err := targets.Open(context.Background(), sc.Target, targets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	ctl := &Control{}
	if err := ctl.SetRate(100); err == nil {
		t.Fatal("SetRate with no phase running should fail")
	}
	done := make(chan *rundir.Summary, 1)
	go func() {
		sum, err := Run(context.Background(), Options{Scenario: sc, Target: tg, TargetKind: "embedded", OutDir: t.TempDir(), Control: ctl})
		if err != nil {
			t.Error(err)
		}
		done <- sum
	}()
	deadline := time.Now().Add(time.Second)
	for {
		if ph, _ := ctl.Current(); ph != "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("phase never started")
		}
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(time.Second)
	if err := ctl.SetRate(0); err == nil {
		t.Error("SetRate(0) accepted")
	}
	if err := ctl.SetRate(1000); err != nil {
		t.Fatal(err)
	}
	// The dispatcher picks the change up within its 10 ms sleep; allow
	// for a loaded CI machine by polling.
	seen := time.Now().Add(time.Second)
	for {
		ph, rate := ctl.Current()
		if ph == "steady" && rate == 1000 {
			break
		}
		if time.Now().After(seen) {
			t.Errorf("Current() = %q %v, want steady 1000", ph, rate)
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	sum := <-done
	p := sum.Phases[0]
	// ~200 in the first second, ~1000 in the second.
	if p.Scheduled < 950 || p.Scheduled > 1300 { // 400 without the change
		t.Errorf("scheduled %d ops, want about 1200 (200/s for 1 s then 1000/s for 1 s)", p.Scheduled)
	}
	if got := uint64(p.Completed + p.Dropped); got != p.Scheduled {
		t.Errorf("completed+dropped %d != scheduled %d", got, p.Scheduled)
	}
	if p.TargetRate < 500 || p.TargetRate > 650 {
		t.Errorf("target rate %.0f, want the time-weighted ~600", p.TargetRate)
	}
	// The change is in summary.json: when, and the new rate.
	if len(p.RateChanges) != 1 {
		t.Fatalf("rate_changes %+v, want the one change", p.RateChanges)
	}
	rc := p.RateChanges[0]
	if rc.Rate != 1000 || rc.Stage != "" || rc.At.Before(p.Start) || rc.At.After(p.End) ||
		rc.OffsetSeconds <= 0 || rc.OffsetSeconds > p.End.Sub(p.Start).Seconds() {
		t.Errorf("rate change %+v, want rate 1000 inside the phase %s..%s", rc, p.Start, p.End)
	}
	if p.Ops["get"].Latency.P99 > 0.5 {
		t.Errorf("p99 %.3fs: intended starts after the change were not restarted from the change", p.Ops["get"].Latency.P99)
	}
}
