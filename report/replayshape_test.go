package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/soakd/soakd/capture"
	"github.com/soakd/soakd/rundir"
)

// TestReplayTargetIsTheCapturesShape: a capture of 10 ops in its first
// second and 2 in its next three (12 ops over 3.5 s, mean 3.14 ops/s)
// is drawn as its own schedule, 10/s then 2/s... per bucket, with no
// flat line at the mean: a replay that kept to its capture does not
// look short.
func TestReplayTargetIsTheCapturesShape(t *testing.T) {
	var e []capture.Entry
	for i := 0; i < 10; i++ {
		e = append(e, capture.Entry{TS: int64(i) * int64(100*time.Millisecond)})
	}
	e = append(e, capture.Entry{TS: int64(1500 * time.Millisecond)}, capture.Entry{TS: int64(3500 * time.Millisecond)})
	r := &rundir.ReplayResult{Ops: 12, SpanSeconds: 3.5}
	pts := scheduleBuckets(e, r, 3600*time.Millisecond, time.Second)
	want := []Point{{X: 0.5, Y: 10}, {X: 1.5, Y: 1}, {X: 2.5, Y: 0}, {X: 3.3, Y: 1 / 0.6}}
	if len(pts) != len(want) {
		t.Fatalf("schedule %+v, want %+v", pts, want)
	}
	for i := range want {
		if pts[i].X != want[i].X || pts[i].Y != round6(want[i].Y) {
			t.Errorf("bucket %d: %+v, want %+v", i, pts[i], want[i])
		}
	}
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	p := &rundir.PhaseResult{Name: "replay", Kind: "replay", Start: start, End: start.Add(3600 * time.Millisecond),
		Result: rundir.Result{TargetRate: 11 / 3.5}, Replay: r}
	if !replayTimed(p) {
		t.Fatalf("a replay at its capture's mean rate is not taken as timed")
	}
	var tps []TimePoint
	for i, n := range []int64{10, 1, 0, 1} {
		if n > 0 {
			tps = append(tps, TimePoint{At: start.Add(time.Duration(i) * time.Second), Count: n, P99: 1e-3})
		}
	}
	tl := &Timeline{Width: map[string]time.Duration{"replay": time.Second}, Phases: map[string]map[string][]TimePoint{"replay": {"get": tps}},
		Scheduled: map[string][]Point{"replay": pts}}
	thr := timelinePlots(p, tl)[0]
	if len(thr.Targets) != 0 {
		t.Errorf("a flat target line %+v", thr.Targets)
	}
	last := thr.Series[len(thr.Series)-1]
	if !strings.HasPrefix(last.Name, "scheduled") || len(last.Points) != 4 {
		t.Errorf("no schedule drawn: %+v", thr.Series)
	}
	// Without the capture: no line at all, and a note saying why.
	tl.Scheduled = nil
	if thr := timelinePlots(p, tl)[0]; len(thr.Targets) != 0 || len(thr.Series) != 1 {
		t.Errorf("without the capture: targets %+v, series %d", thr.Targets, len(thr.Series))
	}
	s := &rundir.Summary{Phases: []rundir.PhaseResult{*p}}
	if n := strings.Join(BuildReport(s, tl).Phases[0].Notes, "\n"); !strings.Contains(n, "the capture's own timing") {
		t.Errorf("notes %q", n)
	}
	if r := rateSummary(s); r != "the capture's own timing (replay)" {
		t.Errorf("header rate %q, want the capture's timing, not its mean", r)
	}
	// A fixed rate is a flat target.
	p.TargetRate = 50
	if replayTimed(p) {
		t.Errorf("a replay at a fixed 50 ops/s taken as timed")
	}
}

// TestReplayScheduleFromCapture reads a MONITOR capture back.
func TestReplayScheduleFromCapture(t *testing.T) {
	src := filepath.Join(t.TempDir(), "cap.txt")
	lines := `1700000000.000000 [0 127.0.0.1:1] "SET" "a" "1"
1700000000.500000 [0 127.0.0.1:1] "GET" "a"
1700000001.500000 [0 127.0.0.1:1] "GET" "a"
`
	if err := os.WriteFile(src, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	p := &rundir.PhaseResult{Name: "replay", Kind: "replay", Start: start, End: start.Add(2 * time.Second),
		Result: rundir.Result{TargetRate: 2 / 1.5}, Replay: &rundir.ReplayResult{Source: src, Format: "monitor", Ops: 3, SpanSeconds: 1.5}}
	pts := replaySchedule(p, "redis", time.Second)
	if len(pts) != 2 || pts[0].Y != 2 || pts[1].Y != 1 {
		t.Errorf("schedule %+v, want 2/s then 1/s", pts)
	}
	p.Replay.Ops = 4 // the capture changed since the run
	if pts := replaySchedule(p, "redis", time.Second); pts != nil {
		t.Errorf("a capture that no longer matches the run drawn: %+v", pts)
	}
}
