package verdict

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/soakd/soakd/internal/selfhealth"
	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
)

// healthOf runs n samples through an accumulator for cores, the first
// bad of them made by bad (the rest quiet).
func healthOf(cores, n, bad int, mk func() selfhealth.Sample) *rundir.SelfHealth {
	a := NewSelfAcc(cores)
	for i := 0; i < n; i++ {
		s := selfhealth.Sample{CPU: 0.3, Load1: 0.5, RunqueueDelay: 0.01}
		if i < bad {
			s = mk()
		}
		a.Add(s)
	}
	return a.Health(0.002)
}

func TestSelfBoundRule(t *testing.T) {
	cpu := func() selfhealth.Sample { return selfhealth.Sample{CPU: 1.94, Load1: 2.5} }
	steal := func() selfhealth.Sample { return selfhealth.Sample{CPU: 0.5, Steal: 0.25} }
	load := func() selfhealth.Sample { return selfhealth.Sample{CPU: 0.5, Load1: 11} }
	rq := func() selfhealth.Sample { return selfhealth.Sample{CPU: 0.5, Load1: 1, RunqueueDelay: 1.35} }
	// What 1,000 GET/s against a local redis-server summed on a quiet
	// 2-core host: threads wake often, and their waits add up.
	wakeful := func() selfhealth.Sample { return selfhealth.Sample{CPU: 0.1, Load1: 0.9, RunqueueDelay: 0.46} }
	// An in-process CPU hog beside other work: neither figure alone.
	wanted := func() selfhealth.Sample { return selfhealth.Sample{CPU: 1.13, Load1: 1.5, RunqueueDelay: 0.8} }
	busy := func() selfhealth.Sample { return selfhealth.Sample{CPU: 1.0, Load1: 1.5, RunqueueDelay: 0.5} }
	both := func() selfhealth.Sample {
		return selfhealth.Sample{CPU: 1.95, Load1: 12, Steal: 0.3, RunqueueDelay: 0.5}
	}
	for _, c := range []struct {
		name         string
		cores, n     int
		bad          int
		mk           func() selfhealth.Sample
		bound, words string
	}{
		{"quiet", 2, 60, 0, cpu, "", ""},
		{"cpu in 1 of 60: a blip", 2, 60, 1, cpu, "", ""},
		{"cpu in 6 of 60: exactly a tenth is not more", 2, 60, 6, cpu, "", ""},
		{"cpu in 7 of 60", 2, 60, 7, cpu, rundir.BoundGenerator, "soakd CPU up to 97% of 2 cores, above 90% in 12% of intervals"},
		{"cpu judged against the cores: 1.94 of 4 is fine", 4, 60, 30, cpu, "", ""},
		{"cpu of unknown cores is not judged", 0, 60, 30, cpu, "", ""},
		{"steal", 2, 60, 20, steal, rundir.BoundHost, "CPU steal up to 25%, above 10% in 33% of intervals"},
		{"load", 2, 60, 20, load, rundir.BoundHost, "host load up to 11.0 on 2 cores, above 2x cores in 33% of intervals"},
		{"run queue", 2, 60, 20, rq, rundir.BoundGenerator, "soakd's threads waited for a CPU up to 1350 ms a second, over 1000 ms in 33% of intervals"},
		{"run queue of a quiet host's many wake-ups: not", 2, 60, 60, wakeful, "", ""},
		{"cpu and run queue together", 2, 60, 20, wanted, rundir.BoundGenerator, "soakd's threads ran or waited for a CPU on up to 1.93 of 2 cores (CPU plus run-queue wait), above 90% in 33% of intervals"},
		{"busy, with room: not", 2, 60, 60, busy, "", ""},
		{"soakd's CPU comes first", 2, 60, 20, both, rundir.BoundGenerator, "soakd CPU"},
		{"one interval of one: bound", 2, 1, 1, cpu, rundir.BoundGenerator, "in 100% of intervals"},
		{"one interval of five: not", 2, 5, 1, cpu, "", ""},
	} {
		h := healthOf(c.cores, c.n, c.bad, c.mk)
		if h.Bound != c.bound || !strings.Contains(h.Reason, c.words) {
			t.Errorf("%s: bound %q (%s), want %q (%s)", c.name, h.Bound, h.Reason, c.bound, c.words)
		}
		if h.Intervals != c.n || h.LagP99 != 0.002 {
			t.Errorf("%s: %+v", c.name, h)
		}
	}
	if NewSelfAcc(2).Health(0) != nil {
		t.Error("no samples should give no record")
	}
	h := healthOf(2, 10, 5, cpu)
	if h.CPUMax != 1.94 || h.LoadMax != 2.5 || math.Abs(h.CPUMean-1.12) > 1e-9 || h.CPUBusyShare != 0.5 {
		t.Errorf("figures: %+v", h)
	}
	if w := h.Withheld(); !strings.HasPrefix(w, "no verdict: generator-bound (soakd CPU up to 97% of 2 cores") {
		t.Errorf("withheld %q", w)
	}
}

