package verdict

import (
	"fmt"
	"sort"

	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// Cliff detection thresholds.
const (
	DefaultCliffFactor = scenarios.DefaultCliffFactor
	// An error-ratio cliff is a rise of at least errorJump over the
	// earlier stages' median (and at least double it).
	errorJump = 0.05
	// A miss-ratio cliff is a rise of at least missJump over the
	// earlier stages' median (and at least double it). Reads draw only
	// inserted records, so misses before the cap come from the mix's own
	// deletes and stay flat from stage to stage.
	missJump = 0.02
	// A p99 from fewer samples is close to the max: too noisy to judge.
	minCliffSamples = 100
	// A page_cache signal is file memory in the server's cgroup growing
	// by at least pageCacheMinGrowth bytes and pageCacheLimitShare of the
	// cgroup's limit (where it has one) since the previous stage, or
	// holding at least pageCacheHeldShare of the limit in either stage.
	pageCacheMinGrowth  = 1 << 20
	pageCacheLimitShare = 0.01
	pageCacheHeldShare  = 0.10
)

func missRatio(o rundir.OpResult) float64 {
	if o.Count == 0 {
		return 0
	}
	return float64(o.Misses) / float64(o.Count)
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// stageErrorRatio counts the measuring ops' errors and the load's.
func stageErrorRatio(st rundir.StageResult) float64 {
	errs, n := st.Errors, st.Completed
	if st.Load != nil {
		errs += st.Load.Errors
		n += st.Load.Completed
	}
	if n == 0 {
		return 0
	}
	return float64(errs) / float64(n)
}

// DetectCliff returns the first cliff in stages, or nil. It is a pure
// function of the stage results. factor <= 0 means DefaultCliffFactor.
//
//   - p99: per op, the first stage whose latency p99 exceeds factor x the
//     median p99 of the earlier stages (at least 2 earlier stages, each op with at least 100 samples). The
//     median keeps one noisy earlier stage from hiding or faking a cliff,
//     and a jump must also show in the next stage to count (a jump in the
//     last stage is reported Unconfirmed).
//   - rate: achieved/target < MinHeldRatio in an open-loop stage.
//   - errors: the stage's error ratio (load + measure) rose by errorJump
//     over the earlier stages' median (at least 1 earlier stage).
//   - misses: per op, the stage's miss ratio (cache reads that found no
//     value) rose by missJump over the earlier stages' median and at
//     least doubled: with an evicting maxmemory policy this is where the
//     dataset outgrew the cap.
//
// The earliest stage wins; within a stage rate beats errors beats misses
// beats p99, and ops go in name order.
func DetectCliff(stages []rundir.StageResult, factor float64) *rundir.Cliff {
	if factor <= 0 {
		factor = DefaultCliffFactor
	}
	opsSet := map[string]bool{}
	for _, st := range stages {
		for op := range st.Ops {
			opsSet[op] = true
		}
	}
	ops := make([]string, 0, len(opsSet))
	for op := range opsSet {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	// earlier returns f of op in the stages before upto that have enough
	// samples to judge.
	earlier := func(op string, upto int, f func(rundir.OpResult) float64) []float64 {
		var xs []float64
		for _, st := range stages[:upto] {
			if o, ok := st.Ops[op]; ok && o.Count >= minCliffSamples {
				xs = append(xs, f(o))
			}
		}
		return xs
	}
	p99 := func(o rundir.OpResult) float64 { return o.Latency.P99 }
	for k, st := range stages {
		// The achieved rate counts only ops completed inside the stage's
		// window, so one stall at its end can cost a short stage its
		// rate: like p99, a rate cliff needs the next stage to fall short
		// too (the last stage's is unconfirmed).
		if ratio, ok := heldRatio(st); ok && ratio < MinHeldRatio {
			if k == len(stages)-1 {
				return newCliff(stages, k, "", "rate", ratio, MinHeldRatio, true)
			}
			if next, ok := heldRatio(stages[k+1]); ok && next < MinHeldRatio {
				return newCliff(stages, k, "", "rate", ratio, MinHeldRatio, false)
			}
		}
		if k >= 1 {
			prev := make([]float64, k)
			for j := 0; j < k; j++ {
				prev[j] = stageErrorRatio(stages[j])
			}
			base := median(prev)
			if er := stageErrorRatio(st); er >= base+errorJump && er >= 2*base {
				return newCliff(stages, k, "", "errors", er, base, false)
			}
		}
		for _, op := range ops {
			o, ok := st.Ops[op]
			if !ok || o.Count < minCliffSamples || o.Misses == 0 || k < 1 {
				continue
			}
			prev := earlier(op, k, missRatio)
			if len(prev) == 0 {
				continue
			}
			base := median(prev)
			if mr := missRatio(o); mr >= base+missJump && mr >= 2*base {
				return newCliff(stages, k, op, "misses", mr, base, false)
			}
		}
		for _, op := range ops {
			o, ok := st.Ops[op]
			if !ok || o.Count < minCliffSamples {
				continue
			}
			prev := earlier(op, k, p99)
			if len(prev) < 2 {
				continue
			}
			base := median(prev)
			if base <= 0 || o.Latency.P99 <= factor*base {
				continue
			}
			if k == len(stages)-1 {
				return newCliff(stages, k, op, "p99", o.Latency.P99, base, true)
			}
			if n, ok := stages[k+1].Ops[op]; ok && n.Latency.P99 > factor*base {
				return newCliff(stages, k, op, "p99", o.Latency.P99, base, false)
			}
		}
	}
	return nil
}

// heldRatio is a stage's achieved/target rate; ok is false for stages
// that ran closed-loop or measured nothing.
func heldRatio(st rundir.StageResult) (float64, bool) {
	if st.TargetRate <= 0 || st.Completed+st.Dropped == 0 {
		return 0, false
	}
	return st.AchievedRate / st.TargetRate, true
}

func newCliff(stages []rundir.StageResult, k int, op, reason string, value, base float64, unconfirmed bool) *rundir.Cliff {
	st := stages[k]
	c := &rundir.Cliff{Stage: st.Name, StageIndex: k, Op: op, Reason: reason, Value: value, Baseline: base,
		Records: st.Records, UsedMemoryBytes: st.Server["used_memory_bytes"], Unconfirmed: unconfirmed}
	var prev *rundir.StageResult
	if k > 0 {
		prev = &stages[k-1]
	}
	c.Signals = Signals(prev, &st)
	return c
}

// Signals names what the server was doing in stage cur compared with
// prev (nil for the first stage): evictions, swap, cgroup_oom_kill,
// cgroup_limit_hit, page_cache, bgsave, aof_rewrite, fork, oom_errors,
// at_maxmemory.
//
// page_cache is the cgroup's file memory (the page cache of the AOF and
// RDB files, charged to the server's group by the kernel) growing, or
// holding a tenth of the cap or more in this stage or the previous one:
// it takes room under the cap from the dataset, which is how a
// persistence variant can hit the cliff at fewer records than no
// persistence.
func Signals(prev, cur *rundir.StageResult) []string {
	out := []string{}
	var ps map[string]float64
	if prev != nil {
		ps = prev.Server
	}
	cs := cur.Server
	rose := func(k string) (float64, float64, bool) {
		c, ok := cs[k]
		if !ok {
			return 0, 0, false
		}
		p := ps[k]
		return p, c, c > p
	}
	if p, c, ok := rose("evicted_keys_total"); ok {
		out = append(out, fmt.Sprintf("evictions: evicted_keys_total %.0f -> %.0f", p, c))
	}
	if p, c, ok := rose("process_swap_bytes"); ok {
		out = append(out, fmt.Sprintf("swap: process_swap_bytes %.0f -> %.0f", p, c))
	}
	if p, c, ok := rose("cgroup_swap_usage_bytes"); ok {
		out = append(out, fmt.Sprintf("swap: cgroup_swap_usage_bytes %.0f -> %.0f", p, c))
	}
	if p, c, ok := rose("cgroup_oom_kills_total"); ok {
		out = append(out, fmt.Sprintf("cgroup_oom_kill: cgroup_oom_kills_total %.0f -> %.0f", p, c))
	}
	if p, c, ok := rose("cgroup_memory_failcnt_total"); ok && prev != nil {
		out = append(out, fmt.Sprintf("cgroup_limit_hit: cgroup_memory_failcnt_total %.0f -> %.0f", p, c))
	}
	if c, ok := cs["cgroup_memory_file_bytes"]; ok {
		p := ps["cgroup_memory_file_bytes"]
		min := float64(pageCacheMinGrowth)
		lim := cs["cgroup_memory_limit_bytes"]
		if lim > 0 {
			min = max(min, pageCacheLimitShare*lim)
		}
		// Held a tenth of the cap in this stage or the one before: page
		// cache reclaimed to make room (it went before anon memory was
		// swapped) is as much a cause as page cache taking it.
		if c-p >= min || (lim > 0 && max(c, p) >= pageCacheHeldShare*lim) {
			s := fmt.Sprintf("page_cache: cgroup_memory_file_bytes %.0f -> %.0f", p, c)
			if u := cs["cgroup_memory_usage_bytes"]; u > 0 {
				s += fmt.Sprintf(" (%.0f%% of cgroup usage)", 100*c/u)
			}
			out = append(out, s)
		}
	}
	if cs["rdb_bgsave_in_progress"] > 0 {
		out = append(out, "bgsave: rdb_bgsave_in_progress")
	}
	if cs["aof_rewrite_in_progress"] > 0 {
		out = append(out, "aof_rewrite: aof_rewrite_in_progress")
	}
	if p, c, ok := rose("latest_fork_seconds"); ok && prev != nil {
		out = append(out, fmt.Sprintf("fork: latest_fork_seconds %.6f -> %.6f", p, c))
	}
	if n := OOMErrors(cur); n > 0 && (prev == nil || OOMErrors(prev) == 0) {
		out = append(out, fmt.Sprintf("oom_errors: %d", n))
	}
	if mx, used := cs["maxmemory_bytes"], cs["used_memory_bytes"]; mx > 0 && used >= 0.95*mx {
		out = append(out, fmt.Sprintf("at_maxmemory: used_memory_bytes %.0f of %.0f", used, mx))
	}
	return out
}

// OOMErrors is a stage's ops refused for memory (error class oom).
func OOMErrors(st *rundir.StageResult) int64 {
	var n int64
	for _, o := range st.Ops {
		n += o.Errors[targets.ClassOOM]
	}
	if st.Load != nil {
		for _, o := range st.Load.Ops {
			n += o.Errors[targets.ClassOOM]
		}
	}
	return n
}
