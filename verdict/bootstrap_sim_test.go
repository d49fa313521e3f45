package verdict

import (
	"math"
	"math/rand/v2"
	"testing"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/soakd/soakd/metrics"
)

// ar1Run simulates one run's latency as n one-second interval
// histograms whose scale drifts as an AR(1) process in log space
// (phi 0.7: neighbouring seconds are alike, as on a busy host), each
// interval holding perSec lognormal latencies around 1 ms x slow.
// Two significant digits (1% buckets) keep the test quick under -race,
// where copying the product's 3-digit histograms dominates.
func ar1Run(rng *rand.Rand, n, perSec int, slow float64) []*hdr.Histogram {
	const phi, innov = 0.7, 0.12
	x := rng.NormFloat64() * innov / math.Sqrt(1-phi*phi) // stationary start
	out := make([]*hdr.Histogram, n)
	for i := range out {
		x = phi*x + rng.NormFloat64()*innov
		h := hdr.New(metrics.LowestNs, metrics.HighestNs, 2)
		for k := 0; k < perSec; k++ {
			h.RecordValue(int64(1e6 * slow * math.Exp(x+0.5*rng.NormFloat64())))
		}
		out[i] = h
	}
	return out
}

// The proofs of the decision rule on synthetic autocorrelated data:
// 100 A/A pairs (two runs of the same process) are called "no
// regression" at least 95 times at p50, p99 and p99.9 together, and a
// 2x slowdown is a REGRESSION at p99 in (nearly) every pair.
func TestBootstrapAR1SimulationAAandSlowdown(t *testing.T) {
	rng := rand.New(rand.NewPCG(2026, 25))
	const pairs, n, perSec = 100, 30, 200
	qs := []float64{50, 99, 99.9}
	aaRegress, aaSignificant, slowFound := 0, 0, 0
	var covered [3]int
	for p := 0; p < pairs; p++ {
		o := BootstrapOptions{Seed: uint64(p), Resamples: 1000}
		base := [][]*hdr.Histogram{ar1Run(rng, n, perSec, 1)}
		aa := QuantileRatios(base, [][]*hdr.Histogram{ar1Run(rng, n, perSec, 1)}, qs, o)
		regressed, significant := false, false
		for i, iv := range aa {
			if Decide(iv, DefaultRegressThreshold) == CallRegression {
				regressed = true
			}
			if Significant(iv) {
				significant = true
			} else {
				covered[i]++
			}
		}
		if regressed {
			aaRegress++
		}
		if significant {
			aaSignificant++
		}
		slow := QuantileRatio(base, [][]*hdr.Histogram{ar1Run(rng, n, perSec, 2)}, 99, o)
		if Decide(slow, DefaultRegressThreshold) == CallRegression {
			slowFound++
		}
	}
	t.Logf("A/A: %d/%d called REGRESSION, %d/%d with some interval excluding 1; interval holds 1 at p50 %d, p99 %d, p99.9 %d of %d; 2x: %d/%d found",
		aaRegress, pairs, aaSignificant, pairs, covered[0], covered[1], covered[2], pairs, slowFound, pairs)
	if aaRegress > 5 {
		t.Errorf("A/A: %d of %d pairs called REGRESSION, want at most 5", aaRegress, pairs)
	}
	if slowFound < 98 {
		t.Errorf("2x p99 slowdown found in %d of %d pairs, want at least 98", slowFound, pairs)
	}
}
