package verdict

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
)

func synth(p50, p99, p999 float64) *rundir.Summary {
	return &rundir.Summary{Scenario: "s", Phases: []rundir.PhaseResult{{Name: "steady", Kind: scenarios.PhaseSteady, Result: rundir.Result{Ops: map[string]rundir.OpResult{
		"get": {Count: 1000, Latency: metrics.Summary{Count: 1000, P50: p50, P99: p99, P999: p999}},
		"set": {Count: 1000, Latency: metrics.Summary{Count: 1000, P50: p50, P99: p99, P999: p999}},
	}}}}}
}

// noisyHistory: 10 runs whose percentiles vary by about +-10% (the noise
// measured on these machines).
func noisyHistory(rng *rand.Rand) []*rundir.Summary {
	var h []*rundir.Summary
	for i := 0; i < 10; i++ {
		f := 1 + (rng.Float64()*2-1)*0.10
		h = append(h, synth(0.001*f, 0.005*f, 0.010*f))
	}
	return h
}

func TestCompareFindsStepChange(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	hist := noisyHistory(rng)
	cand := synth(0.001, 0.005, 0.010)
	// get's p99 doubles; set stays.
	op := cand.Phases[0].Ops["get"]
	op.Latency.P99 = 0.010
	cand.Phases[0].Ops["get"] = op
	v := Compare(hist, cand, RegressOptions{Threshold: 0.2, K: 3})
	if !v.Regressed {
		t.Fatalf("step change not found:\n%s", v.Table())
	}
	got := v.OpRegressed()
	if !got["get"] || got["set"] {
		t.Errorf("per-op verdicts %v, want get regressed and set not", got)
	}
	for _, o := range v.Ops {
		for _, c := range o.Checks {
			want := o.Op == "get" && c.Quantile == "p99"
			if c.Regressed != want {
				t.Errorf("%s %s regressed=%v, want %v (change %.2f noise %.6f)", o.Op, c.Quantile, c.Regressed, want, c.Change, c.Noise)
			}
		}
	}
}

func TestCompareIgnoresNoise(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 50; trial++ {
		hist := noisyHistory(rng)
		f := 1 + (rng.Float64()*2-1)*0.10
		cand := synth(0.001*f, 0.005*f, 0.010*f)
		if v := Compare(hist, cand, RegressOptions{Threshold: 0.2, K: 3}); v.Regressed {
			t.Fatalf("trial %d: noise flagged as regression:\n%s", trial, v.Table())
		}
	}
}

// A noisy history raises the bar above the relative threshold: a 30%
// change is within 3 x the noise of a history that swings +-40%.
func TestCompareNoisyHistoryNeedsMoreThanThreshold(t *testing.T) {
	var hist []*rundir.Summary
	for _, f := range []float64{0.6, 0.8, 1.0, 1.2, 1.4, 0.7, 1.3} {
		hist = append(hist, synth(0.001*f, 0.005*f, 0.010*f))
	}
	cand := synth(0.0013, 0.0065, 0.013)
	if v := Compare(hist, cand, RegressOptions{Threshold: 0.2, K: 3}); v.Regressed {
		t.Errorf("30%% change within a +-40%% noisy history flagged:\n%s", v.Table())
	}
}

func TestCompareOneBaselineUsesThresholdOnly(t *testing.T) {
	base := synth(0.001, 0.005, 0.010)
	if v := Compare([]*rundir.Summary{base}, synth(0.00115, 0.0055, 0.011), RegressOptions{Threshold: 0.2, K: 3}); v.Regressed {
		t.Errorf("15%% slower flagged with a 20%% threshold:\n%s", v.Table())
	}
	v := Compare([]*rundir.Summary{base}, synth(0.00125, 0.005, 0.010), RegressOptions{Threshold: 0.2, K: 3})
	if !v.Regressed {
		t.Errorf("25%% slower p50 not flagged against one baseline:\n%s", v.Table())
	}
	// Faster is never a regression.
	if v := Compare([]*rundir.Summary{base}, synth(0.0001, 0.0005, 0.001), RegressOptions{Threshold: 0.2}); v.Regressed {
		t.Error("an improvement was flagged")
	}
}

// The verdict rules before any figure is compared: no verdict on too
// little history, only steady phases, unlike runs left out. Before: a
// history of one gave a verdict, load phases were judged, and runs of
// another target kind or rate were compared without a word.
func TestCompareRules(t *testing.T) {
	slow := func() *rundir.Summary { return synth(0.002, 0.010, 0.020) } // twice as slow
	base := func(mod func(*rundir.Summary)) *rundir.Summary {
		s := synth(0.001, 0.005, 0.010)
		s.Target.Kind = "redis"
		s.Phases[0].TargetRate = 1000
		if mod != nil {
			mod(s)
		}
		return s
	}
	cand := func(mod func(*rundir.Summary)) *rundir.Summary {
		s := slow()
		s.Target.Kind = "redis"
		s.Phases[0].TargetRate = 1000
		if mod != nil {
			mod(s)
		}
		return s
	}
	load := func(s *rundir.Summary) { s.Phases[0].Kind = scenarios.PhaseLoad }
	embedded := func(s *rundir.Summary) { s.Target.Kind = "embedded" }
	rate := func(s *rundir.Summary) { s.Phases[0].TargetRate = 2000 }
	for _, tc := range []struct {
		name      string
		history   []*rundir.Summary
		cand      *rundir.Summary
		min       int
		regressed bool
		judged    bool
		unlike    int
	}{
		{"five runs of history", []*rundir.Summary{base(nil), base(nil), base(nil), base(nil), base(nil)}, cand(nil), 5, true, true, 0},
		// two runs tell little about the spread: the 99% prediction
		// interval of a new run, t(1) = 63.7 times the 2% floor, holds 2x
		{"two runs cannot tell 2x from noise", []*rundir.Summary{base(nil), base(nil)}, cand(nil), 2, false, true, 0},
		{"four runs are too few by default", []*rundir.Summary{base(nil), base(nil), base(nil), base(nil)}, cand(nil), DefaultMinHistory, false, false, 0},
		{"one run is too little", []*rundir.Summary{base(nil)}, cand(nil), 2, false, false, 0},
		{"compare: one baseline", []*rundir.Summary{base(nil)}, cand(nil), 1, true, true, 0},
		{"load phases not judged", []*rundir.Summary{base(load), base(load)}, cand(load), 2, false, true, 0},
		{"other target kind left out", []*rundir.Summary{base(embedded), base(nil)}, cand(nil), 2, false, false, 1},
		{"other rate left out", []*rundir.Summary{base(rate), base(rate), base(nil)}, cand(nil), 2, false, false, 2},
		{"like runs kept", []*rundir.Summary{base(rate), base(nil), base(nil), base(nil)}, cand(nil), 3, true, true, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := Compare(tc.history, tc.cand, RegressOptions{Threshold: 0.2, K: 3, MinHistory: tc.min})
			if v.Regressed != tc.regressed || (v.NotJudged == "") != tc.judged || len(v.Unlike) != tc.unlike {
				t.Errorf("regressed %v not_judged %q unlike %v\n%s", v.Regressed, v.NotJudged, v.Unlike, v.Table())
			}
			if !tc.judged && !strings.Contains(v.Table(), "no verdict") {
				t.Errorf("table does not say there is no verdict:\n%s", v.Table())
			}
		})
	}
	if why := Unlike(base(embedded), cand(rate)); len(why) != 2 {
		t.Errorf("Unlike: %v", why)
	}
}
