package report

import (
	"strings"
	"testing"

	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
)

// Every phase kind has an entry in the report's kind table; a kind it
// does not know (a phase rebuilt from a log without run.json) is shown
// as a plain phase, with no section of its own even when it has stages.
func TestReportKindTable(t *testing.T) {
	for _, k := range scenarios.PhaseKinds() {
		if _, ok := reportOf(k); !ok {
			t.Errorf("phase kind %s has no entry in report/kinds.go", k)
		}
	}
	if _, ok := reportOf(""); ok {
		t.Error("the empty kind has an entry")
	}
	p := &rundir.PhaseResult{Name: "p", Stages: []rundir.StageResult{{Name: "step-1", Records: 10}}}
	if notes, plots := kindSection(p); notes != nil || plots != nil {
		t.Errorf("unknown kind: section %v %v", notes, plots)
	}
	var b strings.Builder
	writeKindText(&b, p)
	if b.Len() != 0 {
		t.Errorf("unknown kind: text %q", b.String())
	}
}

// The same stages chart against the step for a ramp and against the
// dataset size for growth, which also says whether it found a cliff.
func TestStagedKindsSections(t *testing.T) {
	ran := rundir.Result{Scheduled: 100, Completed: 100}
	stages := []rundir.StageResult{{Name: "s1", Records: 1000, Result: ran}, {Name: "s2", Records: 2000, Result: ran}}
	for _, c := range []struct {
		kind   scenarios.PhaseKind
		xlabel string
		x2     float64
		notes  int
	}{
		{scenarios.PhaseRamp, "stage", 2, 0},
		{scenarios.PhaseGrowth, "dataset (records)", 2000, 1},
	} {
		notes, plots := kindSection(&rundir.PhaseResult{Name: "p", Kind: c.kind, Stages: stages})
		if len(notes) != c.notes {
			t.Errorf("%s: notes %q", c.kind, notes)
		}
		if len(plots) < 2 {
			t.Fatalf("%s: %d plots", c.kind, len(plots))
		}
		rate := plots[1]
		if rate.XLabel != c.xlabel || len(rate.Series) == 0 || len(rate.Series[0].Points) != 2 || rate.Series[0].Points[1].X != c.x2 {
			t.Errorf("%s: rate plot %+v", c.kind, rate)
		}
	}
}
