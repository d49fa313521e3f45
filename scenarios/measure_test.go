package scenarios

import (
	"strings"
	"testing"
)

// TestGrowthMeasureField: growth.measure defaults to mix, takes per_op,
// refuses other values and a measure_rate with per_op (it measures
// closed loop), each with its line.
func TestGrowthMeasureField(t *testing.T) {
	sc, err := Parse("m.yaml", []byte("phases: [{kind: growth, mix: {get: 100}, growth: {batch: 10, measure_rate: 5, measure_for: 1s}}]\n"))
	if err != nil || sc.Phases[0].Growth.Measure != MeasureMix {
		t.Fatalf("default: %v %+v", err, sc)
	}
	_, err = Parse("m.yaml", []byte("phases:\n  - kind: growth\n    mix: {get: 100}\n    growth:\n      batch: 10\n      measure_rate: 5\n      measure_for: 1s\n      measure: per_op\n  - kind: growth\n    mix: {get: 100}\n    growth: {batch: 10, measure_for: 1s, measure: each}\n"))
	for _, want := range []string{"m.yaml:6: phases[0].growth.measure_rate: per_op measures each op closed loop", `m.yaml:11: phases[1].growth.measure: unknown "each" (use mix or per_op)`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("problems %v lack %q", err, want)
		}
	}
	ops := func(names ...string) []Op {
		var out []Op
		for _, n := range names {
			m, err := NewMix(map[string]float64{n: 100}, nil)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, m.Ops()...)
		}
		return out
	}
	var got []string
	for _, o := range PerOpOrder(ops("del", "set", "get", "delete", "read"), nil) {
		got = append(got, o.String())
	}
	if strings.Join(got, ",") != "get,read,set,del,delete" {
		t.Errorf("per_op order %v", got)
	}
}