func TestLimitBound(t *testing.T) {
	curve := []rundir.CapacityPoint{
		{Rate: 1000, Passed: true}, {Rate: 2000, Passed: true}, {Rate: 4000, Passed: false, Bound: rundir.BoundGenerator},
		{Rate: 3000, Passed: false}, {Rate: 2500, Passed: true, Bound: rundir.BoundHost},
	}
	// held 2500, the lowest failure above it 3000: only 2500's probe counts.
	if b, note := LimitBound(curve, 2500); b != rundir.BoundHost || !strings.Contains(note, "the host's, not the store's") {
		t.Errorf("got %q %q", b, note)
	}
	curve[3].Bound = rundir.BoundGenerator
	if b, note := LimitBound(curve, 2500); b != rundir.BoundGenerator || !strings.Contains(note, "the limit found is soakd's, not the store's") {
		t.Errorf("got %q %q", b, note)
	}
	curve[3].Bound, curve[4].Bound = "", ""
	if b, note := LimitBound(curve, 2500); b != "" || note != "" {
		t.Errorf("a generator-bound probe away from the limit: got %q %q", b, note)
	}
}

// boundRun is a one-phase run whose steady phase's p99 is p99 and whose
// self record is bound (or not).
func boundRun(start time.Time, p99 float64, bound string) *rundir.Summary {
	ph := rundir.PhaseResult{Name: "steady", Kind: scenarios.PhaseSteady}
	ph.TargetRate = 1000
	ph.Ops = map[string]rundir.OpResult{"get": {Count: 100000, Latency: metrics.Summary{Count: 100000, P50: p99 / 4, P99: p99, P999: p99 * 2}}}
	if bound != "" {
		ph.Self = &rundir.SelfHealth{Intervals: 60, Cores: 2, Bound: bound, Reason: "soakd CPU up to 97% of 2 cores, above 90% in 40% of intervals"}
	}
	return &rundir.Summary{Scenario: "s", Target: rundir.TargetInfo{Kind: "redis"}, Start: start, Phases: []rundir.PhaseResult{ph}}
}

