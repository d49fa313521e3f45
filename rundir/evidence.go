package rundir

// Cliff reasons (CliffEvidence.Reason, Cliff.Reason).
const (
	CliffOOM        = "oom"        // writes refused for memory, or the cgroup OOM-killed
	CliffRate       = "rate"       // an open-loop stage did not hold its rate
	CliffErrors     = "errors"     // the error ratio jumped
	CliffMisses     = "misses"     // an op's miss ratio jumped
	CliffThroughput = "throughput" // closed-loop successful ops/s fell well below the earlier stages
	CliffP99        = "p99"        // an op's p99 jumped
)

// CliffEvidence is one rule that fired at a growth stage, with the
// values it compared: Value is the stage's figure (a p99 in seconds, a
// ratio, successful ops/s), Baseline the earlier stages' median, Spread
// their robust spread (1.4826 x the median absolute deviation; rules
// that use it), Threshold the figure Value had to cross, Earlier the
// earlier stages' figures judged, and Next the following stage's figure
// that confirmed it (absent when the rule needs none or the stage was
// the last: Unconfirmed).
type CliffEvidence struct {
	Reason      string    `json:"reason"`
	Op          string    `json:"op,omitempty"`
	Value       float64   `json:"value"`
	Baseline    float64   `json:"baseline"`
	Spread      float64   `json:"spread,omitempty"`
	Threshold   float64   `json:"threshold"`
	Earlier     []float64 `json:"earlier,omitempty"`
	Next        *float64  `json:"next,omitempty"`
	Unconfirmed bool      `json:"unconfirmed,omitempty"`
}

// CapacityConfirmation is a capacity search's final answer probed
// again. Held is the highest rate that passed every probe of it (the
// search's and the re-probes), FirstFailed the lowest rate above it that
// failed (nil when none did: the search reached max). Confirmed: Held
// passed at least twice and FirstFailed, probed again, failed again.
type CapacityConfirmation struct {
	Confirmed   bool             `json:"confirmed"`
	Held        *CapacityRateRun `json:"held,omitempty"`
	FirstFailed *CapacityRateRun `json:"first_failed,omitempty"`
}

// CapacityRateRun is every probe of one rate: how many passed, and the
// range of the achieved and successful rates and of each op's p99 they
// saw (the spread of the answer).
type CapacityRateRun struct {
	Rate        float64            `json:"rate"`
	Probes      int                `json:"probes"`
	Passed      int                `json:"passed"`
	AchievedMin float64            `json:"achieved_min"`
	AchievedMax float64            `json:"achieved_max"`
	GoodputMin  float64            `json:"goodput_min"`
	GoodputMax  float64            `json:"goodput_max"`
	P99Min      map[string]float64 `json:"p99_min,omitempty"`
	P99Max      map[string]float64 `json:"p99_max,omitempty"`
}

// Goodput is r's successful ops/s: GoodputRate, or for a summary
// written before goodput_rate existed the achieved rate scaled by the
// share of completed ops that did not fail.
func (r *Result) Goodput() float64 {
	if r.GoodputRate > 0 || r.AchievedRate == 0 || r.Completed == 0 {
		return r.GoodputRate
	}
	ok := r.Completed - r.Errors
	if ok <= 0 {
		return 0
	}
	return r.AchievedRate * float64(ok) / float64(r.Completed)
}
