package rundir

import "time"

// Change-point metrics: latency from intended start at three
// percentiles, completed ops per second, and the share of completed ops
// that failed (counts.csv).
const (
	MetricP50        = "p50"
	MetricP99        = "p99"
	MetricP999       = "p99.9"
	MetricRate       = "rate"
	MetricErrorRatio = "error_ratio"
)

// ChangePoint is one change in a phase's per-interval series of an op
// (summary.json change_points), found by verdict.Detect.
type ChangePoint struct {
	Op     string `json:"op"`
	Metric string `json:"metric"`
	// OffsetSeconds is from the phase start to the first bucket after
	// the change; At is that bucket's wall time.
	OffsetSeconds float64   `json:"offset_seconds"`
	At            time.Time `json:"at"`
	// Before and After are the metric's medians between the neighbouring
	// change points (seconds for latency, ops/s for rate, a fraction
	// of completed ops for error_ratio).
	Before float64 `json:"before"`
	After  float64 `json:"after"`
	PValue float64 `json:"p_value"`
	// BeforeIntervals and AfterIntervals are how many intervals (buckets)
	// Before and After are the medians of: the evidence each side.
	BeforeIntervals int `json:"before_intervals"`
	AfterIntervals  int `json:"after_intervals"`
	// Kind is ChangeLevel (the level stepped) or ChangeSpread (the
	// spread moved more than the level: a change of variance).
	Kind string `json:"kind"`
	// BeforeSpread and AfterSpread are the same points' median absolute
	// deviations from their medians, in the metric's unit.
	BeforeSpread float64 `json:"before_spread"`
	AfterSpread  float64 `json:"after_spread"`
	// Explain is the change's cause: the label, whether the server
	// confirms it, what overlapped it (verdict.ExplainChanges).
	Explain *Explanation `json:"explain,omitempty"`
}

// Change point kinds.
const (
	ChangeLevel  = "level"
	ChangeSpread = "spread"
)

// Up says whether the change went up: the spread for a spread change,
// else the level.
func (c ChangePoint) Up() bool {
	if c.Kind == ChangeSpread {
		return c.AfterSpread > c.BeforeSpread
	}
	return c.After > c.Before
}
