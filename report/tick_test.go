package report

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/soakd/soakd/rundir"
)

// TestTextShowsTick: a phase run in ticks says so next to its target
// rate; one without says nothing of ticks.
func TestTextShowsTick(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	s := &rundir.Summary{Scenario: "s", Status: rundir.StatusCompleted, Start: start, End: start.Add(time.Minute),
		Phases: []rundir.PhaseResult{
			{Name: "soak", Kind: "steady", Start: start, End: start.Add(time.Minute), TickSeconds: 0.02, Result: rundir.Result{TargetRate: 250}},
			{Name: "even", Kind: "steady", Start: start, End: start.Add(time.Minute), Result: rundir.Result{TargetRate: 250}}}}
	got := Text(s)
	if want := "phase soak (steady): target 250 ops/s in 20ms ticks achieved"; !strings.Contains(got, want) {
		t.Errorf("text lacks %q:\n%s", want, got)
	}
	if want := "phase even (steady): target 250 ops/s achieved"; !strings.Contains(got, want) || strings.Count(got, "ticks") != 1 {
		t.Errorf("text lacks %q, or names ticks for the phase without them:\n%s", want, got)
	}
}

// TestMergeKeepsTick: shards of a phase run in ticks merge into a phase
// that still says so.
func TestMergeKeepsTick(t *testing.T) {
	base := t.TempDir()
	var dirs []string
	for i := 0; i < 2; i++ {
		d := filepath.Join(base, fmt.Sprintf("s%d", i))
		writeShardDir(t, d, "sc", i, 2, []int64{1000, 2000})
		s, err := rundir.ReadSummary(d)
		if err != nil {
			t.Fatal(err)
		}
		s.Phases[0].TickSeconds = 0.02
		if err := WriteRunDir(d, s); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, d)
	}
	m, err := MergeRunDirs(dirs)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Phases[0].TickSeconds; got != 0.02 {
		t.Errorf("merged tick_seconds %v, want 0.02", got)
	}
	if txt := m.Text(); !strings.Contains(txt, "all shards: target 200 ops/s in 20ms ticks") {
		t.Errorf("merged text does not say the ticks:\n%s", txt)
	}
}

// TestPageNotesTick: report.html's phase section names the ticks.
func TestPageNotesTick(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	s := &rundir.Summary{Scenario: "s", Status: rundir.StatusCompleted, Start: start, End: start.Add(time.Minute),
		Phases: []rundir.PhaseResult{{Name: "soak", Kind: "steady", Start: start, End: start.Add(time.Minute), TickSeconds: 0.02, Result: rundir.Result{TargetRate: 250}}}}
	rd := BuildReport(s, nil)
	if len(rd.Phases) != 1 || !slices.ContainsFunc(rd.Phases[0].Notes, func(n string) bool { return strings.HasPrefix(n, "arrivals in 20ms ticks:") }) {
		t.Errorf("phase notes %q: want one saying the arrivals came in 20ms ticks", rd.Phases[0].Notes)
	}
}
