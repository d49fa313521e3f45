package runpath

import (
	"context"
	"strings"
	"testing"

	"github.com/soakd/soakd/rundir"
)

// TestRunJudgesSLOWindows: a steady phase of 2.4 s with slo.window 1s
// gets one window_latency check per limit, judged on 2 windows (the
// last half-second is under half a window), written to summary.json;
// a limit no op meets (1 us) fails the run on its windows, one
// every op meets (1 h) passes.
func TestRunJudgesSLOWindows(t *testing.T) {
	const src = `name: win
target: {kind: embedded}
keyspace: {records: 200}
phases:
  - {name: steady, kind: steady, rate: 200, duration: 2400ms, concurrency: 2, mix: {get: 100}}
slo:
  window: 1s
  latency: {get: {p99: LIMIT}}
`
	for _, c := range []struct {
		limit  string
		passed bool
	}{{"1us", false}, {"1h", true}} {
		dir := t.TempDir()
		sc := parse(t, replaceLimit(src, c.limit))
		sum, err := Run(context.Background(), Options{Scenario: sc, OutDir: dir, Getenv: noEnv})
		if err != nil {
			t.Fatal(err)
		}
		back, err := rundir.ReadSummary(dir)
		if err != nil {
			t.Fatal(err)
		}
		var win *rundir.Check
		for i, ch := range back.SLO.Checks {
			if ch.Metric == rundir.WindowLatency {
				win = &back.SLO.Checks[i]
			}
		}
		if win == nil || win.Window == nil {
			t.Fatalf("limit %s: no window check in summary.json: %+v", c.limit, back.SLO.Checks)
		}
		// 2.4 s makes two whole windows; a run the host held up past
		// 2.5 s (its window runs to the schedule's end) judges a third.
		if win.Op != "get" || win.Window.Judged < 2 || win.Window.Judged > 3 || win.Window.Seconds != 1 {
			t.Errorf("limit %s: window check %+v %+v, want get over 2 (or 3) windows of 1 s", c.limit, *win, *win.Window)
		}
		if win.Passed != c.passed || back.SLO.Passed != c.passed || sum.SLO.Passed != c.passed {
			t.Errorf("limit %s: window passed %v, run passed %v (returned %v), want %v", c.limit, win.Passed, back.SLO.Passed, sum.SLO.Passed, c.passed)
		}
		if !c.passed && win.Window.Breached != win.Window.Judged {
			t.Errorf("limit %s: %d of %d windows over, want every one", c.limit, win.Window.Breached, win.Window.Judged)
		}
	}
}

func replaceLimit(src, limit string) string { return strings.ReplaceAll(src, "LIMIT", limit) }
