package rundir

import (
	"fmt"
	"strings"

	"github.com/soakd/soakd/scenarios"
)

// Cmp is how a check's Actual must stand against its Limit. Every check
// stores its own; nothing is inferred from a check's text.
type Cmp string

// Comparison kinds.
const (
	AtMost  Cmp = "<=" // latency, error and dropped ratios
	AtLeast Cmp = ">=" // achieved ratio
	Above   Cmp = ">"  // highest rate held (0 is no rate at all)
)

// Holds reports whether actual meets limit under c. An unknown kind
// never holds.
func (c Cmp) Holds(actual, limit float64) bool {
	switch c {
	case AtMost:
		return actual <= limit
	case AtLeast:
		return actual >= limit
	case Above:
		return actual > limit
	}
	return false
}

// Metric names what a check measures.
type Metric string

// Metrics a check can judge.
const (
	Latency         Metric = "latency" // from intended start, at Check.Percentile
	AchievedRatio   Metric = "achieved_ratio"
	ErrorRatio      Metric = "error_ratio"
	DroppedRatio    Metric = "dropped_ratio"
	HighestRateHeld Metric = "highest_rate_held"
	// Succeeded is a phase's ops that did not fail: a phase with none
	// (every op failed, or none ran) never passes.
	Succeeded Metric = "succeeded"
	// WindowLatency is a latency limit judged over every window of
	// slo.window (Check.Window): Actual is the worst window's figure.
	WindowLatency Metric = "window_latency"
)

// Cmp is the comparison a metric is judged with.
func (m Metric) Cmp() Cmp {
	switch m {
	case Latency, WindowLatency, ErrorRatio, DroppedRatio:
		return AtMost
	case AchievedRatio:
		return AtLeast
	case HighestRateHeld, Succeeded:
		return Above
	}
	return ""
}

// Verdict is the outcome of SLO checks.
type Verdict struct {
	Passed bool    `json:"passed"`
	Checks []Check `json:"checks,omitempty"`
}

// Check is one SLO check.
type Check struct {
	Phase string `json:"phase"`
	Op    string `json:"op,omitempty"`
	// What is the check as shown: "latency p99", "achieved_ratio".
	What   string `json:"what"`
	Metric Metric `json:"metric,omitempty"`
	// Percentile (0..100, 100 = max) of a latency check.
	Percentile float64 `json:"percentile,omitempty"`
	Cmp        Cmp     `json:"cmp,omitempty"`
	Limit      float64 `json:"limit"`
	Actual     float64 `json:"actual"`
	Passed     bool    `json:"passed"`
	// BudgetLeft is the share of the check's error budget the phase left
	// unspent: 1 untouched, 0 spent, below 0 overspent. A latency limit
	// at pNN allows (100-NN)% of the op's ops over it; error_ratio
	// allows its limit. Absent for the other checks and for max.
	BudgetLeft *float64 `json:"budget_left,omitempty"`
	// Window is a window_latency check's windows: how many were judged,
	// how many broke the limit, and where the worst one started.
	Window *WindowStats `json:"window,omitempty"`
}

// WindowStats are the windows of one window_latency check.
type WindowStats struct {
	// Seconds is each window's length (slo.window).
	Seconds float64 `json:"seconds"`
	// Judged counts the windows that held ops of the check's op;
	// Breached those whose figure broke the limit.
	Judged   int `json:"judged"`
	Breached int `json:"breached"`
	// WorstAtSeconds is where the worst window starts, after the
	// phase's start.
	WorstAtSeconds float64 `json:"worst_at_seconds"`
	// LongestBreach is the longest run of consecutive breached windows.
	LongestBreach int `json:"longest_breach,omitempty"`
}

// Judge sets Actual and Passed from actual by the check's own Cmp.
func (c *Check) Judge(actual float64) {
	c.Actual = actual
	c.Passed = c.Cmp.Holds(actual, c.Limit)
}

// String is the check as one line: "read latency p99 1.20ms > 1.00ms".
func (c Check) String() string {
	rel := map[Cmp]string{AtMost: ">", AtLeast: "<", Above: "<="}[c.Cmp]
	if c.Passed {
		rel = string(c.Cmp)
	}
	s := fmt.Sprintf("%s %s %s %s", c.What, FormatValue(c.Metric, c.Actual), rel, FormatValue(c.Metric, c.Limit))
	if c.Op != "" {
		s = c.Op + " " + s
	}
	if w := c.Window; w != nil {
		s += fmt.Sprintf(" (worst of %d windows at +%s; %d over)", w.Judged, FormatSeconds(w.WorstAtSeconds), w.Breached)
	}
	return s
}

// FormatValue renders a check's value: durations for latency, else a
// plain number.
func FormatValue(m Metric, v float64) string {
	if m == Latency || m == WindowLatency {
		return FormatSeconds(v)
	}
	if m == Succeeded {
		return fmt.Sprintf("%.0f", v) // a count of ops
	}
	return fmt.Sprintf("%.4g", v)
}

// FormatSeconds renders seconds as 0, 850us, 1.20ms or 2.00s.
func FormatSeconds(sec float64) string {
	switch {
	case sec == 0:
		return "0"
	case sec < 1e-3:
		return fmt.Sprintf("%.0fus", sec*1e6)
	case sec < 1:
		return fmt.Sprintf("%.2fms", sec*1e3)
	}
	return fmt.Sprintf("%.2fs", sec)
}

// Upgrade fills Metric, Percentile and Cmp of checks read from a
// summary.json written before checks carried them. It is the one place
// a check's text is read, and only for those old files.
func Upgrade(v *Verdict) {
	if v == nil {
		return
	}
	for i := range v.Checks {
		c := &v.Checks[i]
		if c.Metric != "" && c.Cmp != "" {
			continue
		}
		if k, ok := strings.CutPrefix(c.What, "latency "); ok {
			if p, err := scenarios.ParsePercentile(k); err == nil {
				c.Metric, c.Percentile = Latency, p.Value
			}
		} else {
			c.Metric = Metric(c.What)
		}
		c.Cmp = c.Metric.Cmp()
	}
}
