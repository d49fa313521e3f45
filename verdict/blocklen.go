package verdict

import "math"

// PolitisWhiteBlockLen is the automatic block length of the circular
// block bootstrap for the mean of series x (Politis & White 2004, with
// the correction of Patton, Politis & White 2009):
//
//	m   the smallest lag after which K = max(5, sqrt(log10 n)) sample
//	    autocorrelations in a row are below 2 sqrt(log10(n)/n);
//	    M = 2m (at most n-1)
//	λ   the flat-top window: 1 on [0, 1/2], 2(1-|t|) on [1/2, 1]
//	G   = Σ_{|k|<=M} λ(k/M) |k| R(k)
//	g   = Σ_{|k|<=M} λ(k/M) R(k)           (R: autocovariance)
//	b   = (2 G² / D)^(1/3) n^(1/3),  D = (4/3) g²
//
// rounded, and kept within [1, min(3 sqrt n, n/3)]. A series without
// correlation gets 1. It is what the bootstrap uses when
// BootstrapOptions.BlockLen is 0, fed with the per-interval log mean
// latency (or the rate) of each repeat; AutoBlockLen (round(n^(1/3)))
// stands in where a series is too short (under 8 intervals) or flat.
func PolitisWhiteBlockLen(x []float64) int {
	n := len(x)
	if n < 8 {
		return AutoBlockLen(n)
	}
	var mean float64
	for _, v := range x {
		mean += v
	}
	mean /= float64(n)
	acov := func(k int) float64 {
		var s float64
		for i := 0; i+k < n; i++ {
			s += (x[i] - mean) * (x[i+k] - mean)
		}
		return s / float64(n)
	}
	r0 := acov(0)
	if !(r0 > 0) {
		return AutoBlockLen(n)
	}
	kn := max(5, int(math.Ceil(math.Sqrt(math.Log10(float64(n))))))
	mmax := int(math.Ceil(math.Sqrt(float64(n)))) + kn
	mmax = min(mmax, n-1)
	crit := 2 * math.Sqrt(math.Log10(float64(n))/float64(n))
	rho := make([]float64, mmax+1)
	for k := 1; k <= mmax; k++ {
		rho[k] = acov(k) / r0
	}
	m := -1
	for start := 1; start+kn-1 <= mmax; start++ {
		small := true
		for k := start; k < start+kn; k++ {
			if math.Abs(rho[k]) >= crit {
				small = false
				break
			}
		}
		if small {
			m = start - 1
			break
		}
	}
	if m < 0 { // never settles: take the last significant lag
		m = 0
		for k := 1; k <= mmax; k++ {
			if math.Abs(rho[k]) >= crit {
				m = k
			}
		}
	}
	bigM := min(2*m, n-1)
	if bigM == 0 {
		return 1
	}
	flat := func(t float64) float64 {
		t = math.Abs(t)
		switch {
		case t <= 0.5:
			return 1
		case t <= 1:
			return 2 * (1 - t)
		}
		return 0
	}
	g, bigG := r0, 0.0
	for k := 1; k <= bigM; k++ {
		l := flat(float64(k) / float64(bigM))
		rk := acov(k)
		g += 2 * l * rk
		bigG += 2 * l * float64(k) * rk
	}
	d := 4.0 / 3.0 * g * g
	if !(d > 0) {
		return AutoBlockLen(n)
	}
	b := math.Cbrt(2*bigG*bigG/d) * math.Cbrt(float64(n))
	bmax := math.Ceil(math.Min(3*math.Sqrt(float64(n)), float64(n)/3))
	return int(math.Max(1, math.Min(math.Round(b), bmax)))
}

// commonBlockLen is the block length for a comparison whose repeats are
// series: the rounded mean of their Politis–White lengths, so that both
// sides are resampled alike.
func commonBlockLen(series [][]float64) int {
	sum, k := 0, 0
	for _, s := range series {
		if len(s) == 0 {
			continue
		}
		sum += PolitisWhiteBlockLen(s)
		k++
	}
	if k == 0 {
		return 1
	}
	return max(1, int(math.Round(float64(sum)/float64(k))))
}
