package rundir

// Bound values: what limited a phase when it was not the store
// (verdict.SelfAcc decides; docs/verdicts.md states the rule).
const (
	BoundGenerator = "generator" // soakd itself: its CPU or its threads waiting for one
	BoundHost      = "host"      // the host: CPU steal or a load above its cores
)

// SelfHealth is soakd's own health over a phase or a stage, from one
// sample an interval (internal/selfhealth): its CPU, the time its
// threads waited on a run queue, the host's load and steal; and whether
// that made the phase generator- or host-bound, in which case no verdict
// on the store is given. Absent in summaries written before it was
// recorded, and where /proc could not be read.
type SelfHealth struct {
	// Intervals is how many samples the figures are from.
	Intervals int `json:"intervals"`
	// Cores is the CPUs soakd could use (Host.Cores), what CPU is
	// judged against.
	Cores int `json:"cores,omitempty"`
	// CPU is soakd's process CPU in cores (CPU-seconds per second).
	CPUMean float64 `json:"cpu_mean"`
	CPUMax  float64 `json:"cpu_max"`
	// ThreadCPUMax is the busiest thread's CPU at its busiest interval
	// (at most 1: a single-thread bottleneck).
	ThreadCPUMax float64 `json:"thread_cpu_max"`
	// RunqueueDelayRatio is the time soakd's threads waited on a run
	// queue (runnable, not running), summed over threads, per second.
	RunqueueDelayRatioMean float64 `json:"runqueue_delay_ratio_mean"`
	RunqueueDelayRatioMax  float64 `json:"runqueue_delay_ratio_max"`
	// Load is the host's 1-minute load average; Steal the share of its
	// CPU time stolen by the hypervisor.
	LoadMean  float64 `json:"load_mean"`
	LoadMax   float64 `json:"load_max"`
	StealMean float64 `json:"steal_mean"`
	StealMax  float64 `json:"steal_max"`
	// LagP99 is the phase's schedule lag p99 (seconds; Result.Lag),
	// repeated here beside what may explain it.
	LagP99 float64 `json:"lag_p99"`
	// The share of intervals over each of the rule's thresholds
	// (verdict.Generator* and verdict.Host*).
	CPUBusyShare      float64 `json:"cpu_busy_share"`
	RunqueueBusyShare float64 `json:"runqueue_busy_share"`
	StealShare        float64 `json:"steal_share"`
	LoadShare         float64 `json:"load_share"`
	// DemandMax is the most CPU soakd used plus its threads' run-queue
	// wait in an interval (cores), and DemandBusyShare the share of
	// intervals where it passed verdict.GeneratorDemandShare of them.
	DemandMax       float64 `json:"demand_max,omitempty"`
	DemandBusyShare float64 `json:"demand_busy_share,omitempty"`
	// Bound is BoundGenerator, BoundHost or "" (the store was what was
	// measured); Reason says which figure made it so.
	Bound  string `json:"bound,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// Withheld is the text that stands in for a verdict on the store when
// h says the phase was bound ("" when it was not): "no verdict:
// generator-bound (soakd CPU 1.9 of 2 cores in 40% of intervals)".
func (h *SelfHealth) Withheld() string {
	if h == nil || h.Bound == "" {
		return ""
	}
	return "no verdict: " + h.Bound + "-bound (" + h.Reason + ")"
}
