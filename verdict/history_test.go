package verdict

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/soakd/soakd/rundir"
)

// The prediction interval by hand: p99s of 1, 1.1, 0.9, 1.05, 0.95 ms
// have log mean -0.002510, standard deviation 0.079317; with
// t(4, 0.995) = 4.604 the 99% interval for a new run is
// exp(m ± 4.604 · 0.079317 · sqrt(1+1/5)) = [0.6686, 1.4881] ms.
func TestHistoryPredictionIntervalByHand(t *testing.T) {
	var hist []*rundir.Summary
	for _, f := range []float64{1, 1.1, 0.9, 1.05, 0.95} {
		hist = append(hist, synth(0.0002*f, 0.001*f, 0.002*f))
	}
	for _, tc := range []struct {
		p99       float64
		regressed bool
	}{{0.00148, false}, {0.00150, true}} {
		v := Compare(hist, synth(0.0002, tc.p99, 0.002), RegressOptions{MinHistory: 5})
		if v.Method != MethodHistory || v.History != 5 || v.Level != 0.99 {
			t.Fatalf("method %q history %d level %v", v.Method, v.History, v.Level)
		}
		c := v.Ops[0].Checks[1]
		if c.Quantile != "p99" || c.Prediction == nil {
			t.Fatalf("check %+v", c)
		}
		near := func(got, want float64) bool { return math.Abs(got-want) < 1e-4*want }
		if !near(c.Baseline, 0.000997492) || !near(c.Noise, 0.0793171) || !near(c.Prediction.Lo, 0.000668613) || !near(c.Prediction.Hi, 0.00148814) {
			t.Errorf("baseline %v noise %v interval [%v, %v], want 0.000997492, 0.0793171, [0.000668613, 0.00148814]", c.Baseline, c.Noise, c.Prediction.Lo, c.Prediction.Hi)
		}
		if c.Regressed != tc.regressed || v.Regressed != tc.regressed {
			t.Errorf("p99 %v: regressed %v, want %v\n%s", tc.p99, c.Regressed, tc.regressed, v.Table())
		}
	}
}

// History as the noise model, simulated: runs whose percentiles scatter
// lognormally (10% or 30% spread). A candidate like its history is a
// regression at most 5 times in 100 (all checks of a run together); a
// candidate twice as slow is found against the 10% history every time,
// and against the 30% history only when its spread allows — the bar
// moves with the history, not a fixed 20%.
func TestHistoryNoiseModelSimulation(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 25))
	run := func(sd, slow float64) *rundir.Summary {
		f := slow * math.Exp(rng.NormFloat64()*sd)
		return synth(0.001*f, 0.005*f*math.Exp(rng.NormFloat64()*sd/2), 0.010*f)
	}
	for _, sd := range []float64{0.1, 0.3} {
		aa, found := 0, 0
		for trial := 0; trial < 100; trial++ {
			var hist []*rundir.Summary
			for i := 0; i < 10; i++ {
				hist = append(hist, run(sd, 1))
			}
			if Compare(hist, run(sd, 1), RegressOptions{MinHistory: DefaultMinHistory}).Regressed {
				aa++
			}
			if Compare(hist, run(sd, 2), RegressOptions{MinHistory: DefaultMinHistory}).Regressed {
				found++
			}
		}
		t.Logf("history spread %.0f%%: like runs flagged %d/100, 2x found %d/100", sd*100, aa, found)
		if aa > 5 {
			t.Errorf("spread %.0f%%: %d of 100 like runs called a regression, want at most 5", sd*100, aa)
		}
		if sd == 0.1 && found < 98 {
			t.Errorf("spread 10%%: 2x found %d of 100 times, want at least 98", found)
		}
		if sd == 0.3 && found > 90 {
			t.Errorf("spread 30%%: 2x found %d of 100 times; a history that noisy cannot vouch for 2x that often", found)
		}
	}
}

// Too little history: no verdict, and it says how many runs it had.
func TestHistoryTooFewRunsSaysHowMany(t *testing.T) {
	hist := []*rundir.Summary{synth(0.001, 0.005, 0.01), synth(0.001, 0.005, 0.01), synth(0.001, 0.005, 0.01)}
	v := Compare(hist, synth(0.002, 0.01, 0.02), RegressOptions{MinHistory: DefaultMinHistory})
	if v.NotJudged == "" || v.Regressed || !strings.Contains(v.Table(), "3 comparable run(s) in history, 5 needed") {
		t.Errorf("judged on 3 runs:\n%s", v.Table())
	}
}
