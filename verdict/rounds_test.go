package verdict

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestRoundsIntervalHandComputed checks the paired and Welch t
// intervals against values worked out by hand.
func TestRoundsIntervalHandComputed(t *testing.T) {
	// Paired: log ratios 0, ln 2 (mean ln2/2, sd ln2/sqrt2, n 2):
	// half-width t(0.975, 1) x sd/sqrt2 = 12.7062 x ln2/2.
	iv, ok := roundsInterval([]float64{1, 1}, []float64{1, 2}, 0.95)
	if !ok {
		t.Fatal("two repeats a side: want an interval")
	}
	m, h := math.Ln2/2, 12.706204736*math.Ln2/2
	for _, c := range []struct{ name, got, want float64 }{
		{0, iv.Estimate, math.Exp(m)}, {1, iv.Lo, math.Exp(m - h)}, {2, iv.Hi, math.Exp(m + h)},
	} {
		if math.Abs(c.got-c.want) > 1e-6*c.want {
			t.Errorf("paired bound %v: got %v want %v", c.name, c.got, c.want)
		}
	}
	// Welch, equal variances and sizes 2 and 3: logs {0, ln2} and
	// {ln2, ln2, 2ln2}; var 0.5ln2² and ln2²/3; se² = ln2²(0.25+1/9);
	// df = floor(se⁴ / (0.0625ln2⁴ + ln2⁴/162)) = 1.
	iv, ok = roundsInterval([]float64{1, 2}, []float64{2, 2, 4}, 0.95)
	if !ok {
		t.Fatal("want a Welch interval")
	}
	se := math.Ln2 * math.Sqrt(0.25+1.0/9)
	m = (math.Ln2*4/3 - math.Ln2/2)
	if got, want := iv.Hi, math.Exp(m+12.706204736*se); math.Abs(got-want) > 1e-6*want {
		t.Errorf("welch hi: got %v want %v", got, want)
	}
	if _, ok := roundsInterval([]float64{1}, []float64{1, 2}, 0.95); ok {
		t.Error("one repeat on a side: want no t interval")
	}
}

// TestFewRoundsCoverage: runs differ from each other (a per-round level
// drawn afresh, sd 15%), on top of autocorrelated seconds. With 5
// interleaved rounds a side, a bootstrap over rounds and seconds alone
// covers too little; with the between-round t interval the 95% interval
// must exclude 1 in at most ~7% of 300 A/A pairs, and still find a 1.5x
// slowdown in most.
func TestFewRoundsCoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	side := func(slow float64) [][]float64 {
		reps := make([][]float64, 5)
		for r := range reps {
			level := slow * math.Exp(0.15*rng.NormFloat64())
			x := 0.0
			for i := 0; i < 12; i++ {
				x = 0.6*x + 0.05*rng.NormFloat64()
				reps[r] = append(reps[r], 1000*level*math.Exp(x))
			}
		}
		return reps
	}
	const pairs = 300
	excl, found := 0, 0
	for i := 0; i < pairs; i++ {
		if RateRatio(side(1), side(1), BootstrapOptions{Resamples: 300, Seed: uint64(i)}).Excludes(1) {
			excl++
		}
		if RateRatio(side(1), side(1.5), BootstrapOptions{Resamples: 300, Seed: uint64(i)}).Lo > 1 {
			found++
		}
	}
	if excl > pairs*7/100 {
		t.Errorf("A/A: %d of %d intervals exclude 1 (want <= 7%%)", excl, pairs)
	}
	if found < pairs*8/10 {
		t.Errorf("1.5x slowdown found in %d of %d (want >= 80%%)", found, pairs)
	}
	t.Logf("A/A excluded 1: %d/%d; 1.5x found: %d/%d", excl, pairs, found, pairs)
}