func TestCompareWithholdsBoundPhases(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	base := boundRun(t0, 0.001, "")
	slow := func(bound string) *Regression {
		return Compare([]*rundir.Summary{base}, boundRun(t0.Add(time.Hour), 0.010, bound), RegressOptions{Threshold: 0.2, MinHistory: 1})
	}
	if v := slow(""); !v.Regressed {
		t.Fatalf("a 10x p99 not bound should regress:\n%s", v.Table())
	}
	v := slow(rundir.BoundGenerator)
	if v.Regressed {
		t.Fatalf("a generator-bound candidate should have no verdict:\n%s", v.Table())
	}
	if len(v.Ops) != 1 || !strings.HasPrefix(v.Ops[0].Withheld, "no verdict: generator-bound (soakd CPU up to 97% of 2 cores") {
		t.Fatalf("ops %+v", v.Ops)
	}
	tab := v.Table()
	for _, want := range []string{"no verdict: bound", "phase steady of the run of 2026-01-01T01:00:00Z: no verdict: generator-bound (soakd CPU up to 97%",
		"no verdict: every op compared ran in a generator- or host-bound phase"} {
		if !strings.Contains(tab, want) {
			t.Errorf("table lacks %q:\n%s", want, tab)
		}
	}
	if strings.Contains(tab, "REGRESSION") {
		t.Errorf("table still calls a REGRESSION:\n%s", tab)
	}
	// A host-bound history run is left out of the noise model (noted),
	// and the others still judge the candidate.
	var hist []*rundir.Summary
	for i, p99 := range []float64{0.5, 0.001, 0.00105, 0.00098, 0.00102, 0.00101} {
		bound := ""
		if i == 0 {
			bound = rundir.BoundHost // 500x slower: it would swamp the noise model
		}
		hist = append(hist, boundRun(t0.Add(time.Duration(i)*time.Minute), p99, bound))
	}
	v = Compare(hist, boundRun(t0.Add(time.Hour), 0.010, ""), RegressOptions{Threshold: 0.2, K: 3, MinHistory: 1})
	if !v.Regressed || v.Ops[0].Withheld != "" || !strings.Contains(v.Table(), "phase steady: 1 history run(s) left out, generator- or host-bound there") {
		t.Fatalf("a host-bound history run:\n%s", v.Table())
	}
	// Only bound history: nothing to judge the phase with.
	v = Compare(hist[:1], boundRun(t0.Add(time.Hour), 0.010, ""), RegressOptions{Threshold: 0.2, MinHistory: 1})
	if v.Regressed || len(v.Ops) != 0 {
		t.Fatalf("only a bound history run: %+v", v.Ops)
	}
}

// The compare command's baseline (CompareIntervals) withholds when it
// ran bound: there is no other baseline to judge against.
func TestCompareIntervalsBoundBaseline(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	t0 := time.Unix(1_800_000_000, 0)
	bs, bt := steadyRun(rng, t0, 1200, 1)
	cs, ct := steadyRun(rng, t0.Add(time.Minute), 600, 2)
	bs.Phases[0].Self = &rundir.SelfHealth{Intervals: 20, Cores: 2, Bound: rundir.BoundHost, Reason: "host load up to 9.0 on 2 cores, above 2x cores in 50% of intervals"}
	v := CompareIntervals([]*rundir.Summary{bs}, []*rundir.Summary{cs}, []RunIntervals{SteadyIntervals(bs, bt)}, []RunIntervals{SteadyIntervals(cs, ct)}, IntervalOptions{})
	if v.Regressed || len(v.Ops) != 1 || !strings.Contains(v.Ops[0].Withheld, "host-bound") {
		t.Fatalf("verdict:\n%s", v.Table())
	}
}

// CompareIntervals withholds too: the same 2x slower candidate that is
// a REGRESSION (TestCompareIntervals) has no verdict when it ran
// generator-bound, and the run is not regressed.
func TestCompareIntervalsWithholdsBoundPhases(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	t0 := time.Unix(1_800_000_000, 0)
	bs, bt := steadyRun(rng, t0, 1200, 1)
	cs, ct := steadyRun(rng, t0.Add(time.Minute), 600, 2)
	cs.Phases[0].Self = &rundir.SelfHealth{Intervals: 20, Cores: 2, Bound: rundir.BoundGenerator, Reason: "soakd CPU up to 99% of 2 cores, above 90% in 50% of intervals"}
	v := CompareIntervals([]*rundir.Summary{bs}, []*rundir.Summary{cs}, []RunIntervals{SteadyIntervals(bs, bt)}, []RunIntervals{SteadyIntervals(cs, ct)}, IntervalOptions{})
	if v.Regressed || len(v.Ops) != 1 || v.Ops[0].Withheld == "" {
		t.Fatalf("verdict:\n%s", v.Table())
	}
	for _, c := range v.Ops[0].Checks {
		if c.Regressed || c.Call != CallWithheld {
			t.Errorf("%s: %+v, want withheld", c.Quantile, c)
		}
	}
}
