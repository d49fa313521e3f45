package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
)

// writeHists writes histograms.hlog for one phase's set, as the engine
// does: tags <phase>.<op>.latency|service.
func writeHists(t *testing.T, dir, phase string, set *metrics.Set) {
	t.Helper()
	var buf bytes.Buffer
	w := hdr.NewHistogramLogWriter(&buf)
	_ = w.OutputLogFormatVersion()
	_ = w.OutputStartTime(0)
	_ = w.OutputLegend()
	for op, os := range set.Ops {
		if os == nil {
			continue
		}
		for _, th := range []struct {
			timing string
			h      *hdr.Histogram
		}{{"latency", os.Latency}, {"service", os.Service}} {
			c := hdr.Import(th.h.Export())
			c.SetTag(phase + "." + scenarios.Op(op).String() + "." + th.timing)
			if err := w.OutputIntervalHistogram(c); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := rundir.WriteFileAtomic(filepath.Join(dir, rundir.HistogramsFile), buf.Bytes()); err != nil {
		t.Fatal(err)
	}
}

// result fills a phase's figures from a set of ops measured over 1s.
func result(res *rundir.Result, set *metrics.Set, scheduled uint64) {
	res.Ops = map[string]rundir.OpResult{}
	res.Scheduled = scheduled
	res.DurationSeconds = 1
	for op, os := range set.Ops {
		if os == nil {
			continue
		}
		res.Ops[scenarios.Op(op).String()] = rundir.OpResult{Count: os.Count, Errors: map[string]int64{},
			Latency: metrics.Summarize(os.Latency), Service: metrics.Summarize(os.Service)}
		res.Completed += os.Count
		res.CompletedInWindow += os.Count
	}
	res.AchievedRate = float64(res.CompletedInWindow)
}

// writeShardDir writes a minimal run directory for shard i/n.
func writeShardDir(t *testing.T, dir, scenario string, i, n int, lat []int64) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	set := metrics.NewSet([]scenarios.Op{scenarios.OpRead})
	for _, v := range lat {
		set.Ops[scenarios.OpRead].Latency.RecordValue(v)
		set.Ops[scenarios.OpRead].Service.RecordValue(v / 2)
		set.Ops[scenarios.OpRead].Count++
	}
	writeHists(t, dir, "steady", set)
	pr := rundir.PhaseResult{Name: "steady", Kind: scenarios.PhaseSteady}
	result(&pr.Result, set, uint64(len(lat)))
	pr.TargetRate = 100
	pr.SLO = &rundir.Verdict{Passed: true, Checks: []rundir.Check{{Phase: "steady", Op: "read", What: "latency p99", Limit: 0.004, Passed: true}}}
	s := &rundir.Summary{SchemaVersion: rundir.SchemaVersion, Scenario: scenario, Shard: rundir.Shard{Index: i, Count: n}, Status: rundir.StatusCompleted, Phases: []rundir.PhaseResult{pr}}
	if err := WriteRunDir(dir, s); err != nil {
		t.Fatal(err)
	}
}

func TestMergeRunDirs(t *testing.T) {
	base := t.TempDir()
	d := func(s string) string { return filepath.Join(base, s) }
	writeShardDir(t, d("a0"), "sc", 0, 3, []int64{1000, 2000, 3000})
	writeShardDir(t, d("a1"), "sc", 1, 3, []int64{5000000}) // 5 ms: fails p99 4 ms once merged
	writeShardDir(t, d("a2"), "sc", 2, 3, []int64{1000})
	writeShardDir(t, d("b1"), "other", 1, 3, []int64{1000})
	writeShardDir(t, d("c1"), "sc", 1, 4, []int64{1000})

	m, err := MergeRunDirs([]string{d("a2"), d("a0"), d("a1")})
	if err != nil {
		t.Fatal(err)
	}
	h := m.Hists["steady.read.latency"]
	if h.TotalCount() != 5 || h.Max() < 4990000 || m.Dirs[0] != d("a0") {
		t.Fatalf("merged count %d max %d dirs %v", h.TotalCount(), h.Max(), m.Dirs)
	}
	p := m.Phases[0]
	if p.TargetRate != 300 || p.Completed != 5 || p.Ops["read"].Count != 5 || p.Ops["read"].Latency.Count != 5 {
		t.Fatalf("merged phase %+v", p.Result)
	}
	if m.SLO.Passed || p.SLO.Checks[0].Passed || p.SLO.Checks[0].Actual < 0.00499 {
		t.Fatalf("merged p99 check %+v", p.SLO.Checks)
	}
	if txt := m.Text(); !strings.Contains(txt, "merged 3 shards") || !strings.Contains(txt, "shard 1/3: target 100 ops/s") {
		t.Fatal(txt)
	}

	for _, c := range []struct {
		dirs []string
		want string
	}{
		{[]string{d("a0"), d("a2")}, "shard 1/3 missing"},
		{[]string{d("a0")}, "shards 1/3, 2/3 missing"},
		{[]string{d("a0"), d("a1"), d("a1"), d("a2")}, "shard 1/3 given twice"},
		{[]string{d("a0"), d("b1"), d("a2")}, "different scenarios"},
		{[]string{d("a0"), d("c1"), d("a2")}, "different shard counts"},
		{[]string{d("a0"), d("zz"), d("a2")}, "shard 1/3 missing (" + d("zz") + ": no such run directory)"},
	} {
		_, err := MergeRunDirs(c.dirs)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err %v, want %q", c.dirs, err, c.want)
		}
	}
}

