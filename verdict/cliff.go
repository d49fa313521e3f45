package verdict

import (
	"fmt"
	"sort"

	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/storeinfo"
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
// Each rule below is judged at every stage; the first stage where one
// fires is the cliff, and every rule that fired there is kept as its
// evidence, with the values it compared.
//
//   - oom: the stage's ops (load or measure) were refused for memory
//     (error class oom) and no earlier stage's were, or the cgroup's OOM
//     killer ran since the previous stage.
//   - rate: achieved/target < MinHeldRatio in an open-loop stage, and in
//     the next stage too (the last stage's is unconfirmed).
//   - errors: the stage's error ratio (load + measure) rose by errorJump
//     over the earlier stages' median and at least doubled it.
//   - misses: per op, the stage's miss ratio rose by missJump over the
//     earlier stages' median and at least doubled: with an evicting
//     maxmemory policy this is where the dataset outgrew the cap.
//   - throughput: closed-loop successful ops/s (each op alone under
//     measure: per_op, else the stage's mix) fell to at most half the
//     median of the previous throughputWindow stages (at least 2, each
//     with at least 100 ops), and below that median by at least zMin
//     times their robust spread (1.4826 x MAD), so a run whose stages
//     scatter is not called — or, where they scatter that widely, to
//     below half the lowest of them; the next stage must fall below the
//     same threshold (the last stage's is unconfirmed).
//   - p99: per op, in an open-loop stage, the p99 exceeds factor x the
//     median p99 of the earlier open-loop stages (at least 2, each op
//     with at least 100 samples) and that median plus zMin times their
//     spread, in this stage and the next (the last stage's is
//     unconfirmed). Closed-loop stages are judged by throughput.
//
// The cliff's Reason, Op, Value and Baseline are its first confirmed
// evidence in the order above (ops in name order).
func DetectCliff(stages []rundir.StageResult, factor float64) *rundir.Cliff {
	if factor <= 0 {
		factor = DefaultCliffFactor
	}
	d := cliffJudge{stages: stages, factor: factor, ops: stageOps(stages)}
	for k := range stages {
		var ev []rundir.CliffEvidence
		ev = append(ev, d.oom(k)...)
		ev = append(ev, d.rate(k)...)
		ev = append(ev, d.errors(k)...)
		ev = append(ev, d.misses(k)...)
		ev = append(ev, d.throughput(k)...)
		ev = append(ev, d.p99(k)...)
		if len(ev) > 0 {
			return newCliff(stages, k, ev)
		}
	}
	return nil
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
		n += o.Errors[storeinfo.ClassOOM]
	}
	if st.Load != nil {
		for _, o := range st.Load.Ops {
			n += o.Errors[storeinfo.ClassOOM]
		}
	}
	return n
}
