package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/report"
	"github.com/soakd/soakd/rundir"
)

// TestCompareHistory: soakd compare --history names the run where a
// scenario's p99 shifted.
func TestCompareHistory(t *testing.T) {
	dir := t.TempDir()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 12; i++ {
		p99 := 0.005 + 0.0001*float64(i%3)
		if i >= 6 {
			p99 = 0.015 + 0.0001*float64(i%3)
		}
		s := &rundir.Summary{SchemaVersion: rundir.SchemaVersion, Scenario: "s", Status: rundir.StatusCompleted,
			Start: start.Add(time.Duration(i) * time.Hour),
			Phases: []rundir.PhaseResult{{Name: "steady", Kind: "steady", Result: rundir.Result{
				Ops: map[string]rundir.OpResult{"get": {Count: 100, Latency: metrics.Summary{Count: 100, P50: 0.001, P99: p99, P999: 0.02}}}}}}}
		rd := filepath.Join(dir, "runs", "run-"+string(rune('a'+i)))
		if err := os.MkdirAll(rd, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := report.WriteRunDir(rd, s); err != nil {
			t.Fatal(err)
		}
	}
	a, out, errb := testApp(nil)
	if code := a.Main(context.Background(), []string{"compare", "--history", dir}); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errb)
	}
	t.Log(out)
	if !strings.Contains(out.String(), "12 completed runs, 1 shifts") || !strings.Contains(out.String(), "s steady get p99: shift from run run-g") {
		t.Errorf("output:\n%s", out)
	}
	a, _, _ = testApp(nil)
	if code := a.Main(context.Background(), []string{"compare", "--history", dir, "--scenario", "other"}); code != 2 {
		t.Errorf("no runs of the scenario: exit %d, want 2", code)
	}
}
