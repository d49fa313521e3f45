package engine

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/scenarios"
)

// writeCheckedShard writes a shard's run directory whose one phase has
// the given check (as a summary.json of any soakd version would hold
// it) and capacity outcome, with latencies lat (ns) of op read.
func writeCheckedShard(t *testing.T, dir string, i, n int, kind string, held *float64, c Check, lat []int64) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	set := metrics.NewSet([]scenarios.Op{scenarios.OpRead})
	for _, v := range lat {
		set.Ops[scenarios.OpRead].Latency.RecordValue(v)
		set.Ops[scenarios.OpRead].Service.RecordValue(v)
		set.Ops[scenarios.OpRead].Count++
	}
	r := &runner{opts: Options{OutDir: dir}, totals: []phaseTotal{{"p", set}}}
	if err := r.writeHistograms(); err != nil {
		t.Fatal(err)
	}
	pr := PhaseResult{Name: "p", Kind: kind}
	fillResult(&pr.Result, set, uint64(len(lat)), time.Second, 0, 0, nil)
	if held != nil {
		pr.Capacity = &CapacityResult{HighestRateHeld: *held}
		pr.TargetRate = *held
	}
	c.Phase = "p"
	pr.SLO = &Verdict{Passed: c.Passed, Checks: []Check{c}}
	s := &Summary{SchemaVersion: SchemaVersion, Scenario: "sc", Shard: Shard{Index: i, Count: n}, Status: StatusCompleted, Phases: []PhaseResult{pr}}
	if err := WriteRunDir(dir, s); err != nil {
		t.Fatal(err)
	}
}

// TestMergedVerdicts: the shard merge judges each check by its own kind
// and at its exact percentile. Before: a capacity phase where no shard
// held any rate merged to PASSED (0 >= 0), and p95 was judged at p90.
func TestMergedVerdicts(t *testing.T) {
	zero, some := 0.0, 400.0
	// 100 values 1..100 ms over two shards: p90 is 90 ms, p95 95 ms.
	var lo, hi []int64
	for v := int64(1); v <= 100; v++ {
		if v%2 == 0 {
			lo = append(lo, v*int64(time.Millisecond))
		} else {
			hi = append(hi, v*int64(time.Millisecond))
		}
	}
	capCheck := Check{What: "highest_rate_held", Limit: 0}
	for _, tc := range []struct {
		name   string
		kind   string
		held   [2]*float64
		check  Check
		passed bool
	}{
		{"capacity none held", scenarios.PhaseCapacity, [2]*float64{&zero, &zero}, capCheck, false},
		{"capacity one held", scenarios.PhaseCapacity, [2]*float64{&some, &zero}, capCheck, true},
		{"p95 above limit", scenarios.PhaseSteady, [2]*float64{}, Check{Op: "read", What: "latency p95", Limit: 0.093, Passed: true}, false},
		{"p95 under limit", scenarios.PhaseSteady, [2]*float64{}, Check{Op: "read", What: "latency p95", Limit: 0.096, Passed: true}, true},
		{"p42 under limit", scenarios.PhaseSteady, [2]*float64{}, Check{Op: "read", What: "latency p42", Limit: 0.045, Passed: false}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			dirs := []string{filepath.Join(base, "s0"), filepath.Join(base, "s1")}
			writeCheckedShard(t, dirs[0], 0, 2, tc.kind, tc.held[0], tc.check, lo)
			writeCheckedShard(t, dirs[1], 1, 2, tc.kind, tc.held[1], tc.check, hi)
			m, err := MergeRunDirs(dirs)
			if err != nil {
				t.Fatal(err)
			}
			if m.SLO.Passed != tc.passed || len(m.Phases[0].SLO.Checks) != 1 || m.Phases[0].SLO.Checks[0].Passed != tc.passed {
				t.Errorf("merged passed %v, want %v: %+v", m.SLO.Passed, tc.passed, m.Phases[0].SLO.Checks)
			}
		})
	}
}
