package engine

import (
	"bytes"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/report"
)

// TestTimelineShowsStallsAndStages: the latency-over-time plot of a run
// whose store stalls 200 ms every second shows the stall in the p99 of any
// two seconds running, accounts for every op, and marks each growth stage.
func TestTimelineShowsStallsAndStages(t *testing.T) {
	sc := scenario(t, `
target: {kind: embedded, embedded: {stall_every: 1s, stall_for: 200ms}}
keyspace: {records: 100000}
record: {fields: 1, field_bytes: 16}
phases:
  - {name: grow, kind: growth, concurrency: 2, mix: {get: 90, set: 10}, growth: {batch: 300, measure_rate: 300, measure_for: 1s, stop_records: 900, after_cliff: -1}}
  - {name: steady, kind: steady, rate: 500, duration: 3s, concurrency: 4, mix: {get: 100}}
`)
	// after_cliff: -1: every measuring second holds a 200 ms stall, so the
	// achieved rate may fall below 95% in two stages running (a rate
	// cliff, more so on a busy host); the stage marks need all three.
	sum, dir := runEmbedded(t, sc)
	tl, err := report.ReadTimeline(dir, sum)
	if err != nil {
		t.Fatal(err)
	}
	// Interval times read back from latency.hlog are the true ones: the
	// first interval of a phase starts at its start, not up to a second
	// before (a whole-second BaseTime line with millisecond offsets).
	for _, p := range sum.Phases {
		for op, tps := range tl.Phases[p.Name] {
			if d := tps[0].At.Sub(p.Start); d < -50*time.Millisecond || d > time.Second {
				t.Errorf("%s %s: first interval at %s, phase start %s", p.Name, op, tps[0].At.Format(time.StampMilli), p.Start.Format(time.StampMilli))
			}
		}
	}
	// An interval ends when the collector drained it; a collector a busy
	// host held back for over a second makes one interval of two
	// seconds (its ops all completed in it), so 2 buckets can hold them.
	pts := tl.Phases["steady"]["get"]
	if len(pts) < 2 || len(pts) > 4 || tl.Width["steady"] != time.Second {
		t.Fatalf("steady get: %d points of %s, want 2-4 one-second buckets", len(pts), tl.Width["steady"])
	}
	// An op counts in the bucket it completed in, so a stall that spans
	// a bucket boundary (or began before the phase) shows only in part
	// in either bucket; any two seconds running hold one whole stall,
	// whose ops (about 100 of 1000) put their p99 at 100 ms or more.
	var n int64
	for i, p := range pts {
		n += p.Count
		if i == 0 {
			continue
		}
		q := pts[i-1]
		if p.Count+q.Count >= 200 && max(p.P99, q.P99) < 0.1 {
			t.Errorf("seconds %d-%d: p99 %.3fs and %.3fs hide the 200 ms stall", i-1, i, q.P99, p.P99)
		}
	}
	if want := sum.Phases[1].Ops["get"].Count; n != want {
		t.Errorf("timeline holds %d gets, the summary %d", n, want)
	}
	rd := report.BuildReport(sum, tl)
	var grow report.PhasePlots
	for _, pp := range rd.Phases {
		if pp.Phase == "grow" {
			grow = pp
		}
	}
	if len(grow.Plots) == 0 || grow.Plots[0].XLabel != "seconds since phase start" {
		t.Fatalf("grow plots %+v\n%s", grow.Plots, report.Text(sum))
	}
	var marks []report.Point // stage marks; change marks are tested in report/changes_test.go
	for _, m := range grow.Plots[0].Marks {
		if !strings.HasPrefix(m.Label, "change: ") {
			marks = append(marks, m)
		}
	}
	if len(marks) != 3 || marks[0].Label != "stage-1" || marks[0].X > 0.5 || !(marks[1].X > 1 && marks[2].X > marks[1].X) {
		t.Errorf("stage marks %+v", marks)
	}
}

// TestLatencyLogTimesReadBack: an interval written 10 ms after a start
// late in its second reads back at that time (the BaseTime line has whole
// seconds; offsets must be relative to the same whole second).
func TestLatencyLogTimesReadBack(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 7, 990_000_000, time.UTC)
	var buf bytes.Buffer
	lw := newLatencyLog(&buf, start)
	h := metrics.NewHist()
	_ = h.RecordValue(1000)
	h.SetTag("p.get.latency")
	h.SetStartTimeMs(start.Add(10 * time.Millisecond).UnixMilli())
	h.SetEndTimeMs(start.Add(1010 * time.Millisecond).UnixMilli())
	if err := lw.OutputIntervalHistogram(h); err != nil {
		t.Fatal(err)
	}
	got, err := hdr.NewHistogramLogReader(&buf).NextIntervalHistogram()
	if err != nil || got == nil {
		t.Fatalf("read back: %v", err)
	}
	if want := start.Add(10 * time.Millisecond).UnixMilli(); got.StartTimeMs() != want {
		t.Errorf("interval start %d, written %d (off by %d ms)", got.StartTimeMs(), want, got.StartTimeMs()-want)
	}
}
