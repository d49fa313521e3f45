package daemon

import (
	"math/rand/v2"
	"testing"

	"github.com/soakd/soakd/engine"
	"github.com/soakd/soakd/metrics"
)

func synth(p50, p99, p999 float64) *engine.Summary {
	return &engine.Summary{Scenario: "s", Phases: []engine.PhaseResult{{Name: "steady", Result: engine.Result{Ops: map[string]engine.OpResult{
		"get": {Count: 1000, Latency: metrics.Summary{Count: 1000, P50: p50, P99: p99, P999: p999}},
		"set": {Count: 1000, Latency: metrics.Summary{Count: 1000, P50: p50, P99: p99, P999: p999}},
	}}}}}
}

// noisyHistory: 10 runs whose percentiles vary by about +-10% (the noise
// measured on these machines).
func noisyHistory(rng *rand.Rand) []*engine.Summary {
	var h []*engine.Summary
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
	var hist []*engine.Summary
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
	if v := Compare([]*engine.Summary{base}, synth(0.00115, 0.0055, 0.011), RegressOptions{Threshold: 0.2, K: 3}); v.Regressed {
		t.Errorf("15%% slower flagged with a 20%% threshold:\n%s", v.Table())
	}
	v := Compare([]*engine.Summary{base}, synth(0.00125, 0.005, 0.010), RegressOptions{Threshold: 0.2, K: 3})
	if !v.Regressed {
		t.Errorf("25%% slower p50 not flagged against one baseline:\n%s", v.Table())
	}
	// Faster is never a regression.
	if v := Compare([]*engine.Summary{base}, synth(0.0001, 0.0005, 0.001), RegressOptions{Threshold: 0.2}); v.Regressed {
		t.Error("an improvement was flagged")
	}
}
