package verdict

import (
	"math"
	"slices"
	"sort"

	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/storeinfo"
)

// Noise-aware cliff thresholds (see DetectCliff).
const (
	// A throughput cliff is a fall to at most throughputDrop of the
	// earlier stages' median: closed-loop throughput on a shared host
	// scatters by a quarter from stage to stage, a cliff divides it.
	throughputDrop = 0.5
	// throughputWindow earlier stages make the throughput baseline: a
	// slow decline as the dataset grows is not a cliff, a fall from the
	// stages just before is.
	throughputWindow = 5
	// throughputMinEarlier earlier stages are the fewest a throughput
	// fall is judged against: two give a median but no spread worth the
	// name, and one short stage slowed by a host stall (seen in CI: both
	// ops of a 400 ms closed-loop slice at a quarter of the stage before)
	// would pass for a cliff.
	throughputMinEarlier = 3
	// p99MinSamples ops make a stage's p99 worth judging: then the p99
	// rests on the 10 slowest ops, not on one or two a host stall can
	// make (200 ops at 200 ops/s: one stalled second passed for a cliff
	// before the OOM a test waited for).
	p99MinSamples = 1000
	// zMin is how many robust spreads (1.4826 x MAD, the standard
	// deviation of normal data) a throughput fall or a p99 rise must
	// also clear: where the earlier stages themselves scatter, a bigger
	// move is needed.
	zMin = 3
	// madScale turns a median absolute deviation into a spread
	// comparable to a standard deviation.
	madScale = 1.4826
)

// cliffJudge evaluates the cliff rules at one stage of stages.
type cliffJudge struct {
	stages []rundir.StageResult
	factor float64
	ops    []string
}

