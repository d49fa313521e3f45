package verdict

import "math"

// Between-repeat intervals.
//
// A block bootstrap over the seconds of a run sees only the noise inside
// that run. Runs of the same thing also differ from each other (a
// server's warm state, the host's neighbours), and with a handful of
// repeats a percentile bootstrap over them is too narrow (it treats the
// few repeats drawn as the whole population). So when both sides have
// at least two repeats, each repeat is also summarised by one figure
// (its percentile or mean rate) and the log ratio gets a Student-t
// interval over the repeats: paired when the sides have as many repeats
// (interleaved rounds: round i of A ran next to round i of B, so their
// difference cancels the host's drift), Welch's otherwise. The interval
// reported is the wider of the two (the union), so it is never narrower
// than either source of noise allows.

// roundsInterval is the t interval of cand/base from per-repeat figures
// (all > 0); ok is false when either side has fewer than two.
func roundsInterval(base, cand []float64, level float64) (Interval, bool) {
	if len(base) < 2 || len(cand) < 2 {
		return Interval{}, false
	}
	for _, x := range append(append([]float64{}, base...), cand...) {
		if !(x > 0) {
			return Interval{}, false
		}
	}
	p := (1 + level) / 2
	if len(base) == len(cand) {
		d := make([]float64, len(base))
		for i := range base {
			d[i] = math.Log(cand[i] / base[i])
		}
		m, v := meanVar(d)
		n := float64(len(d))
		h := studentTQuantile(p, len(d)-1) * math.Sqrt(v/n)
		return Interval{Estimate: math.Exp(m), Lo: math.Exp(m - h), Hi: math.Exp(m + h), Level: level}, true
	}
	lb, lc := logs(base), logs(cand)
	mb, vb := meanVar(lb)
	mc, vc := meanVar(lc)
	nb, nc := float64(len(lb)), float64(len(lc))
	se2 := vb/nb + vc/nc
	df := 1
	if se2 > 0 {
		// Welch–Satterthwaite, rounded down (conservative).
		den := (vb/nb)*(vb/nb)/(nb-1) + (vc/nc)*(vc/nc)/(nc-1)
		if den > 0 {
			df = max(1, int(se2*se2/den))
		}
	}
	m := mc - mb
	h := studentTQuantile(p, df) * math.Sqrt(se2)
	return Interval{Estimate: math.Exp(m), Lo: math.Exp(m - h), Hi: math.Exp(m + h), Level: level}, true
}

// widen returns iv with its bounds stretched to hold by's (the estimate
// stays iv's).
func widen(iv, by Interval) Interval {
	if !iv.Valid() {
		return iv
	}
	iv.Lo = math.Min(iv.Lo, by.Lo)
	iv.Hi = math.Max(iv.Hi, by.Hi)
	return iv
}

func logs(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = math.Log(x)
	}
	return out
}

// meanVar is the mean and the sample variance (n-1) of xs (len >= 2).
func meanVar(xs []float64) (float64, float64) {
	var m float64
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	var v float64
	for _, x := range xs {
		v += (x - m) * (x - m)
	}
	return m, v / float64(len(xs)-1)
}

// repeatMeans is each repeat's mean (0 for an empty one).
func repeatMeans(reps [][]float64) []float64 {
	out := make([]float64, len(reps))
	for r, rep := range reps {
		var s float64
		for _, x := range rep {
			s += x
		}
		if len(rep) > 0 {
			out[r] = s / float64(len(rep))
		}
	}
	return out
}
