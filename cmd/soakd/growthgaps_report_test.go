package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/soakd/soakd/internal/testutil"
	"github.com/soakd/soakd/report"
	"github.com/soakd/soakd/rundir"
)

// TestGrowthGapsStayGaps runs a per-op growth phase on the embedded
// target (each op measured alone for 2 s a stage, two stages, the
// others and the fills between: gaps of 4 s and more, stretches of two
// 1 s buckets and more) and opens its report in Chromium: wherever an op went
// more than 2.5 s without ops its latency line breaks, so each op's
// latency panel has one line per stretch of ops.
func TestGrowthGapsStayGaps(t *testing.T) {
	dir := t.TempDir()
	scen := write(t, dir, "g.yaml", `name: growth-gaps
record: {fields: 1, field_bytes: 100}
keyspace: {records: 30000, prefix: "key:", distribution: uniform}
phases:
  - name: growth
    kind: growth
    concurrency: 4
    mix: {get: 70, set: 20, del: 10}
    growth: {batch: 5000, measure: per_op, measure_for: 6s, stop_records: 10000}
`)
	out := filepath.Join(dir, "run")
	s, tl := runTimeline(t, scen, out)
	p := &s.Phases[0]
	// Each op's stretches: runs of buckets no more than 2.5 s apart;
	// those of two buckets or more are lines (a lone one, a marker).
	want := map[string]int{}
	gaps := 0
	for op, pts := range tl.Phases[p.Name] {
		run := 1
		for i := 1; i <= len(pts); i++ {
			if i < len(pts) && pts[i].At.Sub(pts[i-1].At) <= 2500*time.Millisecond {
				run++
				continue
			}
			if i < len(pts) {
				gaps++
			}
			if run >= 2 {
				want[op]++
			}
			run = 1
		}
	}
	if gaps == 0 {
		t.Fatalf("no op went 2.5 s without ops: the test says nothing")
	}
	page := filepath.Join(dir, "report.html")
	if err := os.WriteFile(page, report.ReportHTML([]*rundir.Summary{s}, []*report.Timeline{tl}), 0o644); err != nil {
		t.Fatal(err)
	}
	d, _ := testutil.Chromium(t, page, 0)
	for op, n := range want {
		title := op + " latency over time"
		var svg string
		for _, sv := range regexp.MustCompile(`(?s)<svg[^>]*class="plot".*?</svg>`).FindAllString(d, -1) {
			if strings.Contains(sv, ">"+title) {
				svg = sv
			}
		}
		if svg == "" {
			t.Errorf("no %q chart", title)
			continue
		}
		// The p99 series is palette[0]; the avg p99 line another colour.
		got := len(regexp.MustCompile(`<polyline class="series"[^>]*stroke="#1f77b4"`).FindAllString(svg, -1))
		if got != n {
			t.Errorf("%s: p99 drawn as %d lines, want %d (its stretches of two buckets or more)", op, got, n)
		}
	}
	t.Logf("%d gaps; lines per op %v", gaps, want)
}
