package e2e

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/soakd/soakd/internal/testutil"
	"github.com/soakd/soakd/report"
	"github.com/soakd/soakd/rundir"
)

// TestDeadServerFailuresAreNoLatency runs 8 s at 500 SETs/s against a
// redis-server that is killed a few seconds in, and opens the report in
// Chromium: the seconds after the kill completed only failed ops, and
// their latency panel has no point there (a refused connection's 50 us
// is not a p99), while the throughput chart still counts them.
func TestDeadServerFailuresAreNoLatency(t *testing.T) {
	t.Parallel()
	srv := startTestRedis(t)
	dir := t.TempDir()
	scen := write(t, dir, "s.yaml", "name: dead-server\ntarget: {kind: redis, url: \"redis://"+srv.Addr()+"\"}\nphases:\n  - {name: steady, kind: steady, rate: 500, duration: 8s, mix: {set: 100}}\n")
	out := filepath.Join(dir, "run")
	done := make(chan int, 1)
	go func() {
		code, _, _ := runSoakd(t, "run", scen, "--out", out, "--listen", "", "--quiet")
		done <- code
	}()
	// Kill the server once the run has logged two intervals of counts.
	waitFor(t, time.Minute, func() bool {
		b, err := os.ReadFile(filepath.Join(out, rundir.PartialCounts))
		return err == nil && strings.Count(string(b), "\nsteady,") >= 2
	})
	srv.Kill()
	<-done
	s, err := rundir.ReadSummary(out)
	if err != nil {
		t.Fatal(err)
	}
	tl, err := report.ReadTimeline(out, s)
	if err != nil {
		t.Fatal(err)
	}
	p := &s.Phases[0]
	failedOnly := map[float64]bool{}
	for _, tp := range tl.Phases[p.Name]["set"] {
		if tp.Count > 0 && tp.Errors == tp.Count {
			failedOnly[tp.At.Sub(p.Start).Seconds()] = true
		}
	}
	if len(failedOnly) == 0 {
		t.Fatalf("no bucket of failed ops alone after the kill (%d errors): the test says nothing", p.Errors)
	}
	var lat report.Plot
	for _, pp := range report.BuildReport(s, tl).Phases {
		for _, pl := range pp.Plots {
			if strings.HasPrefix(pl.Title, "set latency over time") {
				lat = pl
			}
		}
	}
	for _, sr := range lat.Series {
		for _, pt := range sr.Points {
			if strings.HasSuffix(sr.Name, "p99") && failedOnly[math.Floor(pt.X)] {
				t.Errorf("a bucket of failed ops only is drawn as latency: %+v", pt)
			}
		}
	}
	page := filepath.Join(dir, "report.html")
	if err := os.WriteFile(page, report.ReportHTML([]*rundir.Summary{s}, []*report.Timeline{tl}), 0o644); err != nil {
		t.Fatal(err)
	}
	d, _ := testutil.Chromium(t, page, 0)
	if !strings.Contains(d, "set latency over time") || !strings.Contains(d, " failed: ") {
		t.Errorf("the rendered report lacks the latency panel or the failed counts in its tooltips")
	}
	t.Logf("%d of %d buckets failed only; %d errors", len(failedOnly), len(tl.Phases[p.Name]["set"]), p.Errors)
}
