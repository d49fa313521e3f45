package verdict

import (
	"math"
	"math/rand/v2"
	"testing"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/soakd/soakd/metrics"
)

func TestAutoBlockLen(t *testing.T) {
	for _, tc := range []struct{ n, want int }{{0, 1}, {1, 1}, {2, 1}, {7, 2}, {30, 3}, {60, 4}, {125, 5}, {1000, 10}} {
		if got := AutoBlockLen(tc.n); got != tc.want {
			t.Errorf("AutoBlockLen(%d) = %d, want %d", tc.n, got, tc.want)
		}
	}
}

// The point estimate is the percentile of all intervals merged, exactly
// as the HDR histogram of the merged values reports it.
func TestQuantileRatioEstimateIsMergedQuantile(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	mk := func(scale float64, reps, n int) ([][]*hdr.Histogram, *hdr.Histogram) {
		all := metrics.NewHist()
		var out [][]*hdr.Histogram
		for r := 0; r < reps; r++ {
			var ivs []*hdr.Histogram
			for i := 0; i < n; i++ {
				h := metrics.NewHist()
				for k := 0; k < 50+rng.IntN(100); k++ {
					v := int64(scale * (1e5 + rng.ExpFloat64()*1e6))
					h.RecordValue(v)
					all.RecordValue(v)
				}
				ivs = append(ivs, h)
			}
			out = append(out, ivs)
		}
		return out, all
	}
	base, ball := mk(1, 2, 10)
	cand, call := mk(1.5, 3, 7)
	qs := []float64{99.9, 50, 90, 99}
	got := QuantileRatios(base, cand, qs, BootstrapOptions{Resamples: 50})
	for i, q := range qs {
		want := float64(call.ValueAtQuantile(q)) / float64(ball.ValueAtQuantile(q))
		if got[i].Estimate != want {
			t.Errorf("p%g: estimate %v, want %v (merged HDR)", q, got[i].Estimate, want)
		}
		if !(got[i].Lo <= got[i].Estimate && got[i].Estimate <= got[i].Hi) || got[i].Level != 0.95 {
			t.Errorf("p%g: interval %+v does not hold its estimate", q, got[i])
		}
	}
	if one := QuantileRatio(base, cand, 99, BootstrapOptions{Resamples: 50}); one.Estimate != got[3].Estimate {
		t.Errorf("QuantileRatio %v != QuantileRatios %v", one, got[3])
	}
}

// Same seed, same interval; the zero Interval without data.
func TestBootstrapDeterministicAndEmpty(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	series := func() [][]float64 {
		xs := make([]float64, 40)
		for i := range xs {
			xs[i] = 1000 + rng.NormFloat64()*50
		}
		return [][]float64{xs}
	}
	a, b := series(), series()
	o := BootstrapOptions{Seed: 42}
	if x, y := RateRatio(a, b, o), RateRatio(a, b, o); x != y {
		t.Errorf("same seed, different intervals: %+v %+v", x, y)
	}
	if x, y := RateRatio(a, b, o), RateRatio(a, b, BootstrapOptions{Seed: 43}); x == y {
		t.Errorf("another seed, the same interval %+v", x)
	}
	if iv := RateRatio(nil, b, o); iv.Valid() {
		t.Errorf("no base: %+v, want invalid", iv)
	}
	if iv := QuantileRatio([][]*hdr.Histogram{{metrics.NewHist()}}, [][]*hdr.Histogram{{metrics.NewHist()}}, 99, o); iv.Valid() {
		t.Errorf("empty histograms: %+v, want invalid", iv)
	}
}

// On iid data the block bootstrap's interval for a ratio of means
// matches the normal-theory (delta method) interval:
// se(log(ȳ/x̄))² = s_x²/(n x̄²) + s_y²/(n ȳ²), CI = est·exp(±1.96 se).
func TestRateRatioMatchesNormalTheoryOnIID(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const n = 400
	gen := func(mu, sd float64) []float64 {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = mu + rng.NormFloat64()*sd
		}
		return xs
	}
	x, y := gen(1000, 100), gen(1100, 100)
	mv := func(xs []float64) (m, v float64) {
		for _, a := range xs {
			m += a
		}
		m /= float64(len(xs))
		for _, a := range xs {
			v += (a - m) * (a - m)
		}
		return m, v / float64(len(xs)-1)
	}
	mx, vx := mv(x)
	my, vy := mv(y)
	est := my / mx
	se := math.Sqrt(vx/(n*mx*mx) + vy/(n*my*my))
	wantLo, wantHi := est*math.Exp(-1.959964*se), est*math.Exp(1.959964*se)
	iv := RateRatio([][]float64{x}, [][]float64{y}, BootstrapOptions{Seed: 3, Resamples: 4000})
	if math.Abs(iv.Estimate-est) > 1e-12 {
		t.Errorf("estimate %v, want %v", iv.Estimate, est)
	}
	half := (wantHi - wantLo) / 2
	if math.Abs(iv.Lo-wantLo) > 0.15*half || math.Abs(iv.Hi-wantHi) > 0.15*half {
		t.Errorf("bootstrap [%.5f, %.5f], normal theory [%.5f, %.5f] (half-width %.5f)", iv.Lo, iv.Hi, wantLo, wantHi, half)
	}
}

