package report

import (
	"strings"
	"testing"

	"github.com/soakd/soakd/rundir"
)

// TestCapacitySeamProbes: a probe a resume cut says so: one judged on
// the ops it ran shows its lost ops, one with too few ops to call is
// "not called" (never "FAIL" or "failed"), in the text and on the chart.
func TestCapacitySeamProbes(t *testing.T) {
	why := "seam: 122 of its 200 ops were lost to a kill, too few ran to call it: probed again"
	p := &rundir.PhaseResult{Name: "cap", Kind: "capacity", Capacity: &rundir.CapacityResult{HighestRateHeld: 200, Curve: []rundir.CapacityPoint{
		{Rate: 100, Achieved: 100, Passed: true, Lost: 30},
		{Rate: 200, Achieved: 78, Lost: 122, Uncalled: true, Failed: []string{why}},
		{Rate: 200, Achieved: 200, Passed: true},
	}}}
	var b strings.Builder
	writeCapacity(&b, p)
	txt := b.String()
	for _, want := range []string{"held (30 ops lost to a seam) rate 100", "NOT CALLED (122 ops lost to a seam) rate 200"} {
		if !strings.Contains(txt, want) {
			t.Errorf("text lacks %q:\n%s", want, txt)
		}
	}
	if strings.Contains(txt, "FAIL") {
		t.Errorf("a probe not called is shown as failed:\n%s", txt)
	}
	_, plots := capacitySection(p)
	var labels []string
	for _, pl := range plots {
		for _, s := range pl.Series {
			for _, pt := range s.Points {
				if pt.X == 200 && pt.Y < 100 {
					labels = append(labels, pt.Label)
				}
			}
		}
	}
	if len(labels) == 0 {
		t.Fatal("the probe not called is not on the chart")
	}
	for _, l := range labels {
		if !strings.HasPrefix(l, "not called") {
			t.Errorf("chart label %q, want it not called", l)
		}
	}
	if labels[0] != "not called: "+why {
		t.Errorf("achieved label %q, want why it was not called", labels[0])
	}
}
