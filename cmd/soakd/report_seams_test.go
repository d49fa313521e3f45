package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/soakd/soakd/report"
	"github.com/soakd/soakd/rundir"
)

// TestReportSeams: `soakd report` of a resumed run's directory shows its
// seam and lost ops in the table, in --json (the summary's every term
// of scheduled = completed + dropped + lost, and the figures' words)
// and in --html.
func TestReportSeams(t *testing.T) {
	start := time.Date(2026, 5, 6, 7, 0, 0, 0, time.UTC)
	op := rundir.OpResult{Count: 59_400, Dropped: 0, Lost: 600, Scheduled: 60_000, Errors: map[string]int64{}}
	s := &rundir.Summary{SchemaVersion: rundir.SchemaVersion, Scenario: "resumed", Status: rundir.StatusCompleted, Start: start, End: start.Add(10 * time.Minute),
		Target: rundir.TargetInfo{Kind: "embedded"}, Shard: rundir.Shard{Count: 1},
		Phases: []rundir.PhaseResult{{Name: "steady", Kind: "steady", Start: start, End: start.Add(10 * time.Minute),
			Result: rundir.Result{TargetRate: 100, DurationSeconds: 600, Scheduled: 60_000, Completed: 59_400, CompletedInWindow: 59_400, Lost: 600,
				Ops: map[string]rundir.OpResult{"get": op}}}},
		Seams: []rundir.Seam{{Phase: "steady", Down: start.Add(62 * time.Second), Resumed: start.Add(68 * time.Second), Lost: 600}}}
	dir := t.TempDir()
	if err := report.WriteRunDir(dir, s); err != nil {
		t.Fatal(err)
	}
	seam := "resumed at +1m8s after 6s down: 600 ops lost (phase steady)"
	identity := "scheduled 60000 = completed 59400 + dropped 0 + lost 600"

	a, out, errb := newApp()
	if code := a.Main(context.Background(), []string{"report", dir}); code != 0 {
		t.Fatalf("report: exit %d: %s", code, errb)
	}
	for _, want := range []string{seam, "0 dropped, 600 lost", "accounting: " + identity, "get: " + identity} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	txt, err := os.ReadFile(filepath.Join(dir, rundir.SummaryTextFile))
	if err != nil || !strings.Contains(string(txt), seam) {
		t.Errorf("summary.txt lacks the seam (%v):\n%s", err, txt)
	}

	a, out, errb = newApp()
	if code := a.Main(context.Background(), []string{"report", "--json", dir}); code != 0 {
		t.Fatalf("report --json: exit %d: %s", code, errb)
	}
	var got struct {
		Summary rundir.Summary `json:"summary"`
		Figures report.Figures `json:"figures"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	p := got.Summary.Phases[0]
	if p.Scheduled != 60_000 || p.Lost != 600 || p.Unaccounted() != 0 || p.Ops["get"].Unaccounted() != 0 || p.Ops["get"].Lost != 600 {
		t.Errorf("--json summary: scheduled %d lost %d, unaccounted %d, get %+v", p.Scheduled, p.Lost, p.Unaccounted(), p.Ops["get"])
	}
	if len(got.Summary.Seams) != 1 || got.Summary.Seams[0].Lost != 600 || len(got.Figures.Seams) != 1 || got.Figures.Seams[0] != seam {
		t.Errorf("--json seams: %+v, figures %q", got.Summary.Seams, got.Figures.Seams)
	}
	if pf := got.Figures.Phases[0]; pf.Accounting != identity || pf.Unaccounted != 0 {
		t.Errorf("--json accounting %q, unaccounted %d", pf.Accounting, pf.Unaccounted)
	}

	html := filepath.Join(t.TempDir(), "r.html")
	a, _, errb = newApp()
	if code := a.Main(context.Background(), []string{"report", "--html", html, dir}); code != 0 {
		t.Fatalf("report --html: exit %d: %s", code, errb)
	}
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<div class="note">` + seam + `; shaded grey on the charts over time</div>`, `<div class="note">accounting: ` + identity + `</div>`} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}
