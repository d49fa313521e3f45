package verdict

import (
	"fmt"
	"strings"
	"testing"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
)

// st builds a stage: target/achieved rate, errors, and op -> p99 (ms).
func st(target, achieved float64, errs int64, p99ms map[string]float64) rundir.StageResult {
	s := rundir.StageResult{Result: rundir.Result{TargetRate: target, AchievedRate: achieved, Completed: 1000, Errors: errs, Ops: map[string]rundir.OpResult{}}}
	for op, v := range p99ms {
		s.Ops[op] = rundir.OpResult{Count: 500, Latency: metrics.Summary{P99: v / 1000}}
	}
	return s
}

// miss sets op's misses (of its 500 ops) in a stage.
func miss(s rundir.StageResult, op string, n int64) rundir.StageResult {
	o := s.Ops[op]
	o.Misses = n
	s.Ops[op] = o
	s.Misses += n
	return s
}

// thousand gives every op of every stage 1000 ops: the fewest a stage's
// p99 is judged on (p99MinSamples).
func thousand(ss []rundir.StageResult) []rundir.StageResult {
	for i := range ss {
		for op, o := range ss[i].Ops {
			o.Count = 1000
			ss[i].Ops[op] = o
		}
	}
	return ss
}

func named(ss ...rundir.StageResult) []rundir.StageResult {
	for i := range ss {
		ss[i].Name = fmt.Sprintf("stage-%d", i+1)
		ss[i].Records = int64(i+1) * 1000
	}
	return ss
}

func TestDetectCliff(t *testing.T) {
	g := func(get float64) map[string]float64 { return map[string]float64{"get": get, "set": 1} }
	cases := []struct {
		name        string
		stages      []rundir.StageResult
		factor      float64
		want        string // stage name, "" = none
		op, reason  string
		unconfirmed bool
	}{
		{"flat", thousand(named(st(500, 500, 0, g(1)), st(500, 500, 0, g(1.2)), st(500, 500, 0, g(0.9)), st(500, 500, 0, g(1.1)))), 0, "", "", "", false},
		{"p99 jump confirmed", thousand(named(st(500, 500, 0, g(1)), st(500, 500, 0, g(1)), st(500, 500, 0, g(1.1)), st(500, 500, 0, g(5)), st(500, 500, 0, g(6)))), 0, "stage-4", "get", "p99", false},
		{"jump needs 2 earlier stages", thousand(named(st(500, 500, 0, g(1)), st(500, 500, 0, g(10)), st(500, 500, 0, g(10)))), 0, "", "", "", false},
		{"one noisy stage is not a cliff", thousand(named(st(500, 500, 0, g(1)), st(500, 500, 0, g(1)), st(500, 500, 0, g(9)), st(500, 500, 0, g(1)), st(500, 500, 0, g(1)))), 0, "", "", "", false},
		{"noisy earlier stage does not mask", thousand(named(st(500, 500, 0, g(1)), st(500, 500, 0, g(20)), st(500, 500, 0, g(1)), st(500, 500, 0, g(4)), st(500, 500, 0, g(4)))), 0, "stage-4", "get", "p99", false},
		{"last stage jump is unconfirmed", thousand(named(st(500, 500, 0, g(1)), st(500, 500, 0, g(1)), st(500, 500, 0, g(5)))), 0, "stage-3", "get", "p99", true},
		{"a p99 of 500 ops is not judged", named(st(500, 500, 0, g(1)), st(500, 500, 0, g(1)), st(500, 500, 0, g(1.1)), st(500, 500, 0, g(5)), st(500, 500, 0, g(6))), 0, "", "", "", false},
		{"factor 6 ignores 5x", thousand(named(st(500, 500, 0, g(1)), st(500, 500, 0, g(1)), st(500, 500, 0, g(5)), st(500, 500, 0, g(5)))), 6, "", "", "", false},
		{"rate not held", named(st(500, 500, 0, g(1)), st(500, 470, 0, g(1)), st(500, 400, 0, g(1))), 0, "stage-2", "", "rate", false},
		{"rate not held in the last stage is unconfirmed", named(st(500, 500, 0, g(1)), st(500, 470, 0, g(1))), 0, "stage-2", "", "rate", true},
		{"one stage short of its rate is no cliff", named(st(500, 500, 0, g(1)), st(500, 400, 0, g(1)), st(500, 500, 0, g(1))), 0, "", "", "", false},
		{"rate 0.95 is held", named(st(500, 500, 0, g(1)), st(500, 475, 0, g(1))), 0, "", "", "", false},
		{"errors appear", named(st(500, 500, 0, g(1)), st(500, 500, 2, g(1)), st(500, 500, 300, g(1))), 0, "stage-3", "", "errors", false},
		{"misses jump when the cap is hit", named(miss(st(500, 500, 0, g(1)), "get", 10), miss(st(500, 500, 0, g(1)), "get", 12), miss(st(500, 500, 0, g(1)), "get", 11), miss(st(500, 500, 0, g(1)), "get", 40)), 0, "stage-4", "get", "misses", false},
		{"flat misses from deletes are no cliff", named(miss(st(500, 500, 0, g(1)), "get", 20), miss(st(500, 500, 0, g(1)), "get", 25), miss(st(500, 500, 0, g(1)), "get", 22), miss(st(500, 500, 0, g(1)), "get", 27)), 0, "", "", "", false},
		{"first misses need 2 points", named(st(500, 500, 0, g(1)), st(500, 500, 0, g(1)), miss(st(500, 500, 0, g(1)), "get", 5), miss(st(500, 500, 0, g(1)), "get", 11)), 0, "stage-4", "get", "misses", false},
		{"slow error creep is no cliff", named(st(500, 500, 10, g(1)), st(500, 500, 20, g(1)), st(500, 500, 30, g(1))), 0, "", "", "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := DetectCliff(c.stages, c.factor)
			if c.want == "" {
				if got != nil {
					t.Fatalf("cliff %+v, want none", got)
				}
				return
			}
			if got == nil {
				t.Fatalf("no cliff, want %s", c.want)
			}
			if got.Stage != c.want || got.Op != c.op || got.Reason != c.reason || got.Unconfirmed != c.unconfirmed {
				t.Fatalf("cliff %s op %q reason %s unconfirmed %v, want %s %q %s %v", got.Stage, got.Op, got.Reason, got.Unconfirmed, c.want, c.op, c.reason, c.unconfirmed)
			}
			if got.Records != c.stages[got.StageIndex].Records {
				t.Errorf("records %d", got.Records)
			}
		})
	}
}