// stageOps lists the ops of every stage's measuring, by name.
func stageOps(stages []rundir.StageResult) []string {
	set := map[string]bool{}
	for _, st := range stages {
		for op := range st.Ops {
			set[op] = true
		}
	}
	ops := make([]string, 0, len(set))
	for op := range set {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	return ops
}

// spread is the robust spread of xs: madScale x the median absolute
// deviation from their median.
func spread(xs []float64) float64 {
	m := median(xs)
	dev := make([]float64, len(xs))
	for i, x := range xs {
		dev[i] = math.Abs(x - m)
	}
	return madScale * median(dev)
}

func fptr(v float64) *float64 { return &v }

// oom: memory refusals appear, or the cgroup OOM-killed.
func (d *cliffJudge) oom(k int) []rundir.CliffEvidence {
	st := &d.stages[k]
	var out []rundir.CliffEvidence
	if n := OOMErrors(st); n > 0 {
		first := true
		for j := 0; j < k; j++ {
			if OOMErrors(&d.stages[j]) > 0 {
				first = false
				break
			}
		}
		if first {
			out = append(out, rundir.CliffEvidence{Reason: rundir.CliffOOM, Op: oomOp(st), Value: float64(n)})
		}
	}
	if c, ok := st.Server["cgroup_oom_kills_total"]; ok && k > 0 {
		if p := d.stages[k-1].Server["cgroup_oom_kills_total"]; c > p {
			out = append(out, rundir.CliffEvidence{Reason: rundir.CliffOOM, Op: "cgroup_oom_kills_total", Value: c, Baseline: p, Threshold: p})
		}
	}
	return out
}

// oomOp is the op with the most ops refused for memory in st (load and
// measure together).
func oomOp(st *rundir.StageResult) string {
	by := map[string]int64{}
	for op, o := range st.Ops {
		by[op] += o.Errors[storeinfo.ClassOOM]
	}
	if st.Load != nil {
		for op, o := range st.Load.Ops {
			by[op] += o.Errors[storeinfo.ClassOOM]
		}
	}
	best := ""
	for op, n := range by {
		if n > by[best] || (n == by[best] && n > 0 && op < best) {
			best = op
		}
	}
	return best
}

// heldRatio is a stage's achieved/target rate; ok is false for stages
// that ran closed-loop or measured nothing.
func heldRatio(st rundir.StageResult) (float64, bool) {
	if st.TargetRate <= 0 || st.Completed+st.Dropped == 0 {
		return 0, false
	}
	return st.AchievedRate / st.TargetRate, true
}

// rate: an open-loop stage that did not hold its rate, nor did the
// next. The achieved rate counts only ops completed inside the stage's
// window, so one stall at its end can cost a short stage its rate.
func (d *cliffJudge) rate(k int) []rundir.CliffEvidence {
	ratio, ok := heldRatio(d.stages[k])
	if !ok || ratio >= MinHeldRatio {
		return nil
	}
	e := rundir.CliffEvidence{Reason: rundir.CliffRate, Value: ratio, Baseline: 1, Threshold: MinHeldRatio}
	if k == len(d.stages)-1 {
		e.Unconfirmed = true
		return []rundir.CliffEvidence{e}
	}
	if next, ok := heldRatio(d.stages[k+1]); ok && next < MinHeldRatio {
		e.Next = fptr(next)
		return []rundir.CliffEvidence{e}
	}
	return nil
}

// errors: the error ratio jumped.
func (d *cliffJudge) errors(k int) []rundir.CliffEvidence {
	if k < 1 {
		return nil
	}
	prev := make([]float64, k)
	for j := 0; j < k; j++ {
		prev[j] = stageErrorRatio(d.stages[j])
	}
	base := median(prev)
	thr := math.Max(base+errorJump, 2*base)
	if er := stageErrorRatio(d.stages[k]); er >= thr {
		return []rundir.CliffEvidence{{Reason: rundir.CliffErrors, Value: er, Baseline: base, Threshold: thr, Earlier: prev}}
	}
	return nil
}

// earlier returns f of op in the stages before upto that have enough
// samples to judge.
func (d *cliffJudge) earlier(op string, upto int, f func(rundir.OpResult) float64) []float64 {
	var xs []float64
	for _, st := range d.stages[:upto] {
		if o, ok := st.Ops[op]; ok && o.Count >= minCliffSamples {
			xs = append(xs, f(o))
		}
	}
	return xs
}

// misses: an op's miss ratio jumped.
func (d *cliffJudge) misses(k int) []rundir.CliffEvidence {
	if k < 1 {
		return nil
	}
	var out []rundir.CliffEvidence
	for _, op := range d.ops {
		o, ok := d.stages[k].Ops[op]
		if !ok || o.Count < minCliffSamples || o.Misses == 0 {
			continue
		}
		prev := d.earlier(op, k, missRatio)
		if len(prev) == 0 {
			continue
		}
		base := median(prev)
		thr := math.Max(base+missJump, 2*base)
		if mr := missRatio(o); mr >= thr {
			out = append(out, rundir.CliffEvidence{Reason: rundir.CliffMisses, Op: op, Value: mr, Baseline: base, Threshold: thr, Earlier: prev})
		}
	}
	return out
}

// loopFig is one closed-loop throughput figure: successful ops/s over
// n completed ops.
type loopFig struct {
	rate float64
	n    int64
}

// closedLoop is a stage's closed-loop throughput figures: under
// measure: per_op each op's own, else for a closed-loop stage the
// mix's (op "").
func closedLoop(st *rundir.StageResult) map[string]loopFig {
	out := map[string]loopFig{}
	if len(st.PerOp) > 0 {
		for op, r := range st.PerOp {
			if r != nil && r.DurationSeconds > 0 {
				out[op] = loopFig{r.Goodput(), r.Completed}
			}
		}
		return out
	}
	if st.TargetRate == 0 && st.DurationSeconds > 0 {
		out[""] = loopFig{st.Goodput(), st.Completed}
	}
	return out
}

// throughput: closed-loop successful ops/s fell well below the stages
// before, beyond their scatter, here and in the next stage.
func (d *cliffJudge) throughput(k int) []rundir.CliffEvidence {
	cur := closedLoop(&d.stages[k])
	names := make([]string, 0, len(cur))
	for op := range cur {
		names = append(names, op)
	}
	sort.Strings(names)
	var out []rundir.CliffEvidence
	for _, op := range names {
		var prev []float64
		for j := 0; j < k; j++ {
			if f, ok := closedLoop(&d.stages[j])[op]; ok && f.n >= minCliffSamples {
				prev = append(prev, f.rate)
			}
		}
		if len(prev) > throughputWindow {
			prev = prev[len(prev)-throughputWindow:]
		}
		if len(prev) < throughputMinEarlier {
			continue
		}
		base, sp := median(prev), spread(prev)
		// Below half the median and zMin spreads under it; where the
		// earlier stages scatter that widely, below half the lowest of
		// them is still a fall no earlier stage came near.
		thr := math.Max(math.Min(throughputDrop*base, base-zMin*sp), throughputDrop*slices.Min(prev))
		v := cur[op].rate
		if thr <= 0 || v > thr {
			continue
		}
		e := rundir.CliffEvidence{Reason: rundir.CliffThroughput, Op: op, Value: v, Baseline: base, Spread: sp, Threshold: thr, Earlier: prev}
		if k == len(d.stages)-1 {
			e.Unconfirmed = true
			out = append(out, e)
			continue
		}
		if next, ok := closedLoop(&d.stages[k+1])[op]; ok && next.rate <= thr {
			e.Next = fptr(next.rate)
			out = append(out, e)
		}
	}
	return out
}

// p99: an op's p99 jumped past factor x the earlier median and their
// scatter, here and in the next stage. Closed-loop stages are left to
// the throughput rule: there a worker waits for each reply, so a slower
// store shows as fewer ops/s, while the p99 of a one-second slice
// follows the host's scheduling as much as the store (on a loaded
// 2-core host del's closed-loop p99 rose 8x for a stage, and 4x in the
// next, with the dataset in memory; the swap came a stage later).
func (d *cliffJudge) p99(k int) []rundir.CliffEvidence {
	if len(closedLoop(&d.stages[k])) > 0 {
		return nil
	}
	var out []rundir.CliffEvidence
	for _, op := range d.ops {
		o, ok := d.stages[k].Ops[op]
		if !ok || o.Count < p99MinSamples {
			continue
		}
		var prev []float64
		for j := 0; j < k; j++ {
			if o, ok := d.stages[j].Ops[op]; ok && o.Count >= p99MinSamples && len(closedLoop(&d.stages[j])) == 0 {
				prev = append(prev, o.Latency.P99)
			}
		}
		if len(prev) < 2 {
			continue
		}
		base, sp := median(prev), spread(prev)
		thr := math.Max(d.factor*base, base+zMin*sp)
		if base <= 0 || o.Latency.P99 <= thr {
			continue
		}
		e := rundir.CliffEvidence{Reason: rundir.CliffP99, Op: op, Value: o.Latency.P99, Baseline: base, Spread: sp, Threshold: thr, Earlier: prev}
		if k == len(d.stages)-1 {
			e.Unconfirmed = true
			out = append(out, e)
			continue
		}
		if n, ok := d.stages[k+1].Ops[op]; ok && n.Latency.P99 > thr {
			e.Next = fptr(n.Latency.P99)
			out = append(out, e)
		}
	}
	return out
}

// newCliff is the cliff at stage k with its evidence: the first
// confirmed piece (else the first) names it.
func newCliff(stages []rundir.StageResult, k int, ev []rundir.CliffEvidence) *rundir.Cliff {
	sort.SliceStable(ev, func(i, j int) bool { return !ev[i].Unconfirmed && ev[j].Unconfirmed })
	st := stages[k]
	p := ev[0]
	c := &rundir.Cliff{Stage: st.Name, StageIndex: k, Op: p.Op, Reason: p.Reason, Value: p.Value, Baseline: p.Baseline,
		Records: st.Records, UsedMemoryBytes: st.Server["used_memory_bytes"], Unconfirmed: p.Unconfirmed, Evidence: ev}
	var prev *rundir.StageResult
	if k > 0 {
		prev = &stages[k-1]
	}
	c.Signals = Signals(prev, &st)
	x := ExplainCliff(stages, k, c.Op, c.Reason == rundir.CliffOOM)
	c.Explain = &x
	return c
}
