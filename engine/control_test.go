package engine

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/soakd/soakd/rundir"
)

// TestControlSetRateRestartsSchedule changes a steady phase's rate half
// way, in a synctest bubble: ops sent before the change stay counted
// and the rest of the phase follows the new rate from the moment the
// dispatcher sees the change (its next wake, the next op at 200/s).
func TestControlSetRateRestartsSchedule(t *testing.T) {
	t.Parallel()
	sc := scenario(t, `
keyspace: {records: 100}
phases:
  - {name: steady, kind: steady, rate: 200, duration: 2s, concurrency: 4, mix: {get: 100}}
`)
	synctest.Test(t, func(t *testing.T) {
		tg := &recordingTarget{service: time.Millisecond}
		ctl := &Control{}
		if err := ctl.SetRate(100); err == nil {
			t.Fatal("SetRate with no phase running should fail")
		}
		done := make(chan *rundir.Summary, 1)
		go func() {
			sum, err := Run(context.Background(), Options{Scenario: sc, Target: tg, TargetKind: "fake", OutDir: t.TempDir(), Control: ctl, time: bubbleTime{}})
			if err != nil {
				t.Error(err)
			}
			done <- sum
		}()
		time.Sleep(1002 * time.Millisecond)
		if ph, rate := ctl.Current(); ph != "steady" || rate != 200 {
			t.Fatalf("Current() = %q %v, want steady 200", ph, rate)
		}
		if err := ctl.SetRate(0); err == nil {
			t.Error("SetRate(0) accepted")
		}
		if err := ctl.SetRate(1000); err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond)
		if ph, rate := ctl.Current(); ph != "steady" || rate != 1000 {
			t.Errorf("Current() = %q %v, want steady 1000", ph, rate)
		}
		sum := <-done
		if sum == nil {
			return
		}
		p := sum.Phases[0]
		// Ops 0-200 at 200/s (0 to 1 s), then from the change at 1.002 s
		// (it wakes the dispatcher) at 1000/s to the phase's end: 998 more.
		if p.Scheduled != 1199 || p.Completed != 1199 || p.Dropped != 0 {
			t.Errorf("scheduled %d completed %d dropped %d, want 1199 and 1199 and 0 (400 without the change)", p.Scheduled, p.Completed, p.Dropped)
		}
		if p.TargetRate != 599.5 {
			t.Errorf("target rate %.3f, want the time-weighted 599.5 (1199 ops over 2 s)", p.TargetRate)
		}
		// The change is in summary.json: when, and the new rate.
		if len(p.RateChanges) != 1 {
			t.Fatalf("rate_changes %+v, want the one change", p.RateChanges)
		}
		rc := p.RateChanges[0]
		if rc.Rate != 1000 || rc.Stage != "" || rc.At.Sub(p.Start) != 1002*time.Millisecond || rc.OffsetSeconds != 1.002 {
			t.Errorf("rate change %+v, want rate 1000 at 1.002s into the phase (start %s)", rc, p.Start)
		}
		// Intended starts after the change follow the new schedule: no
		// op waits behind the old one (1 ms of service, 4 workers).
		if max := p.Ops["get"].Latency.Max; max > 0.0011 {
			t.Errorf("max latency %.4fs: intended starts after the change were not restarted from the change", max)
		}
	})
}
