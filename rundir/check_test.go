package rundir

import (
	"testing"
)

// Every metric's comparison, at, just past and on either side of its
// limit: latency and ratios hold up to the limit, the achieved ratio
// from it, the highest rate held and succeeded ops only above it; an
// unknown metric or comparison never holds.
func TestChecksCompareByTheirMetric(t *testing.T) {
	for _, c := range []struct {
		m             Metric
		limit         float64
		below, at, up bool
	}{
		{Latency, 0.01, true, true, false},
		{WindowLatency, 0.01, true, true, false},
		{ErrorRatio, 0.001, true, true, false},
		{DroppedRatio, 0, true, true, false},
		{AchievedRatio, 0.99, false, true, true},
		{HighestRateHeld, 0, false, false, true},
		{Succeeded, 0, false, false, true},
		{"bogus", 1, false, false, false},
	} {
		cmp := c.m.Cmp()
		for _, v := range []struct {
			actual float64
			want   bool
		}{{c.limit - 1e-9, c.below}, {c.limit, c.at}, {c.limit + 1e-9, c.up}} {
			if got := cmp.Holds(v.actual, c.limit); got != v.want {
				t.Errorf("%s (%q): %g against %g holds %v, want %v", c.m, cmp, v.actual, c.limit, got, v.want)
			}
		}
	}
}

// A check reads as one line: the op, what, the figure in its unit, the
// relation it broke (or kept) and the limit; a window check adds its
// windows.
func TestCheckLines(t *testing.T) {
	judge := func(c Check, actual float64) Check {
		c.Cmp = c.Metric.Cmp()
		c.Judge(actual)
		return c
	}
	for _, c := range []struct {
		c    Check
		want string
	}{
		{judge(Check{Op: "read", What: "latency p99", Metric: Latency, Limit: 0.001}, 0.0012), "read latency p99 1.20ms > 1.00ms"},
		{judge(Check{Op: "read", What: "latency p99", Metric: Latency, Limit: 0.001}, 0.00085), "read latency p99 850us <= 1.00ms"},
		{judge(Check{What: "achieved_ratio", Metric: AchievedRatio, Limit: 0.99}, 0.5), "achieved_ratio 0.5 < 0.99"},
		{judge(Check{What: "highest_rate_held", Metric: HighestRateHeld}, 0), "highest_rate_held 0 <= 0"},
		{judge(Check{What: "succeeded ops", Metric: Succeeded}, 1500), "succeeded ops 1500 > 0"},
		{judge(Check{Op: "get", What: "latency p99 per 5m0s window", Metric: WindowLatency, Limit: 0.005,
			Window: &WindowStats{Seconds: 300, Judged: 144, Breached: 3, WorstAtSeconds: 12300}}, 0.0071),
			"get latency p99 per 5m0s window 7.10ms > 5.00ms (worst of 144 windows at +12300.00s; 3 over)"},
	} {
		if got := c.c.String(); got != c.want {
			t.Errorf("line %q, want %q", got, c.want)
		}
	}
	for sec, want := range map[float64]string{0: "0", 0.00085: "850us", 0.0012: "1.20ms", 2: "2.00s"} {
		if got := FormatSeconds(sec); got != want {
			t.Errorf("FormatSeconds(%g) = %q, want %q", sec, got, want)
		}
	}
}
