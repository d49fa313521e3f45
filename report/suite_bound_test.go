package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/soakd/soakd/rundir"
)

// TestSuiteWithholdsBoundColumns: a test that column B ran
// generator-bound (or baseline A host-bound) gets no verdict in the
// side-by-side, and the notes say why.
func TestSuiteWithholdsBoundColumns(t *testing.T) {
	build := func(boundVariant, bound string) SuiteTable {
		s := &rundir.Summary{Scenario: "bound", Status: rundir.StatusCompleted, Target: rundir.TargetInfo{Kind: "redis"}}
		for r := 0; r < 3; r++ {
			for _, v := range []string{"none", "aof"} {
				rate := 1000.0
				if v == "aof" {
					rate = 400 // B looks 2.5x slower
				}
				p := suitePhaseResult(fmt.Sprintf("s[%s]#%d", v, r+1), v, rate, 10000, map[string]int64{"get": 10000})
				p.Repeat = r + 1
				if v == boundVariant {
					p.Self = &rundir.SelfHealth{Intervals: 10, Cores: 2, CPUMax: 1.94, Bound: bound, Reason: "soakd CPU up to 97% of 2 cores, above 90% in 60% of intervals"}
				}
				s.Phases = append(s.Phases, p)
			}
		}
		return BuildSuite(SuiteColumns(nil, []*rundir.Summary{s}))
	}
	if v := build("", "").Rows[0].Verdict(1); strings.HasPrefix(v, "no verdict") {
		t.Fatalf("unbound: %q", v)
	}
	tb := build("aof", rundir.BoundGenerator)
	if v := tb.Rows[0].Verdict(1); v != "no verdict: generator-bound" {
		t.Errorf("B generator-bound: verdict %q", v)
	}
	txt := tb.Text()
	if !strings.Contains(txt, "  s, column B: no verdict: generator-bound (soakd CPU up to 97% of 2 cores, above 90% in 60% of intervals); its figures are not the store's") {
		t.Errorf("text lacks the reason:\n%s", txt)
	}
	if strings.Contains(txt, "slower") {
		t.Errorf("a bound column still judged:\n%s", txt)
	}
	if v := build("none", rundir.BoundHost).Rows[0].Verdict(1); v != "no verdict: host-bound" {
		t.Errorf("A host-bound: verdict %q", v)
	}
}
