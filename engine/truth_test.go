package engine

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/soakd/soakd/report"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/targets"
)

// downTarget fails every op.
type downTarget struct{}

func (downTarget) Do(context.Context, *targets.Request) error {
	return errors.New("connection refused")
}
func (downTarget) Close() error { return nil }

// A phase whose every op failed never passes: a load-only run (which
// the SLO does not judge) fails on its succeeded check, as does a
// steady phase with no SLO limits at all.
func TestAllFailedPhaseNeverPasses(t *testing.T) {
	t.Parallel()
	for _, src := range []string{`
keyspace: {records: 200}
phases:
  - {name: load, kind: load, concurrency: 2}
`, `
keyspace: {records: 200}
phases:
  - {name: steady, kind: steady, rate: 100, duration: 2s, concurrency: 2, mix: {read: 100}}
`} {
		sc := scenario(t, src)
		sum := runInBubble(t, sc, downTarget{}, Options{})
		p := sum.Phases[0]
		if p.Completed == 0 || p.Errors != p.Completed {
			t.Fatalf("%s: %d ops, %d errors: want every op failed", p.Name, p.Completed, p.Errors)
		}
		if sum.SLO.Passed || p.SLO == nil || p.SLO.Passed {
			t.Errorf("%s: every op failed and the SLO passed: %+v", p.Name, sum.SLO)
		}
		found := false
		for _, c := range sum.SLO.Checks {
			if c.Metric == rundir.Succeeded && c.Phase == p.Name && !c.Passed && c.Actual == 0 {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no failed succeeded-ops check in %+v", p.Name, sum.SLO.Checks)
		}
		if got := report.VerdictLine(sum.Status, sum.StatusReason, sum.SLO); got != "SLO FAILED" {
			t.Errorf("%s: verdict %q", p.Name, got)
		}
	}
	// One op that succeeds is enough for the check (the SLO's own limits
	// judge the rest).
	sum := runInBubble(t, scenario(t, `
keyspace: {records: 200}
phases:
  - {name: load, kind: load, concurrency: 2}
`), &recordingTarget{}, Options{})
	if !sum.SLO.Passed {
		t.Errorf("a load whose ops succeeded failed: %+v", sum.SLO)
	}
}

// A rate whose next op falls after the phase's end does not end the
// phase early: at 0.05 ops/s the one op of a 10 s phase is sent at 0
// and the phase runs its 10 s, measured over all of them.
func TestLowRateRunsTheDuration(t *testing.T) {
	t.Parallel()
	sc := scenario(t, `
keyspace: {records: 100}
phases:
  - {name: slow, kind: steady, rate: 0.05, duration: 10s, concurrency: 1, mix: {read: 100}}
`)
	sum := runInBubble(t, sc, &recordingTarget{service: time.Millisecond}, Options{})
	p := sum.Phases[0]
	if p.Scheduled != 1 || p.Completed != 1 {
		t.Errorf("scheduled %d completed %d, want 1 and 1", p.Scheduled, p.Completed)
	}
	if ran := p.End.Sub(p.Start); ran < 10*time.Second || p.DurationSeconds != 10 || p.EndedEarly != nil {
		t.Errorf("phase ran %s, window %.3fs, ended early %v: want its 10s", ran, p.DurationSeconds, p.EndedEarly)
	}
}

// A live rate change to 0.001 ops/s 5 s into a 10-minute phase does not
// turn it into a completed run after 5 s: the phase waits out its
// duration at the new rate (the change could be undone), and a second
// change is still applied.
func TestLiveLowRateKeepsTheDuration(t *testing.T) {
	t.Parallel()
	sc := scenario(t, `
keyspace: {records: 100}
phases:
  - {name: steady, kind: steady, rate: 100, duration: 10m, concurrency: 2, mix: {read: 100}}
`)
	synctest.Test(t, func(t *testing.T) {
		ctl := &Control{}
		done := make(chan *rundir.Summary, 1)
		start := time.Now()
		go func() {
			sum, err := Run(context.Background(), Options{Scenario: sc, Target: &recordingTarget{}, TargetKind: "fake", OutDir: t.TempDir(), Control: ctl, time: bubbleTime{}})
			if err != nil {
				t.Error(err)
			}
			done <- sum
		}()
		time.Sleep(5 * time.Second)
		if err := ctl.SetRate(0.001); err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Minute)
		if ph, _ := ctl.Current(); ph != "steady" {
			t.Fatalf("5 min after /rate 0.001 the phase is %q, want still steady", ph)
		}
		if err := ctl.SetRate(10); err != nil {
			t.Fatal(err)
		}
		sum := <-done
		if sum == nil {
			return
		}
		p := sum.Phases[0]
		if took := time.Since(start); took < 10*time.Minute {
			t.Errorf("the run took %s, want its 10 minutes", took)
		}
		if sum.Status != rundir.StatusCompleted || p.EndedEarly != nil || p.DurationSeconds != 600 {
			t.Errorf("status %s, ended early %v, window %.1fs", sum.Status, p.EndedEarly, p.DurationSeconds)
		}
		// 500 ops in the first 5 s, one at the change, then 10/s for the
		// last 295 s (the second change sends one at once too).
		if p.Scheduled < 3400 || p.Scheduled > 3500 || len(p.RateChanges) != 2 {
			t.Errorf("scheduled %d, %d rate changes", p.Scheduled, len(p.RateChanges))
		}
	})
}

// A phase stopped before its duration says so, in summary.json's
// ended_early and its text, and its figures are over what ran.
func TestInterruptedPhaseSaysEndedEarly(t *testing.T) {
	t.Parallel()
	sc := scenario(t, `
keyspace: {records: 100}
phases:
  - {name: steady, kind: steady, rate: 100, duration: 60s, concurrency: 1, mix: {read: 100}}
`)
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		sum, err := Run(ctx, Options{Scenario: sc, Target: &recordingTarget{}, TargetKind: "fake", OutDir: t.TempDir(), time: bubbleTime{}})
		if err != nil {
			t.Fatal(err)
		}
		p := sum.Phases[0]
		e := p.EndedEarly
		if e == nil || e.AtSeconds != 5 || e.OfSeconds != 60 || !strings.Contains(e.Reason, "stopped before its end") {
			t.Fatalf("ended early %+v, want at 5s of 60s", e)
		}
		if p.DurationSeconds != 5 {
			t.Errorf("window %.3fs, want the 5s that ran", p.DurationSeconds)
		}
		if txt := report.Text(sum); !strings.Contains(txt, "  ended early at 5.0s of 60.0s: stopped before its end (signal or stop request)\n") {
			t.Errorf("text:\n%s", txt)
		}
	})
}

// The capture's index stops on the run's context: a run cancelled while
// it indexes (SIGINT during a large capture) ends with the cancel's
// cause, not after the whole file.
func TestReplayIndexStopsOnCancel(t *testing.T) {
	t.Parallel()
	lines := make([]string, 0, 50_000)
	for i := 0; i < 50_000; i++ {
		lines = append(lines, `1.0 [0 a:1] "SET" "k" "v"`)
	}
	src := writeCapture(t, "big.txt", lines)
	sc := scenario(t, replayTarget+"phases:\n  - {name: r, kind: replay, source: "+src+"}\n")
	cause := errors.New("SIGINT")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(cause)
	_, err := Run(ctx, Options{Scenario: sc, Target: &cmdTarget{}, TargetKind: sc.Target.Kind, OutDir: t.TempDir()})
	if !errors.Is(err, cause) {
		t.Errorf("Run: %v, want the cancel's cause", err)
	}
}
