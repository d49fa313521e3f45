package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/soakd/soakd/internal/testutil"
	"github.com/soakd/soakd/report"
	"github.com/soakd/soakd/rundir"
)

// TestReplayReportDrawsTheCapturesShape runs a replay of a bursty
// capture (300 SETs in its first second, 1 a second for the next 3) on
// the embedded target and opens its report in Chromium: the throughput
// chart's target is the capture's own schedule per bucket (300/s, then
// 1/s), not a flat line at its mean (76/s), and it adds up to the ops
// replayed.
func TestReplayReportDrawsTheCapturesShape(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := 0; i < 300; i++ {
		fmt.Fprintf(&b, "1733350000.%06d [0 127.0.0.1:5000] \"SET\" \"k%d\" \"v\"\n", i*3000, i)
	}
	for i := 1; i <= 3; i++ {
		fmt.Fprintf(&b, "%d.500000 [0 127.0.0.1:5000] \"SET\" \"late%d\" \"v\"\n", 1733350000+i, i)
	}
	write(t, dir, "cap.txt", b.String())
	scen := write(t, dir, "s.yaml", "name: replay-shape\nphases:\n  - {name: replay, kind: replay, source: cap.txt, format: monitor}\n")
	out := filepath.Join(dir, "run")
	s, tl := runTimeline(t, scen, out)
	var thr *report.Plot
	for _, pp := range report.BuildReport(s, tl).Phases {
		for i, pl := range pp.Plots {
			if strings.HasPrefix(pl.Title, "throughput over time") {
				thr = &pp.Plots[i]
			}
		}
	}
	if thr == nil {
		t.Fatalf("no throughput chart (replay %+v)", s.Phases[0].Replay)
	}
	if len(thr.Targets) != 0 {
		t.Errorf("a flat target line: %+v", thr.Targets)
	}
	var sched *report.Series
	for i, sr := range thr.Series {
		if strings.HasPrefix(sr.Name, "scheduled") {
			sched = &thr.Series[i]
		}
	}
	if sched == nil || len(sched.Points) < 4 {
		t.Fatalf("no schedule drawn (source %q): %+v", s.Phases[0].Replay.Source, thr.Series)
	}
	if y := sched.Points[0].Y; y != 300 {
		t.Errorf("first bucket scheduled %v ops/s, want the capture's 300", y)
	}
	total := 0.0
	for i, pt := range sched.Points {
		w := 1.0
		if i == len(sched.Points)-1 {
			w = 2 * (pt.X - float64(i))
		}
		total += pt.Y * w
	}
	if math.Abs(total-303) > 0.5 {
		t.Errorf("the schedule adds up to %.1f ops, the capture holds 303", total)
	}
	page := filepath.Join(dir, "report.html")
	if err := os.WriteFile(page, report.ReportHTML([]*rundir.Summary{s}, []*report.Timeline{tl}), 0o644); err != nil {
		t.Fatal(err)
	}
	d, _ := testutil.Chromium(t, page, 0)
	if !strings.Contains(d, "scheduled (the capture's timing)</text>") && !strings.Contains(d, "scheduled (the capture&#39;s timing)</text>") {
		t.Errorf("the rendered report has no schedule in its legend")
	}
}
