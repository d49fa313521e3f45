package main

import (
	"context"
	"strings"
	"testing"

	"github.com/soakd/soakd/report"
	"github.com/soakd/soakd/rundir"
)

// compare gives no verdict on a phase a run ran generator- or
// host-bound: a 2x slower p99 that exits 1 with REGRESSION (compare's
// exit codes test) exits 0 and says why when the candidate's phase was
// generator-bound.
func TestCompareWithholdsBoundPhase(t *testing.T) {
	base := runDir(t, 0.005)
	cand := runDir(t, 0.010)
	s, err := rundir.ReadSummary(cand)
	if err != nil {
		t.Fatal(err)
	}
	s.Phases[0].Self = &rundir.SelfHealth{Intervals: 60, Cores: 2, CPUMean: 1.8, CPUMax: 1.94, CPUBusyShare: 0.6,
		Bound: rundir.BoundGenerator, Reason: "soakd CPU up to 97% of 2 cores, above 90% in 60% of intervals"}
	if err := report.WriteRunDir(cand, s); err != nil {
		t.Fatal(err)
	}
	a, out, errb := testApp(nil)
	code := a.Main(context.Background(), []string{"compare", base, cand})
	txt := out.String()
	if code != 0 || strings.Contains(txt, "REGRESSION") {
		t.Fatalf("exit %d, want 0 without a REGRESSION:\n%s\n%s", code, txt, errb)
	}
	for _, want := range []string{"no verdict: bound", "no verdict: generator-bound (soakd CPU up to 97% of 2 cores, above 90% in 60% of intervals)",
		"no verdict: every op compared ran in a generator- or host-bound phase"} {
		if !strings.Contains(txt, want) {
			t.Errorf("output lacks %q:\n%s", want, txt)
		}
	}
	a, out, _ = testApp(nil)
	if code := a.Main(context.Background(), []string{"compare", "--json", base, cand}); code != 0 || !strings.Contains(out.String(), `"withheld": "no verdict: generator-bound`) {
		t.Errorf("--json: exit %d:\n%s", code, out)
	}
}
