package daemon

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/report"
	"github.com/soakd/soakd/rundir"
)

// historyDir writes n completed runs of scenario s (and one interrupted
// one, which is skipped) under dir/runs; run i's get p99 is p99(i) with
// 5% seeded noise.
func historyDir(t *testing.T, n int, p99 func(i int) float64) string {
	t.Helper()
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 3))
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	write := func(id string, i int, status string) {
		noise := func(v float64) float64 { return v * (1 + 0.05*rng.NormFloat64()) }
		s := &rundir.Summary{SchemaVersion: rundir.SchemaVersion, Scenario: "s", Status: status,
			Start: start.Add(time.Duration(i) * 24 * time.Hour),
			Phases: []rundir.PhaseResult{{Name: "steady", Kind: "steady", Result: rundir.Result{AchievedRate: noise(1000),
				Ops: map[string]rundir.OpResult{"get": {Count: 100, Latency: metrics.Summary{Count: 100,
					P50: noise(0.001), P99: noise(p99(i)), P999: noise(0.02)}}}}}}}
		rd := filepath.Join(dir, "runs", id)
		if err := os.MkdirAll(rd, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := report.WriteRunDir(rd, s); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < n; i++ {
		// Ids do not sort by time: runs are ordered by their start.
		write(string(rune('z'-i))+"-run", i, rundir.StatusCompleted)
	}
	write("interrupted", n, rundir.StatusInterrupted)
	return dir
}

func TestHistoryShifts(t *testing.T) {
	dir := historyDir(t, 16, func(i int) float64 {
		if i < 9 {
			return 0.005
		}
		return 0.012
	})
	runs, err := ReadHistory(dir, "")
	if err != nil || len(runs) != 16 {
		t.Fatalf("%d runs, %v", len(runs), err)
	}
	got := HistoryShifts(runs)
	if len(got) != 1 {
		t.Fatalf("shifts %v, want one (get p99 from run 9)", got)
	}
	s := got[0]
	t.Log(s)
	if s.Phase != "steady" || s.Op != "get" || s.Metric != rundir.MetricP99 || s.RunID != string(rune('z'-9))+"-run" ||
		math.Abs(s.Before-0.005) > 0.001 || math.Abs(s.After-0.012) > 0.002 || s.PValue > 0.005 {
		t.Errorf("shift %+v", s)
	}
	if runs, _ := ReadHistory(dir, "other"); len(runs) != 0 {
		t.Errorf("scenario filter: %d runs", len(runs))
	}

	steady, _ := ReadHistory(historyDir(t, 16, func(int) float64 { return 0.005 }), "s")
	if got := HistoryShifts(steady); len(got) != 0 {
		t.Errorf("steady history: %v", got)
	}
}
