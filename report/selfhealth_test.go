package report

import (
	"strings"
	"testing"

	"github.com/soakd/soakd/rundir"
)

func TestTextSaysGeneratorBound(t *testing.T) {
	s := &rundir.Summary{Scenario: "x", Status: rundir.StatusCompleted, Target: rundir.TargetInfo{Kind: "redis"}, SLO: rundir.Verdict{Passed: true}}
	quiet := rundir.PhaseResult{Name: "warm", Kind: "steady", Self: &rundir.SelfHealth{Intervals: 30, Cores: 2, CPUMean: 0.2, CPUMax: 0.3, LoadMax: 0.5}}
	busy := rundir.PhaseResult{Name: "cap", Kind: "capacity",
		Self: &rundir.SelfHealth{Intervals: 30, Cores: 2, CPUMean: 1.8, CPUMax: 1.94, ThreadCPUMax: 0.99, RunqueueDelayRatioMax: 0.4, LoadMax: 3.2, StealMax: 0.01,
			Bound: rundir.BoundGenerator, Reason: "soakd CPU up to 97% of 2 cores, above 90% in 60% of intervals"},
		Capacity: &rundir.CapacityResult{HighestRateHeld: 2000, Bound: rundir.BoundGenerator, Note: "the limit found is soakd's, not the store's: a probe at the limit was generator-bound (see its stage's self); give soakd more CPU or run shards",
			Curve: []rundir.CapacityPoint{{Rate: 2000, Achieved: 2000, Passed: true, Bound: rundir.BoundGenerator}}}}
	s.Phases = []rundir.PhaseResult{quiet, busy}
	txt := Text(s)
	for _, want := range []string{
		"  self: soakd CPU 0.20 cores mean, 0.30 max of 2, busiest thread 0.00; run-queue wait 0 ms/s max; host load 0.5 max, steal 0% max (30 samples)\n",
		"  self: soakd CPU 1.80 cores mean, 1.94 max of 2, busiest thread 0.99; run-queue wait 400 ms/s max; host load 3.2 max, steal 1% max (30 samples)\n",
		"  No verdict: generator-bound (soakd CPU up to 97% of 2 cores, above 90% in 60% of intervals): these figures measure soakd, not the store\n",
		"  capacity: the limit found is soakd's, not the store's",
		"    held (generator-bound) rate 2000",
		"SLO PASSED (no verdict on the store for cap generator-bound)\n",
	} {
		if !strings.Contains(txt, want) {
			t.Errorf("text lacks %q:\n%s", want, txt)
		}
	}
	if strings.Count(txt, "No verdict") != 1 {
		t.Errorf("the quiet phase got a no-verdict line:\n%s", txt)
	}
}

func TestHTMLPhaseNotesSayGeneratorBound(t *testing.T) {
	s := &rundir.Summary{Scenario: "x", Status: rundir.StatusCompleted, Target: rundir.TargetInfo{Kind: "redis"}}
	s.Phases = []rundir.PhaseResult{{Name: "steady", Kind: "steady", Self: &rundir.SelfHealth{Intervals: 10, Cores: 2, CPUMax: 1.9,
		Bound: rundir.BoundGenerator, Reason: "soakd CPU up to 95% of 2 cores, above 90% in 50% of intervals"}}}
	notes := strings.Join(BuildReport(s, nil).Phases[0].Notes, "\n")
	if !strings.Contains(notes, "self: soakd CPU") || !strings.Contains(notes, "No verdict: generator-bound (soakd CPU up to 95% of 2 cores") {
		t.Errorf("notes:\n%s", notes)
	}
}
