package verdict

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/soakd/soakd/internal/selfhealth"
	"github.com/soakd/soakd/rundir"
)

// TestExplainChanges: a change point whose after-stretch the server was
// busy in (another client's work) is server work; one with no server
// log is unknown; a bound phase's is generator/host-bound.
func TestExplainChanges(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	w := rundir.CreateServerLog(dir)
	var calls, secs, other float64
	for i := 0; i <= 20; i++ {
		if i > 0 {
			calls += 1000
			secs += 1000 * 2e-6
			if i > 10 {
				other += 0.4 // a side client's DEBUG SLEEPs: 40% of each second
			}
		}
		w.Add(t0.Add(time.Duration(i)*time.Second), map[string]float64{"cmd_get_calls_total": calls, "cmd_get_seconds_total": secs,
			"cmd_debug_calls_total": other * 10, "cmd_debug_seconds_total": other})
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	s := &rundir.Summary{Phases: []rundir.PhaseResult{{Name: "steady", Start: t0, End: t0.Add(20 * time.Second),
		ChangePoints: []rundir.ChangePoint{{Op: "get", Metric: rundir.MetricP50, At: t0.Add(10 * time.Second)}}}}}
	ExplainChanges(dir, s)
	x := s.Phases[0].ChangePoints[0].Explain
	if x == nil || x.Cause != rundir.CauseServer || x.Server == nil || x.Server.Busy[1] < 0.3 || x.Server.Command != "get" {
		t.Fatalf("%+v", x)
	}
	ExplainChanges(t.TempDir(), s)
	if x := s.Phases[0].ChangePoints[0].Explain; x.Cause != rundir.CauseUnknown {
		t.Fatalf("no server log: %+v", x)
	}
	s.Phases[0].Self = &rundir.SelfHealth{Bound: rundir.BoundHost, Reason: "load"}
	ExplainChanges(dir, s)
	if x := s.Phases[0].ChangePoints[0].Explain; x.Cause != rundir.CauseBound {
		t.Fatalf("bound phase: %+v", x)
	}
}

// TestExplainCliff: the cliff stage against the one before, from the
// stages' end-of-stage server figures: evictions are memory/swap, a
// refused write (oom) is too, a fork is persistence, a bound stage is
// generator/host-bound.
func TestExplainCliff(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	stage := func(i int, evicted, fork float64) rundir.StageResult {
		return rundir.StageResult{End: t0.Add(time.Duration(i) * 10 * time.Second), Result: rundir.Result{Ops: map[string]rundir.OpResult{"get": {}}},
			Server: map[string]float64{"cmd_get_calls_total": float64(1000 * i), "cmd_get_seconds_total": float64(i) * 2e-3,
				"evicted_keys_total": evicted, "latest_fork_seconds": fork}}
	}
	stages := []rundir.StageResult{stage(0, 0, 0), stage(1, 0, 0), stage(2, 0, 0), stage(3, 5000, 0)}
	if x := ExplainCliff(stages, 3, "get", false); x.Cause != rundir.CauseMemory {
		t.Fatalf("evictions: %+v", x)
	}
	stages[3] = stage(3, 0, 0)
	if x := ExplainCliff(stages, 3, "get", true); x.Cause != rundir.CauseMemory {
		t.Fatalf("oom: %+v", x)
	}
	if x := ExplainCliff(stages, 3, "get", false); x.Cause != rundir.CauseNetwork || x.Server == nil || x.Server.PerCall.Level != 0 {
		t.Fatalf("nothing on the server: %+v %+v", x, x.Server)
	}
	stages[3] = stage(3, 0, 0.05)
	if x := ExplainCliff(stages, 3, "", false); x.Cause != rundir.CausePersistence {
		t.Fatalf("fork: %+v", x)
	}
	stages[3].Self = &rundir.SelfHealth{Bound: rundir.BoundGenerator, Reason: "cpu"}
	if x := ExplainCliff(stages, 3, "get", true); x.Cause != rundir.CauseBound {
		t.Fatalf("bound: %+v", x)
	}
}

// TestExplainChangesSelfStretch: soakd's CPU pinned at its cores after a
// change (its self log) makes the change generator-bound although the
// phase as a whole was not; the CPU before and after is in the events.
func TestExplainChangesSelfStretch(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	b := []byte(rundir.SelfLogHeader)
	for i := 1; i <= 20; i++ {
		cpu := 0.3
		if i > 10 {
			cpu = 1.95
		}
		b = rundir.AppendSelfLine(b, t0.Add(time.Duration(i)*time.Second), selfhealth.Sample{CPU: cpu, Load1: 0.5})
	}
	if err := os.WriteFile(filepath.Join(dir, rundir.SelfLog), b, 0o644); err != nil {
		t.Fatal(err)
	}
	s := &rundir.Summary{Host: &rundir.Host{Cores: 2}, Phases: []rundir.PhaseResult{{Name: "steady", Start: t0, End: t0.Add(20 * time.Second),
		Self:         &rundir.SelfHealth{Cores: 2, CPUMean: 1.1},
		ChangePoints: []rundir.ChangePoint{{Op: "get", Metric: rundir.MetricP99, At: t0.Add(10 * time.Second)}}}}}
	ExplainChanges(dir, s)
	x := s.Phases[0].ChangePoints[0].Explain
	if x.Cause != rundir.CauseBound || !strings.Contains(x.Why, "after the change") || !strings.Contains(strings.Join(x.Events, ";"), "soakd CPU 0.30 -> 1.95 of 2 cores") {
		t.Fatalf("%+v", x)
	}
}
