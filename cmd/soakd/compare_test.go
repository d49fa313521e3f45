package main

import (
	"context"
	"strings"
	"testing"

	"github.com/soakd/soakd/report"
	"github.com/soakd/soakd/rundir"
)

// compare refuses unlike runs (another target kind, another rate),
// naming the difference; --allow-unlike compares with a warning.
// Before: judged without a word.
func TestCompareRefusesUnlikeRuns(t *testing.T) {
	with := func(p99 float64, mod func(*rundir.Summary)) string {
		dir := runDir(t, p99)
		s, err := rundir.ReadSummary(dir)
		if err != nil {
			t.Fatal(err)
		}
		mod(s)
		if err := report.WriteRunDir(dir, s); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	base := with(0.005, func(s *rundir.Summary) { s.Target.Kind = "redis"; s.Phases[0].TargetRate = 2000 })
	for _, tc := range []struct {
		name string
		mod  func(*rundir.Summary)
		want string
	}{
		{"target kind", func(s *rundir.Summary) { s.Target.Kind = "embedded"; s.Phases[0].TargetRate = 2000 }, "target redis vs embedded"},
		{"rate", func(s *rundir.Summary) { s.Target.Kind = "redis"; s.Phases[0].TargetRate = 3000 }, "phase steady rate 2000 ops/s vs 3000 ops/s"},
	} {
		cand := with(0.010, tc.mod)
		a, _, errb := testApp(nil)
		if code := a.Main(context.Background(), []string{"compare", base, cand}); code != 2 || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%s: exit %d, want 2 naming %q:\n%s", tc.name, code, tc.want, errb)
		}
		a, out, errb := testApp(nil)
		if code := a.Main(context.Background(), []string{"compare", base, cand, "--allow-unlike"}); code != 1 ||
			!strings.Contains(errb.String(), "warning") || !strings.Contains(out.String(), "REGRESSION") {
			t.Errorf("%s --allow-unlike: exit %d, want 1 with a warning:\n%s\n%s", tc.name, code, errb, out)
		}
	}
}

// Runs without latency.hlog are compared by their summaries' figures,
// and the output says there is no interval; a bad flag is refused.
func TestCompareWithoutIntervalLogSaysSo(t *testing.T) {
	base, cand := runDir(t, 0.005), runDir(t, 0.0052)
	a, out, _ := testApp(nil)
	if code := a.Main(context.Background(), []string{"compare", base, cand}); code != 0 ||
		!strings.Contains(out.String(), "no latency.hlog in") || !strings.Contains(out.String(), "without an interval") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	a, _, errb := testApp(nil)
	if code := a.Main(context.Background(), []string{"compare", base, cand, "--level", "95"}); code != 2 || !strings.Contains(errb.String(), "--level") {
		t.Errorf("--level 95: exit %d, %s", code, errb)
	}
	a, _, errb = testApp(nil)
	if code := a.Main(context.Background(), []string{"compare", base, cand, "--controls", t.TempDir()}); code != 2 ||
		!strings.Contains(errb.String(), "--controls") || !strings.Contains(errb.String(), "calibration.json") {
		t.Errorf("--controls of a directory without controls: exit %d, %s", code, errb)
	}
}
