package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSweepCLI: `soakd validate` accepts the shipped study files and
// refuses a bad sweep with file:line: field and exit 2; `soakd run` of a
// sweep on the embedded target prints the sweep table and `soakd report
// --html` draws the sweep chart.
func TestSweepCLI(t *testing.T) {
	a, out, errb := newApp()
	studies, _ := filepath.Glob("../../scenarios/study-search-mix-*.yaml")
	if len(studies) != 6 { // redis, mongo, elastic, and each on the sample corpus
		t.Fatalf("study files %v", studies)
	}
	if code := a.Main(context.Background(), append([]string{"validate"}, studies...)); code != 0 {
		t.Fatalf("validate studies: exit %d\n%s", code, errb)
	}
	if n := strings.Count(out.String(), ": ok"); n != len(studies) {
		t.Errorf("validate printed %q", out)
	}
	dir := t.TempDir()
	bad := write(t, dir, "bad.yaml", "phases:\n  - name: s\n    kind: sweep\n    duration: 1s\n    mix: {get: 100}\n    sweep:\n      over: size\n      points: [{set: 120}]\n")
	a, _, errb = newApp()
	if code := a.Main(context.Background(), []string{"validate", bad}); code != 2 {
		t.Fatalf("bad sweep: exit %d", code)
	}
	for _, want := range []string{bad + `:7: phases[0].sweep.over: unknown "size"`} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errb)
		}
	}
	good := write(t, dir, "sweep.yaml", `keyspace: {records: 200}
phases:
  - {name: load, kind: load, concurrency: 2}
  - name: sweep
    kind: sweep
    requests: 300
    concurrency: 2
    mix: {read: 100}
    sweep: {over: mix, points: [{update: 0}, {update: 50}]}
`)
	run := filepath.Join(dir, "run")
	a, out, errb = newApp()
	if code := a.Main(context.Background(), []string{"run", good, "--out", run, "--listen", "", "--quiet"}); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, errb)
	}
	for _, want := range []string{"sweep over mix (closed)", "update-50", "read 50 update 50", "p0"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("run output lacks %q:\n%s", want, out)
		}
	}
	page := filepath.Join(dir, "report.html")
	a, _, errb = newApp()
	if code := a.Main(context.Background(), []string{"report", run, "--html", page}); code != 0 {
		t.Fatalf("report: exit %d\n%s", code, errb)
	}
	html, _ := os.ReadFile(page)
	if !strings.Contains(string(html), "sweep: throughput per point (achieved ops/s) vs update (% of ops)") {
		t.Errorf("report.html lacks the sweep chart")
	}
}
