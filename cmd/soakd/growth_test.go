package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/soakd/soakd/report"
	"github.com/soakd/soakd/rundir"

	"github.com/soakd/soakd/internal/testutil"
)

// TestGrowthMatrixAndHTMLReport: soakd run reopens the managed target per
// persistence variant (App provides engine.Options.Reopen), and soakd
// report --html writes a page from the run directory alone.
func TestGrowthMatrixAndHTMLReport(t *testing.T) {
	testutil.NeedTool(t, "redis-server")
	dir := t.TempDir()
	sc := write(t, dir, "g.yaml", `
name: cli-growth
target: {kind: redis, managed: {persistences: ["rdb:300", none]}}
keyspace: {records: 10000}
record: {fields: 1, field_bytes: 100}
phases:
  - {name: grow, kind: growth, concurrency: 2, mix: {get: 90, set: 10}, growth: {batch: 500, measure_rate: 400, measure_for: 1500ms, stop_records: 1000}}
`)
	// measure_for 1500ms: each variant's gets span at least two 1 s
	// buckets of latency.hlog, so its latency-over-time plot has two
	// points whatever the host's timing (with 300 ms both stages' gets
	// could fall in one bucket, and the plot was left out).
	run := filepath.Join(dir, "run")
	a, _, errb := newApp()
	if code := a.Main(context.Background(), []string{"run", sc, "--out", run, "--listen", "", "--quiet"}); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, errb)
	}
	// rdb:300 in a 3 s variant never snapshots: a warning with its
	// place and a scaled value, in run and in validate, and both go on.
	warn := sc + ":3: target.managed.persistences[0]: warning: rdb:300 snapshots 300 s after the last save, but the phases are scheduled for 3 s per variant: the snapshot may never fire; scaled to this run, use rdb:1"
	if !strings.Contains(errb.String(), "soakd run: "+warn+"\n") {
		t.Errorf("run's stderr lacks %q:\n%s", warn, errb)
	}
	va, vout, verrb := newApp()
	if code := va.Main(context.Background(), []string{"validate", sc}); code != 0 || verrb.String() != warn+"\n" || vout.String() != sc+": ok\n" {
		t.Errorf("validate: exit %d, stdout %q, stderr %q; want 0, ok and the warning", code, vout, verrb)
	}
	s, err := rundir.ReadSummary(run)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Phases) != 2 || s.Phases[0].Name != "grow[rdb:300]" || s.Phases[1].Name != "grow[none]" {
		t.Fatalf("phases: %d %+v", len(s.Phases), s.Phases)
	}
	for _, p := range s.Phases {
		if n := len(p.Stages); n != 2 || p.Stages[1].Server["keys"] != 1000 {
			t.Errorf("%s: %d stages, keys %v", p.Name, n, p.Stages[n-1].Server["keys"])
		}
	}
	page := filepath.Join(dir, "report.html")
	a, out, errb := newApp()
	if code := a.Main(context.Background(), []string{"report", run, "--html", page}); code != 0 {
		t.Fatalf("report: exit %d\n%s", code, errb)
	}
	h, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	// 8 plots per variant (throughput over time, one p99-over-time panel
	// per op, and 5 per-stage and spectrum charts) plus the side-by-side section's get p99, set
	// p99, batch insert rate and each variant's memory; no miss-ratio
	// plot (reads cover only loaded records). Compared as a sorted list
	// of titles.
	perVariant := []string{"throughput over time: ops/s per 1s bucket (completed)",
		"get latency over time: p99 per 1s (from intended start)", "set latency over time: p99 per 1s (from intended start)",
		"latency per stage (from intended start)",
		"achieved rate per stage", "batch insert rate per stage", "memory per stage", "latency percentile spectrum (from intended start)"}
	want := append(append(append([]string{}, perVariant...), perVariant...),
		"get p99 per stage, by persistence", "set p99 per stage, by persistence", "batch insert rate per stage, by persistence",
		"memory per stage: rdb:300", "memory per stage: none")
	got := plotTitles(string(h))
	slices.Sort(want)
	slices.Sort(got)
	if !strings.Contains(string(h), "phase grow[none] (growth)") || !strings.Contains(string(h), "phase grow: persistence variants side by side") ||
		!slices.Equal(got, want) || strings.Count(string(h), "<svg ") != len(want) || strings.Contains(string(h), "<script") {
		t.Errorf("report.html: %d plots %q, want %q\n%s", strings.Count(string(h), "<svg "), got, want, report.Text(s))
	}
	if !strings.Contains(out.String(), "phase grow[rdb:300]") {
		t.Errorf("report text:\n%s", out)
	}
}

// plotTitles lists the titles of the plots in an HTML report.
func plotTitles(h string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`font-weight="bold">([^<]*)</text>`).FindAllStringSubmatch(h, -1) {
		out = append(out, m[1])
	}
	return out
}