func TestCliffSignals(t *testing.T) {
	prev := &rundir.StageResult{Server: map[string]float64{"evicted_keys_total": 0, "latest_fork_seconds": 0.001, "process_swap_bytes": 0}}
	cur := &rundir.StageResult{Server: map[string]float64{"evicted_keys_total": 120, "latest_fork_seconds": 0.004, "process_swap_bytes": 4096,
		"rdb_bgsave_in_progress": 1, "aof_rewrite_in_progress": 0, "used_memory_bytes": 8e6, "maxmemory_bytes": 8e6},
		Result: rundir.Result{Ops: map[string]rundir.OpResult{"set": {Errors: map[string]int64{"oom": 7}}}}}
	got := strings.Join(Signals(prev, cur), "|")
	for _, want := range []string{"evictions: evicted_keys_total 0 -> 120", "swap: process_swap_bytes 0 -> 4096", "bgsave", "fork: latest_fork_seconds 0.001000 -> 0.004000", "oom_errors: 7", "at_maxmemory"} {
		if !strings.Contains(got, want) {
			t.Errorf("signals %q lack %q", got, want)
		}
	}
	if strings.Contains(got, "aof_rewrite") {
		t.Errorf("aof_rewrite reported while not in progress: %q", got)
	}
	if s := Signals(cur, cur); len(s) != 2 { // bgsave and at_maxmemory are states, not changes
		t.Errorf("no change: %q", s)
	}
}

func TestSearchCapacity(t *testing.T) {
	for _, c := range []struct {
		limit, start, factor, max, prec float64
		want                            float64
		probes                          int
	}{
		{limit: 3000, start: 500, factor: 2, max: 1e6, prec: 0.05},
		{limit: 1e9, start: 500, factor: 2, max: 3000, prec: 0.05, want: 3000, probes: 4}, // 500 1000 2000 3000
		// start fails: step down by factor, then bisect above the rate that held.
		{limit: 100, start: 500, factor: 2, max: 3000, prec: 0.05, want: 98, probes: 8}, // 500 250 125 63 94 110 102 98
		{limit: 0, start: 8, factor: 2, max: 3000, prec: 0.05, want: 0, probes: 4},      // 8 4 2 1: nothing holds
	} {
		var rates []float64
		got := SearchCapacity(scenarioCap(c.start, c.factor, c.max, c.prec), func(r float64) bool {
			rates = append(rates, r)
			return r <= c.limit
		})
		if c.want == 0 && c.limit < c.max && c.limit >= c.start {
			// bisected: within precision below the true limit
			if got > c.limit || got < c.limit/(1+c.prec) {
				t.Errorf("limit %v: found %v (probes %v)", c.limit, got, rates)
			}
			if rates[0] != 500 || rates[1] != 1000 || rates[2] != 2000 || rates[3] != 4000 || rates[4] != 3000 {
				t.Errorf("probe order %v", rates)
			}
			continue
		}
		if got != c.want || len(rates) != c.probes {
			t.Errorf("limit %v: got %v after %v, want %v in %d probes", c.limit, got, rates, c.want, c.probes)
		}
	}
}