// A 60 s phase at 5000 ops/s, 2000 resamples, three percentiles.
func BenchmarkQuantileRatios60s(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	mk := func() [][]*hdr.Histogram {
		var ivs []*hdr.Histogram
		for i := 0; i < 60; i++ {
			h := metrics.NewHist()
			for k := 0; k < 5000; k++ {
				h.RecordValue(int64(5e4 + rng.ExpFloat64()*3e5*(1+rng.ExpFloat64()*rng.ExpFloat64())))
			}
			ivs = append(ivs, h)
		}
		return [][]*hdr.Histogram{ivs}
	}
	base, cand := mk(), mk()
	b.ResetTimer()
	for range b.N {
		QuantileRatios(base, cand, []float64{50, 99, 99.9}, BootstrapOptions{})
	}
}

// The cumulative-table path and the sparse-sum path give the same
// intervals.
func TestQuantileRatiosBothPathsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	mk := func(scale float64) [][]*hdr.Histogram {
		var out [][]*hdr.Histogram
		for r := 0; r < 2; r++ {
			var ivs []*hdr.Histogram
			for i := 0; i < 12; i++ {
				h := metrics.NewHist()
				for k := 0; k < 80; k++ {
					h.RecordValue(int64(scale * (1e5 + rng.ExpFloat64()*1e6)))
				}
				ivs = append(ivs, h)
			}
			out = append(out, ivs)
		}
		return out
	}
	base, cand := mk(1), mk(1.2)
	qs := []float64{50, 99, 99.9}
	o := BootstrapOptions{Seed: 5, Resamples: 300}
	a := quantileRatios(base, cand, qs, o, cumulativeCap)
	b := quantileRatios(base, cand, qs, o, 0)
	for i := range qs {
		if a[i] != b[i] {
			t.Errorf("p%g: cumulative %+v, sparse %+v", qs[i], a[i], b[i])
		}
	}
}

// Politis–White: an uncorrelated series gets short blocks, a strongly
// autocorrelated one long blocks; short series fall back to n^(1/3).
func TestPolitisWhiteBlockLen(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	ar := func(phi float64, n int) []float64 {
		xs := make([]float64, n)
		x := 0.0
		for i := range xs {
			x = phi*x + rng.NormFloat64()
			xs[i] = x
		}
		return xs
	}
	if b := PolitisWhiteBlockLen(ar(0, 1000)); b > 2 {
		t.Errorf("iid series of 1000: block %d, want 1 or 2", b)
	}
	b3, b9 := PolitisWhiteBlockLen(ar(0.3, 1000)), PolitisWhiteBlockLen(ar(0.9, 1000))
	if !(b9 > b3 && b9 >= 10) {
		t.Errorf("AR(1) of 1000: phi 0.3 block %d, phi 0.9 block %d; want the latter longer and >= 10", b3, b9)
	}
	if b := PolitisWhiteBlockLen([]float64{1, 2, 3, 4, 5}); b != AutoBlockLen(5) {
		t.Errorf("5 intervals: %d, want n^(1/3) = %d", b, AutoBlockLen(5))
	}
	if b := PolitisWhiteBlockLen(make([]float64, 50)); b != AutoBlockLen(50) {
		t.Errorf("flat series: %d, want n^(1/3) = %d", b, AutoBlockLen(50))
	}
	// bounded by n/3 and 3 sqrt(n)
	if b := PolitisWhiteBlockLen(ar(0.99, 60)); b > 20 {
		t.Errorf("phi 0.99, 60 intervals: block %d above n/3", b)
	}
}

// Against the reference formula: for AR(1) with coefficient phi the
// optimal circular-block length is (3/2)^(1/3) (2phi/(1-phi²))^(2/3)
// n^(1/3) (Politis & White 2004, eq. for b_CB with G/g of AR(1)).
func TestPolitisWhiteMatchesAR1Formula(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 1))
	const n = 5000
	for _, phi := range []float64{0.5, 0.8} {
		var sum float64
		const reps = 10
		for r := 0; r < reps; r++ {
			xs := make([]float64, n)
			x := 0.0
			for i := range xs {
				x = phi*x + rng.NormFloat64()
				xs[i] = x
			}
			sum += float64(PolitisWhiteBlockLen(xs))
		}
		got := sum / reps
		want := math.Cbrt(1.5) * math.Pow(2*phi/(1-phi*phi), 2.0/3) * math.Cbrt(n)
		t.Logf("phi %.1f: mean block %.1f, formula %.1f", phi, got, want)
		if math.Abs(got-want) > 0.25*want {
			t.Errorf("phi %.1f: mean block %.1f, formula %.1f", phi, got, want)
		}
	}
}
