package metrics

import (
	"testing"

	"github.com/soakd/soakd/scenarios"
)

// TestWindowMergeRecordsBucketsInUse: merging an interval's window into
// the run's totals costs one record per bucket the interval used, here
// 3 values in each of latency, service and lag, where hdr's Merge walks
// every bucket up to the window's maximum (~24,000 up to 1 h). The
// totals are the same as hdr's.
func TestWindowMergeRecordsBucketsInUse(t *testing.T) {
	ops := []scenarios.Op{scenarios.OpGet, scenarios.OpSet}
	rec := NewRecorder(ops)
	want := NewSet(ops)
	for _, v := range []int64{2000, 7_000_000, HighestNs} {
		rec.Record(scenarios.OpGet, v, v, v, 0)
		_ = want.Ops[scenarios.OpGet].Latency.RecordValue(v)
		_ = want.Ops[scenarios.OpGet].Service.RecordValue(v)
		_ = want.Lag.RecordValue(v)
	}
	window := NewWindowSet(ops)
	rec.Drain(window)
	total := NewSet(ops)
	if got := total.mergeMirror(window, nil); got != 9 {
		t.Fatalf("merge recorded %d buckets, want 9 (3 each in latency, service, lag)", got)
	}
	g := total.Ops[scenarios.OpGet]
	if !g.Latency.Equals(want.Ops[scenarios.OpGet].Latency) || !g.Service.Equals(want.Ops[scenarios.OpGet].Service) || !total.Lag.Equals(want.Lag) {
		t.Fatal("merged totals differ from hdr's")
	}
	if g.Count != 3 || total.Ops[scenarios.OpSet].Count != 0 || total.Ops[scenarios.OpSet].Latency.TotalCount() != 0 {
		t.Fatalf("counts get %d set %d, want 3 and 0", g.Count, total.Ops[scenarios.OpSet].Count)
	}
	// Pause runs after each op's pair of histograms.
	pauses := 0
	NewSet(ops).MergePaused(window, func() { pauses++ })
	if pauses != 1 {
		t.Fatalf("%d pauses merging one op with values, want 1", pauses)
	}
}

// TestWindowSyncRebuilds: a reused window's histograms hold exactly the
// current interval after Sync (the last interval's values are gone,
// also from an op that had none this time), and merging a warmup
// window into it shows in them too.
func TestWindowSyncRebuilds(t *testing.T) {
	ops := []scenarios.Op{scenarios.OpGet, scenarios.OpSet}
	rec := NewRecorder(ops)
	window := NewWindowSet(ops)
	rec.Record(scenarios.OpGet, 5000, 4000, 1000, 0)
	rec.Drop(scenarios.OpGet, 2, 9_000_000)
	rec.Drain(window)
	window.Sync(nil)
	g := window.Ops[scenarios.OpGet]
	if g.Latency.TotalCount() != 1 || g.Latency.Max() < 5000 || window.Lag.TotalCount() != 3 || g.Dropped != 2 {
		t.Fatalf("first interval: latency %d values max %d, lag %d, dropped %d; want 1, 5000, 3, 2",
			g.Latency.TotalCount(), g.Latency.Max(), window.Lag.TotalCount(), g.Dropped)
	}

	window.Reset()
	rec.Record(scenarios.OpSet, 800_000, 700_000, 3000, 0)
	rec.Drain(window)
	warm := NewWindowSet(ops)
	wrec := NewRecorder(ops)
	wrec.Record(scenarios.OpSet, 1_000_000, 900_000, 2000, 0)
	wrec.Drain(warm)
	window.Merge(warm)
	pauses := 0
	window.Sync(func() { pauses++ })
	g, s := window.Ops[scenarios.OpGet], window.Ops[scenarios.OpSet]
	if g.Latency.TotalCount() != 0 || g.Service.TotalCount() != 0 || g.Count != 0 || g.Dropped != 0 {
		t.Fatalf("second interval: get kept %d latency values, count %d, dropped %d from the first", g.Latency.TotalCount(), g.Count, g.Dropped)
	}
	if s.Latency.TotalCount() != 2 || s.Latency.Min() > 800_000 || s.Latency.Max() < 1_000_000 || s.Count != 2 {
		t.Fatalf("second interval: set latency %d values [%d, %d], count %d; want 2 in [800us, 1ms]",
			s.Latency.TotalCount(), s.Latency.Min(), s.Latency.Max(), s.Count)
	}
	if window.Lag.TotalCount() != 2 || window.Lag.Max() > 4000 {
		t.Fatalf("second interval: lag %d values max %d, want 2 up to 3us", window.Lag.TotalCount(), window.Lag.Max())
	}
	if pauses != 2 {
		t.Fatalf("%d pauses in Sync of 2 ops, want 2", pauses)
	}
	// A synced window is not rebuilt again.
	window.Sync(func() { pauses++ })
	if pauses != 2 {
		t.Fatal("Sync rebuilt a window that had not changed")
	}
}
