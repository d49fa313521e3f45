package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/verdict"
)

// windowLimits is p99 <= 3 ms on every op.
func windowLimits(t *testing.T) *verdict.Limits {
	t.Helper()
	ops, err := (&scenarios.Scenario{}).OpTable()
	if err != nil {
		t.Fatal(err)
	}
	l, err := verdict.New(scenarios.SLO{Latency: map[string]map[string]scenarios.Duration{"*": {"p99": scenarios.Duration(3 * time.Millisecond)}}}, ops)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestWindowsCatchABadWindowTheWholePhaseHides: 63 s of read after a
// 5 s warmup, p99 2 ms except seconds 30-39 at 4 ms (3 in 100 ops, so
// the whole phase's p99 stays 2 ms and passes). With 10 s windows the
// window from +30 s breaks the 3 ms limit: the phase fails on it, the
// check names the worst window and counts 1 of 6 over (a 7th window,
// 3 s of 10, is not judged: under half a window).
func TestWindowsCatchABadWindowTheWholePhaseHides(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	log := writeLog(t, start, 68, []string{"read"}, func(op string, i int) (int, int64, int64, int) {
		if i >= 35 && i < 45 {
			return 100, ms1, ms4, 3
		}
		return 100, ms1, ms2, 0
	})
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, rundir.LatencyLog), log, 0o644); err != nil {
		t.Fatal(err)
	}
	s := soakSummary(start, 68, 5, "read")
	s.SLO.Passed = true
	s.Phases[0].SLO = &rundir.Verdict{Passed: true}
	if err := FillWindows(dir, s, windowLimits(t), 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if s.SLO.Passed || s.Phases[0].SLO.Passed {
		t.Fatalf("a window over its limit passed: run %v, phase %v", s.SLO.Passed, s.Phases[0].SLO.Passed)
	}
	cs := s.Phases[0].SLO.Checks
	if len(cs) != 1 || len(s.SLO.Checks) != 1 {
		t.Fatalf("checks: phase %d, run %d, want 1 each", len(cs), len(s.SLO.Checks))
	}
	c := cs[0]
	if c.Metric != rundir.WindowLatency || c.Op != "read" || c.Percentile != 99 || c.Window == nil {
		t.Fatalf("check %+v", c)
	}
	w := c.Window
	if w.Judged != 6 || w.Breached != 1 || w.WorstAtSeconds != 35 || w.LongestBreach != 1 || w.Seconds != 10 {
		t.Fatalf("windows %+v, want 6 judged, 1 over, worst at +35 s (from the phase start), longest 1", *w)
	}
	if c.Actual != float64(ns4ms)/1e9 {
		t.Fatalf("worst window p99 %v, want %v", c.Actual, float64(ns4ms)/1e9)
	}
	if txt := Text(s); !strings.Contains(txt, "SLO FAIL read latency p99 per 10s window: 4.10ms (limit 3.00ms, 1 of 6 windows over, worst at +35s)") {
		t.Errorf("summary text lacks the window check:\n%s", txt)
	}
	line := c.String()
	for _, want := range []string{"read latency p99 per 10s window", "4.10ms > 3.00ms", "worst of 6 windows at +35.00s", "1 over"} {
		if !strings.Contains(line, want) {
			t.Errorf("check line %q lacks %q", line, want)
		}
	}
}

// TestWindowsAllHold: the same phase without the bad seconds passes,
// every window judged, none over; a phase with no window set (width 0)
// gets no checks.
func TestWindowsAllHold(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	log := writeLog(t, start, 40, []string{"read", "update"}, func(op string, i int) (int, int64, int64, int) {
		return 50, ms1, ms2, 0
	})
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, rundir.LatencyLog), log, 0o644); err != nil {
		t.Fatal(err)
	}
	s := soakSummary(start, 40, 0, "read", "update")
	s.SLO.Passed = true
	if err := FillWindows(dir, s, windowLimits(t), 0); err != nil || len(s.SLO.Checks) != 0 {
		t.Fatalf("width 0: err %v, %d checks", err, len(s.SLO.Checks))
	}
	if err := FillWindows(dir, s, windowLimits(t), 20*time.Second); err != nil {
		t.Fatal(err)
	}
	if !s.SLO.Passed || s.Phases[0].SLO == nil || !s.Phases[0].SLO.Passed {
		t.Fatalf("windows within the limit failed: %+v", s.SLO)
	}
	if got := len(s.Phases[0].SLO.Checks); got != 2 {
		t.Fatalf("%d checks, want one per op", got)
	}
	for _, c := range s.Phases[0].SLO.Checks {
		if c.Window.Judged != 2 || c.Window.Breached != 0 {
			t.Errorf("%s: %+v, want 2 judged, 0 over", c.Op, *c.Window)
		}
	}
}
