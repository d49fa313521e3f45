package report

import (
	"math"
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

var mergeT0 = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

func f64(v float64) *float64 { return &v }

// writeLatencyLog writes latency.hlog with one read interval per second
// of [start, start+n s), every value v ns.
func writeLatencyLog(t *testing.T, dir, phase string, start time.Time, n int, v int64) {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, rundir.LatencyLog))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lw := hdr.NewHistogramLogWriter(f)
	_ = lw.OutputLogFormatVersion()
	base := mergeT0.UnixMilli()
	_ = lw.OutputStartTime(base)
	_ = lw.OutputBaseTime(base)
	lw.SetBaseTime(base)
	_ = lw.OutputLegend()
	for i := 0; i < n; i++ {
		for _, kind := range []string{"latency", "service"} {
			h := metrics.NewHist()
			for j := 0; j < 100; j++ {
				h.RecordValue(v)
			}
			h.SetTag(phase + ".read." + kind)
			h.SetStartTimeMs(start.Add(time.Duration(i) * time.Second).UnixMilli())
			h.SetEndTimeMs(start.Add(time.Duration(i+1) * time.Second).UnixMilli())
			if err := lw.OutputIntervalHistogram(h); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// partsShard writes shard i of 2: a steady phase with a persistence
// event and latency.hlog (every read v ns), a growth phase whose one
// stage has records, memory, server stats, a batch load and per-op
// figures, and a capacity sweep of points a and b.
func partsShard(t *testing.T, dir string, i int, url string, v int64) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	k := float64(i + 1) // shard 0: x1, shard 1: x2
	start := mergeT0.Add(time.Duration(i) * time.Second)
	set := metrics.NewSet([]scenarios.Op{scenarios.OpRead})
	for j := 0; j < 100; j++ {
		set.Ops[scenarios.OpRead].Latency.RecordValue(v)
		set.Ops[scenarios.OpRead].Service.RecordValue(v)
		set.Ops[scenarios.OpRead].Count++
	}
	writeHists(t, dir, "steady", set)
	writeLatencyLog(t, dir, "steady", start, 10, v)
	steady := rundir.PhaseResult{Name: "steady", Kind: scenarios.PhaseSteady, Start: start, End: start.Add(10 * time.Second)}
	result(&steady.Result, set, 100)
	kind := []string{rundir.PersistBGSave, rundir.PersistAOFRewrite}[i]
	steady.PersistenceEvents = []rundir.PersistenceEvent{{Kind: kind, StartOffsetSeconds: 2, EndOffsetSeconds: 3}}
	steady.Self = &rundir.SelfHealth{Intervals: 10, Cores: 2, CPUMax: 0.2 * k}
	if i == 1 { // shard 1's generator ran out of CPU
		steady.Self.Bound, steady.Self.Reason = rundir.BoundGenerator, "soakd CPU up to 99% of 2 cores"
	}

	stEnd := mergeT0.Add(20*time.Second + time.Duration(i)*time.Second)
	growth := rundir.PhaseResult{Name: "g", Kind: scenarios.PhaseGrowth, Start: mergeT0.Add(11 * time.Second), End: stEnd,
		Stages: []rundir.StageResult{{Name: "stage-1", Start: mergeT0.Add(11 * time.Second), End: stEnd,
			Records: int64(1000 * k), Server: map[string]float64{"used_memory_bytes": 1e6 * k, "mem_fragmentation_ratio": 1.5},
			Memory: &rundir.StageMemory{UsedBytes: f64(1e6 * k), RSSBytes: f64(2e6 * k)},
			Load:   &rundir.Result{AchievedRate: 100 * k, Completed: int64(100 * k)},
			PerOp:  map[string]*rundir.Result{"read": {AchievedRate: 50 * k, Completed: int64(50 * k)}}}}}
	if i == 1 {
		growth.Cliff = &rundir.Cliff{Stage: "stage-1", StageIndex: 1, Reason: "p99"}
	}
	point := func(label string, held float64) rundir.SweepPoint {
		return rundir.SweepPoint{Label: label, HighestRateHeld: f64(held * k), AchievedOpsPerSec: held * k, Completed: int64(10 * k),
			Ops: map[string]rundir.SweepOp{"read": {Count: int64(10 * k), P0: 0.0001 * k, P50: 0.0005 * k, P99: 0.001 * k}}}
	}
	sweep := rundir.PhaseResult{Name: "sw", Kind: scenarios.PhaseSweep, Start: stEnd, End: stEnd.Add(time.Second),
		Sweep: &rundir.SweepResult{Over: "rate", Measure: scenarios.MeasureCapacity, Points: []rundir.SweepPoint{point("a", 100), point("b", 200)}}}
	s := &rundir.Summary{SchemaVersion: rundir.SchemaVersion, Scenario: "sc", Shard: rundir.Shard{Index: i, Count: 2}, Status: rundir.StatusCompleted,
		Target: rundir.TargetInfo{Kind: "redis", URL: url}, Start: start, End: stEnd.Add(time.Second), Phases: []rundir.PhaseResult{steady, growth, sweep}}
	if err := WriteRunDir(dir, s); err != nil {
		t.Fatal(err)
	}
}

func mergeParts(t *testing.T, url0, url1 string) *Merged {
	t.Helper()
	base := t.TempDir()
	dirs := []string{filepath.Join(base, "s0"), filepath.Join(base, "s1")}
	partsShard(t, dirs[0], 0, url0, 1_000_000)
	partsShard(t, dirs[1], 1, url1, 3_000_000)
	m, err := MergeRunDirs(dirs)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func near(a, b float64) bool { return math.Abs(a-b) <= 0.01*math.Abs(b) }

// TestMergeKeepsWhatASingleRunShows: a merge of two shards keeps growth
// memory, records, batch load and per-op figures, persistence events,
// over_time, the growth cliff and every capacity sweep point.
func TestMergeKeepsWhatASingleRunShows(t *testing.T) {
	t.Parallel()
	same := mergeParts(t, "redis://h:6379", "redis://h:6379")
	apart := mergeParts(t, "", "")
	stage := func(m *Merged) rundir.StageResult { return m.Phases[1].Stages[0] }
	for _, c := range []struct {
		name string
		ok   func() bool
		got  func() any
	}{
		{"records: the most any shard saw", func() bool { return stage(same).Records == 2000 }, func() any { return stage(same).Records }},
		{"memory, one store: the last-ended shard's reading", func() bool {
			m := stage(same).Memory
			return m != nil && m.UsedBytes != nil && *m.UsedBytes == 2e6 && *m.RSSBytes == 4e6 && stage(same).Server["used_memory_bytes"] == 2e6
		}, func() any { return stage(same).Memory }},
		{"memory, separate stores: summed", func() bool {
			m := stage(apart).Memory
			return m != nil && m.UsedBytes != nil && *m.UsedBytes == 3e6 && *m.RSSBytes == 6e6 && m.SwapBytes == nil &&
				stage(apart).Server["used_memory_bytes"] == 3e6 && stage(apart).Server["mem_fragmentation_ratio"] == 0
		}, func() any { return stage(apart).Memory }},
		{"batch load summed", func() bool { l := stage(same).Load; return l != nil && l.AchievedRate == 300 && l.Completed == 300 },
			func() any { return stage(same).Load }},
		{"per-op summed", func() bool { p := stage(same).PerOp["read"]; return p != nil && p.AchievedRate == 150 },
			func() any { return stage(same).PerOp }},
		{"self: the bound shard's, named", func() bool {
			h := same.Phases[0].Self
			return h != nil && h.Bound == rundir.BoundGenerator && h.Reason == "shard 1/2: soakd CPU up to 99% of 2 cores"
		}, func() any { return same.Phases[0].Self }},
		{"cliff kept", func() bool { c := same.Phases[1].Cliff; return c != nil && c.Stage == "stage-1" },
			func() any { return same.Phases[1].Cliff }},
		{"persistence events: union, shard-tagged, from the merged start", func() bool {
			ev := same.Phases[0].PersistenceEvents
			return len(ev) == 2 && ev[0].Shard == "0/2" && ev[0].Kind == rundir.PersistBGSave && ev[0].StartOffsetSeconds == 2 &&
				ev[1].Shard == "1/2" && ev[1].Kind == rundir.PersistAOFRewrite && ev[1].StartOffsetSeconds == 3 && ev[1].EndOffsetSeconds == 4
		}, func() any { return same.Phases[0].PersistenceEvents }},
		{"over_time from the merged buckets", func() bool {
			ot := same.Phases[0].Ops["read"].OverTime
			// Every merged 1 s bucket but the first holds shard 1's 3 ms reads.
			return ot != nil && ot.Buckets >= 10 && ot.MeanP99 > 0.0025 && ot.MeanP99 < 0.0031
		}, func() any { return same.Phases[0].Ops["read"].OverTime }},
		{"capacity sweep: every point merged", func() bool {
			pts := same.Phases[2].Sweep.Points
			return len(pts) == 2 && pts[0].Label == "a" && *pts[0].HighestRateHeld == 300 && pts[0].AchievedOpsPerSec == 300 &&
				pts[0].Completed == 30 && pts[0].Ops["read"].Count == 30 && near(pts[0].Ops["read"].P99, 0.002) && near(pts[0].Ops["read"].P0, 0.0001) &&
				pts[1].Label == "b" && *pts[1].HighestRateHeld == 600
		}, func() any { return same.Phases[2].Sweep.Points }},
	} {
		if !c.ok() {
			t.Errorf("%s: got %+v", c.name, c.got())
		}
	}
	txt := same.Text()
	for _, want := range []string{"2000 records", "used_memory 2.0 MB", "load 300 ops/s", "alone read 150 ops/s",
		"bgsave +2.0s..+3.0s (shard 0/2)", "aof_rewrite +3.0s..+4.0s (shard 1/2)", "avg p99 over the run", "CLIFF at stage-1", "600 ops/s"} {
		if !strings.Contains(txt, want) {
			t.Errorf("merged text lacks %q:\n%s", want, txt)
		}
	}
}

// A merged capacity phase keeps its outcome: the rates held summed,
// every shard's probes tagged with it.
func TestMergeKeepsCapacityOutcome(t *testing.T) {
	base := t.TempDir()
	dirs := []string{filepath.Join(base, "s0"), filepath.Join(base, "s1")}
	check := rundir.Check{What: "highest_rate_held", Limit: 0}
	writeCheckedShard(t, dirs[0], 0, 2, scenarios.PhaseCapacity, f64(400), check, []int64{1000})
	writeCheckedShard(t, dirs[1], 1, 2, scenarios.PhaseCapacity, f64(300), check, []int64{1000})
	for i, d := range dirs {
		s, err := rundir.ReadSummary(d)
		if err != nil {
			t.Fatal(err)
		}
		s.Phases[0].Capacity.Curve = []rundir.CapacityPoint{{Rate: 100 * float64(i+1), Passed: true}}
		if err := WriteRunDir(d, s); err != nil {
			t.Fatal(err)
		}
	}
	m, err := MergeRunDirs(dirs)
	if err != nil {
		t.Fatal(err)
	}
	c := m.Phases[0].Capacity
	if c == nil || c.HighestRateHeld != 700 || len(c.Curve) != 2 || c.Curve[0].Shard != "0/2" || c.Curve[1].Shard != "1/2" {
		t.Fatalf("merged capacity %+v", c)
	}
	if txt := m.Text(); !strings.Contains(txt, "capacity: highest rate held 700 ops/s (2 probes)") || !strings.Contains(txt, "(shard 1/2)") {
		t.Errorf("merged text:\n%s", txt)
	}
}