// writeCheckedShard writes a shard's run directory whose one phase has
// the given check (as a summary.json of any soakd version would hold
// it) and capacity outcome, with latencies lat (ns) of op read.
func writeCheckedShard(t *testing.T, dir string, i, n int, kind scenarios.PhaseKind, held *float64, c rundir.Check, lat []int64) {
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
	writeHists(t, dir, "p", set)
	pr := rundir.PhaseResult{Name: "p", Kind: kind}
	result(&pr.Result, set, uint64(len(lat)))
	if held != nil {
		pr.Capacity = &rundir.CapacityResult{HighestRateHeld: *held}
		pr.TargetRate = *held
	}
	c.Phase = "p"
	pr.SLO = &rundir.Verdict{Passed: c.Passed, Checks: []rundir.Check{c}}
	s := &rundir.Summary{SchemaVersion: rundir.SchemaVersion, Scenario: "sc", Shard: rundir.Shard{Index: i, Count: n}, Status: rundir.StatusCompleted, Phases: []rundir.PhaseResult{pr}}
	if err := WriteRunDir(dir, s); err != nil {
		t.Fatal(err)
	}
}

// TestMergedVerdicts: the shard merge judges each check by its own kind
// and at its exact percentile. Before: a capacity phase where no shard
// held any rate merged to PASSED (0 >= 0), and p95 was judged at p90.
func TestMergedVerdicts(t *testing.T) {
	t.Parallel()
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
	capCheck := rundir.Check{What: "highest_rate_held", Limit: 0}
	for _, tc := range []struct {
		name   string
		kind   scenarios.PhaseKind
		held   [2]*float64
		check  rundir.Check
		passed bool
	}{
		{"capacity none held", scenarios.PhaseCapacity, [2]*float64{&zero, &zero}, capCheck, false},
		{"capacity one held", scenarios.PhaseCapacity, [2]*float64{&some, &zero}, capCheck, true},
		{"p95 above limit", scenarios.PhaseSteady, [2]*float64{}, rundir.Check{Op: "read", What: "latency p95", Limit: 0.093, Passed: true}, false},
		{"p95 under limit", scenarios.PhaseSteady, [2]*float64{}, rundir.Check{Op: "read", What: "latency p95", Limit: 0.096, Passed: true}, true},
		{"p42 under limit", scenarios.PhaseSteady, [2]*float64{}, rundir.Check{Op: "read", What: "latency p42", Limit: 0.045, Passed: false}, true},
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
