package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// niceTicks returns about n round ticks (a step of 1, 2 or 5 x 10^k)
// from the last one at or below lo to the first at or above hi.
func niceTicks(lo, hi float64, n int) []float64 {
	if !(hi > lo) || n < 2 {
		return []float64{lo, hi}
	}
	raw := (hi - lo) / float64(n-1)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	// The round step whose tick count is closest to n (the finer on a tie).
	step, best := 10*mag, math.Inf(1)
	for _, m := range []float64{1, 2, 5, 10} {
		st := m * mag
		count := math.Ceil(hi/st-1e-9) - math.Floor(lo/st+1e-9) + 1
		if d := math.Abs(count - float64(n)); d < best {
			step, best = st, d
		}
	}
	first := math.Floor(lo/step) * step
	var out []float64
	for k := 0; k < 100; k++ {
		t := first + float64(k)*step
		// Snap away float noise (0.30000000000000004 -> 0.3).
		t = math.Round(t/step) * step
		out = append(out, t)
		if t >= hi-step*1e-9 {
			break
		}
	}
	return out
}

// tickLabel writes a round tick value compactly: "800ms", "1.5ms",
// "250us", "2s" for durations, "20k" or "1.5" otherwise.
func tickLabel(unit string, v float64) string {
	if !strings.Contains(unit, "(s)") {
		return siNum(v)
	}
	trim := func(x float64, suffix string) string {
		return strconv.FormatFloat(x, 'f', -1, 64) + suffix
	}
	a := math.Abs(v)
	switch {
	case a == 0:
		return "0"
	case a < 1e-3:
		return trim(math.Round(v*1e6*1000)/1000, "us")
	case a < 1:
		return trim(math.Round(v*1e3*1000)/1000, "ms")
	}
	return trim(math.Round(v*1000)/1000, "s")
}

func axisLabel(unit string, v float64) string {
	if strings.Contains(unit, "(s)") {
		return fmtDur(v)
	}
	return siNum(v)
}

func siNum(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e6:
		return fmt.Sprintf("%.3gM", v/1e6)
	case a >= 1e3:
		return fmt.Sprintf("%.3gk", v/1e3)
	}
	return fmt.Sprintf("%.3g", v)
}
