// Package studytest runs a shipped study scenario briefly against a real
// store (or the store stand-in a target's tests use) through the path
// `soakd run` takes, and checks the figures and charts the study is for.
// It is imported by tests only.
package studytest

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/soakd/soakd/internal/runpath"
	"github.com/soakd/soakd/internal/testutil"
	"github.com/soakd/soakd/report"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/targets"
)

// Short are the overrides a study test runs with: a small dataset and
// short phases and points.
var Short = runpath.Overrides{Records: "300", Duration: "500ms", Warmup: "100ms", Concurrency: 8}

// PointRequests bounds each sweep point of a study test.
const PointRequests = 200

// Run loads the study file, points it at url with the Short overrides
// (sweep points bounded by PointRequests), runs it with runpath (as `soakd run` does) and returns the summary and
// the run directory.
func Run(t *testing.T, file, url string) (*rundir.Summary, string) {
	t.Helper()
	sc, err := targets.LoadScenario(file)
	if err != nil {
		t.Fatal(err)
	}
	o := Short
	o.Target = url
	if probs, err := runpath.Apply(sc, o); err != nil || len(probs) > 0 {
		t.Fatalf("overrides: %v %v", err, probs)
	}
	// Each sweep point is bounded by PointRequests instead of the short
	// duration, so every point has as many ops to check its mix by
	// however fast the host is.
	for i := range sc.Phases {
		if ph := &sc.Phases[i]; ph.Sweep != nil {
			ph.Requests, ph.Duration, ph.Warmup = PointRequests, 0, 0
		}
	}
	if probs := sc.Validate(); len(probs) > 0 {
		t.Fatalf("short sweep: %v", probs)
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	sum, err := runpath.Run(ctx, runpath.Options{Scenario: sc, OutDir: dir, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	return sum, dir
}

// CheckSweep checks the study's update sweep: six points update-0 ..
// update-50 of exactly PointRequests ops, each run with its own mix: search and read reduced in
// proportion, every op's count within 5 binomial deviations (+1) of
// its share of the point's completed ops, no update at update-0, no
// errors (but at 6000 ops/s); and p0 <= p50 <= p99.99 <= max for every
// op of the sustained runs.
func CheckSweep(t *testing.T, sum *rundir.Summary) {
	t.Helper()
	var sweep *rundir.PhaseResult
	for i := range sum.Phases {
		p := &sum.Phases[i]
		// 6000 ops/s may be past what a store on a busy test host
		// holds: its timeouts and drops are the store's figures.
		if p.Errors != 0 && p.Name != "sustained-6000" {
			t.Errorf("phase %s: %d errors %+v", p.Name, p.Errors, p.Ops)
		}
		if p.Name == "update-sweep" {
			sweep = p
		}
		if strings.HasPrefix(p.Name, "sustained-") {
			if p.Completed == 0 {
				t.Errorf("phase %s completed no op", p.Name)
			}
			for op, o := range p.Ops {
				if o.Count > 0 && (o.Latency.Min <= 0 || o.Latency.Min > o.Latency.P50 || o.Latency.P9999 > o.Latency.Max) {
					t.Errorf("phase %s %s: count %d p0 %v p50 %v p99.99 %v max %v", p.Name, op, o.Count, o.Latency.Min, o.Latency.P50, o.Latency.P9999, o.Latency.Max)
				}
			}
		}
	}
	if sweep == nil || sweep.Sweep == nil || len(sweep.Sweep.Points) != 6 {
		t.Fatalf("no six-point update sweep in %+v", sweep)
	}
	if sweep.Sweep.Axis != "update (% of ops)" {
		t.Errorf("sweep axis %q", sweep.Sweep.Axis)
	}
	for j, pt := range sweep.Sweep.Points {
		u := float64(10 * j)
		if pt.X != u {
			t.Errorf("point %s at x %v, want %v", pt.Label, pt.X, u)
		}
		want := map[string]float64{"search": 65 * (100 - u) / 100, "read": 35 * (100 - u) / 100, "update": u}
		if pt.Label != fmt.Sprintf("update-%d", 10*j) {
			t.Errorf("point %d label %q", j, pt.Label)
		}
		n := float64(sweep.Stages[j].Completed)
		if n != PointRequests || pt.Completed != PointRequests || pt.AchievedOpsPerSec <= 0 {
			t.Errorf("point %s: %v ops completed (point %d), %v ops/s; want exactly %d", pt.Label, n, pt.Completed, pt.AchievedOpsPerSec, PointRequests)
			continue
		}
		for op, pct := range want {
			if math.Abs(pt.Mix[op]-pct) > 1e-9 {
				t.Errorf("point %s: mix %v, want %v", pt.Label, pt.Mix, want)
			}
			q := pct / 100
			got := float64(sweep.Stages[j].Ops[op].Count)
			if math.Abs(got-n*q) > 5*math.Sqrt(n*q*(1-q))+1 {
				t.Errorf("point %s: %v %s of %v ops, want %.1f%%", pt.Label, got, op, n, pct)
			}
		}
	}
}

// CheckReport checks summary.txt's sweep table and p0 column, writes
// report.html and renders it in headless Chromium: the DOM holds one
// <svg> per plot, the sweep's throughput chart and the p0 spectrum.
func CheckReport(t *testing.T, sum *rundir.Summary, dir string) {
	t.Helper()
	txt, err := os.ReadFile(filepath.Join(dir, rundir.SummaryTextFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"sweep over mix (closed)", "update-50", "read 17.5 search 32.5 update 50", "p0"} {
		if !strings.Contains(string(txt), want) {
			t.Errorf("summary.txt lacks %q", want)
		}
	}
	plots := 0
	for _, p := range report.BuildReport(sum, nil).Phases {
		plots += len(p.Plots)
	}
	page := filepath.Join(dir, "report.html")
	if err := os.WriteFile(page, report.ReportHTML([]*rundir.Summary{sum}, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	d, _ := testutil.Chromium(t, page, 0)
	if n := strings.Count(d, "<svg"); n != plots {
		t.Errorf("chromium parsed %d <svg> elements, the report has %d plots", n, plots)
	}
	for _, want := range []string{report.SweepChartTitle + " (achieved ops/s) vs update (% of ops)", ">p0<", "latency percentile spectrum"} {
		if !strings.Contains(d, want) {
			t.Errorf("rendered report lacks %q", want)
		}
	}
}