func scenarioCap(start, factor, max, prec float64) (c capSpec) {
	c.Start, c.Factor, c.Max, c.Precision = start, factor, max, prec
	return c
}

type capSpec = scenarios.CapacitySpec

// TestPageCacheSignal: file memory (page cache) in the server's cgroup
// is named page_cache when it grew enough to matter (1 MiB and 1% of the
// cgroup's limit) or held a tenth of the limit in this stage or the one
// before (reclaimed to make room), and a cliff found by DetectCliff
// carries it.
func TestPageCacheSignal(t *testing.T) {
	const mib = 1 << 20
	srv := func(kv ...float64) map[string]float64 {
		m := map[string]float64{}
		names := []string{"cgroup_memory_file_bytes", "cgroup_memory_limit_bytes", "cgroup_memory_usage_bytes"}
		for i, v := range kv {
			if v >= 0 {
				m[names[i]] = v
			}
		}
		return m
	}
	for _, tc := range []struct {
		name      string
		prev, cur map[string]float64
		want      string // "" = no page_cache signal
	}{
		{"grew 40 MiB of a 256 MiB cap", srv(10*mib, 256*mib, 100*mib), srv(50*mib, 256*mib, 200*mib),
			"page_cache: cgroup_memory_file_bytes 10485760 -> 52428800 (25% of cgroup usage)"},
		{"grew under 1% of the cap", srv(10*mib, 1024*mib, -1), srv(10*mib+10*mib/1000*1000, 1024*mib, -1), ""},
		{"grew 2 MiB of a 100 MiB cap", srv(0, 100*mib, -1), srv(2*mib, 100*mib, -1), "page_cache: cgroup_memory_file_bytes 0 -> 2097152"},
		{"grew 512 KiB, no limit", srv(0, -1, -1), srv(mib/2, -1, -1), ""},
		{"grew 1 MiB, no limit", srv(0, -1, -1), srv(mib, -1, -1), "page_cache: cgroup_memory_file_bytes 0 -> 1048576"},
		{"shrank, no limit", srv(50*mib, -1, -1), srv(10*mib, -1, -1), ""},
		{"shrank to 30 MiB of a 128 MiB cap: still a tenth", srv(42*mib, 128*mib, 120*mib), srv(30*mib, 128*mib, 120*mib),
			"page_cache: cgroup_memory_file_bytes 44040192 -> 31457280 (25% of cgroup usage)"},
		{"held at 12 MiB of a 128 MiB cap", srv(12*mib, 128*mib, -1), srv(12*mib, 128*mib, -1), ""},
		{"reclaimed from 44 MiB to 1 MiB of a 128 MiB cap", srv(44*mib, 128*mib, 128*mib), srv(mib, 128*mib, 128*mib),
			"page_cache: cgroup_memory_file_bytes 46137344 -> 1048576 (1% of cgroup usage)"},
		{"held at 13 MiB of a 128 MiB cap", srv(13*mib, 128*mib, -1), srv(13*mib, 128*mib, -1), "page_cache: cgroup_memory_file_bytes 13631488 -> 13631488"},
		{"no cgroup figures", map[string]float64{"used_memory_bytes": 1}, map[string]float64{"used_memory_bytes": 2}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Signals(&rundir.StageResult{Server: tc.prev}, &rundir.StageResult{Server: tc.cur})
			var pc []string
			for _, s := range got {
				if strings.HasPrefix(s, "page_cache") {
					pc = append(pc, s)
				}
			}
			switch {
			case tc.want == "" && len(pc) != 0:
				t.Errorf("signals %q, want no page_cache", got)
			case tc.want != "" && (len(pc) != 1 || pc[0] != tc.want):
				t.Errorf("signals %q, want %q", got, tc.want)
			}
		})
	}
	// Through DetectCliff: p99 triples at stage 4 while the page cache
	// grows by 60 MiB under a 256 MiB cap.
	var stages []rundir.StageResult
	for i, p99 := range []float64{0.001, 0.001, 0.001, 0.01, 0.01} {
		file := float64(10 * mib)
		if i >= 3 {
			file = 70 * mib
		}
		stages = append(stages, rundir.StageResult{Name: fmt.Sprintf("stage-%d", i+1), Records: int64(i+1) * 1000,
			Server: srv(file, 256*mib, 200*mib),
			Result: rundir.Result{Ops: map[string]rundir.OpResult{"get": {Count: 1000, Latency: metrics.Summary{P99: p99}}}}})
	}
	c := DetectCliff(stages, 3)
	if c == nil || c.Stage != "stage-4" || !strings.Contains(strings.Join(c.Signals, "|"), "page_cache: cgroup_memory_file_bytes 10485760 -> 73400320") {
		t.Fatalf("cliff %+v, want stage-4 with a page_cache signal", c)
	}
}
