package report

import (
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
)

// failedRun is a 10 s steady phase "soak" of read at 100 ops/s, 2.048 ms
// each, except in the seconds failing: there every op failed fast
// (1 us), as when the server is gone.
type failedRun struct {
	start   time.Time
	failing map[int]bool
}

func (f failedRun) log(t *testing.T) []byte {
	return writeLog(t, f.start, 10, []string{"read"}, func(_ string, i int) (int, int64, int64, int) {
		if f.failing[i] {
			return 100, 1000, 1000, 0
		}
		return 100, ms2, ms2, 0
	})
}

func (f failedRun) counts() []byte {
	b := []byte(rundir.CountsHeader)
	for i := 0; i < 10; i++ {
		c := rundir.IntervalCount{Phase: "soak", Op: "read", StartMs: f.start.Add(time.Duration(i) * time.Second).UnixMilli(),
			EndMs: f.start.Add(time.Duration(i+1) * time.Second).UnixMilli(), Ops: 100}
		if f.failing[i] {
			c.Errors = 100
		}
		b = rundir.AppendCount(b, c)
	}
	return b
}

// write writes the run's directory: summary, histograms.hlog,
// latency.hlog and counts.csv.
func (f failedRun) write(t *testing.T, dir string, shard rundir.Shard) *rundir.Summary {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	s := soakSummary(f.start, 10, 0, "read")
	s.SchemaVersion, s.Shard = rundir.SchemaVersion, shard
	set := metrics.NewSet([]scenarios.Op{scenarios.OpRead})
	set.Ops[scenarios.OpRead].Latency.RecordValue(ms2)
	set.Ops[scenarios.OpRead].Service.RecordValue(ms2)
	set.Ops[scenarios.OpRead].Count = 1
	writeHists(t, dir, "soak", set)
	for name, data := range map[string][]byte{rundir.LatencyLog: f.log(t), rundir.CountsFile: f.counts()} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := WriteRunDir(dir, s); err != nil {
		t.Fatal(err)
	}
	return s
}

// checkFailedBuckets: the read p99 panel draws no point in the buckets
// whose ops all failed (a break there instead), and the avg p99 is the
// mean over the other buckets only: all at 2.048 ms, 8 of them.
func checkFailedBuckets(t *testing.T, p *rundir.PhaseResult, tl *Timeline, failing ...float64) {
	t.Helper()
	ot := p.Ops["read"].OverTime
	if ot == nil || ot.Buckets != 8 || math.Abs(ot.MeanP99-ns2ms*1e-9) > 1e-12 || math.Abs(ot.WorstP99-ns2ms*1e-9) > 1e-12 {
		t.Errorf("over_time %+v: want the mean of 8 buckets of %d ns, the failure-only ones left out", ot, ns2ms)
	}
	var panel *Plot
	plots := timelinePlots(p, tl)
	for i := range plots {
		if plots[i].Title == "read latency over time: p99 per 1s (from intended start)" {
			panel = &plots[i]
		}
	}
	if panel == nil || len(panel.Series) == 0 {
		t.Fatalf("no read p99 panel in %d plots", len(plots))
	}
	sr := panel.Series[0]
	if len(sr.Points) != 8 || len(sr.Breaks) != len(failing) {
		t.Errorf("read p99: %d points, breaks %v; want 8 points and breaks at %v", len(sr.Points), sr.Breaks, failing)
	}
	for _, pt := range sr.Points {
		for _, x := range failing {
			if pt.X == x {
				t.Errorf("read p99 drawn at %gs (%g s), a bucket of failures alone", pt.X, pt.Y)
			}
		}
	}
}

// A single run: FillOverTime (what FinishRun writes into summary.json)
// reads counts.csv and leaves the failure-only buckets out of avg p99.
func TestOverTimeLeavesOutFailedBuckets(t *testing.T) {
	dir := t.TempDir()
	f := failedRun{start: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), failing: map[int]bool{6: true, 7: true}}
	s := f.write(t, dir, rundir.Shard{})
	if err := FillOverTime(dir, s); err != nil {
		t.Fatal(err)
	}
	tl, err := ReadTimeline(dir, s)
	if err != nil {
		t.Fatal(err)
	}
	checkFailedBuckets(t, &s.Phases[0], tl, 6.5, 7.5)

	// Killed: the logs are .partial, counts.csv torn in its last line.
	// Its failed ops are still no latency.
	if err := os.Rename(filepath.Join(dir, rundir.LatencyLog), filepath.Join(dir, rundir.PartialLog)); err != nil {
		t.Fatal(err)
	}
	torn := append(f.counts(), "soak,read,17"...)
	if err := os.WriteFile(filepath.Join(dir, rundir.CountsFile+rundir.PartialSuffix), torn, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, rundir.CountsFile))
	if tl, err = ReadTimeline(dir, s); err != nil {
		t.Fatal(err)
	}
	checkFailedBuckets(t, &s.Phases[0], tl, 6.5, 7.5)
}

// A merge of shards draws failed ops as the single run does: seconds
// 6-7 failed on both shards (no latency drawn, no part of avg p99);
// second 3 failed on one shard only, so its bucket still has the other
// shard's latency (drawn: 2.048 ms, the merged p99).
func TestMergedTimelineLeavesOutFailedBuckets(t *testing.T) {
	base := t.TempDir()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	failedRun{start: start, failing: map[int]bool{6: true, 7: true}}.write(t, filepath.Join(base, "s0"), rundir.Shard{Index: 0, Count: 2})
	failedRun{start: start, failing: map[int]bool{3: true, 6: true, 7: true}}.write(t, filepath.Join(base, "s1"), rundir.Shard{Index: 1, Count: 2})
	m, err := MergeRunDirs([]string{filepath.Join(base, "s0"), filepath.Join(base, "s1")})
	if err != nil {
		t.Fatal(err)
	}
	tl, err := m.Timeline()
	if err != nil {
		t.Fatal(err)
	}
	pts := tl.Phases["soak"]["read"]
	if len(pts) != 10 || pts[3].Count != 200 || pts[3].Errors != 100 || pts[6].Errors != 200 {
		t.Fatalf("merged buckets %+v", pts)
	}
	checkFailedBuckets(t, &m.Phases[0], tl, 6.5, 7.5)
}
