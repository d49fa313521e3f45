package scenarios

import (
	"strings"
	"testing"
)

// TestRateFloor: a positive rate below MinRate is refused wherever a
// rate is given, with its field and line (1e-11 ops/s overflowed the
// pacer's clock and ended an 8 s phase in 14 ms as "completed").
func TestRateFloor(t *testing.T) {
	for _, c := range []struct {
		name, src, field string
		line             int
	}{
		{"phase rate", "phases:\n  - kind: steady\n    duration: 8s\n    mix: {read: 100}\n    rate: 1e-11\n", "phases[0].rate", 5},
		{"sweep point", "phases:\n  - kind: sweep\n    duration: 1s\n    mix: {read: 100}\n    sweep:\n      over: rate\n      points:\n        - {rate: 100}\n        - {rate: 0.00001}\n", "phases[0].sweep.points[1].rate", 9},
		{"ramp step", "phases:\n  - kind: ramp\n    mix: {read: 100}\n    steps: [{rate: 1e-9, duration: 1s}]\n", "phases[0].steps[0].rate", 4},
		{"ramp from", "phases:\n  - kind: ramp\n    mix: {read: 100}\n    from: 1e-11\n    to: 1\n    step: 0.5\n    step_duration: 1s\n", "phases[0].from", 4},
		{"capacity start", "phases:\n  - kind: capacity\n    mix: {read: 100}\n    capacity:\n      start: 1e-11\n", "phases[0].capacity.start", 5},
		{"growth measure_rate", "phases:\n  - kind: growth\n    mix: {read: 100}\n    growth:\n      batch: 10\n      measure_for: 1s\n      measure_rate: 1e-11\n", "phases[0].growth.measure_rate", 7},
	} {
		t.Run(c.name, func(t *testing.T) {
			if ps := problemsOf(t, c.src); !hasProblem(ps, c.line, c.field, "below the floor") {
				t.Errorf("want s.yaml:%d %s below the floor, got\n%v", c.line, c.field, ps)
			}
		})
	}
	if err := CheckRate(1e-11, true); err == nil || !strings.Contains(err.Error(), "below the floor of 0.001") {
		t.Errorf("CheckRate(1e-11) = %v", err)
	}
	for _, ok := range []float64{0, MinRate, 1, MaxRate} {
		if err := CheckRate(ok, true); err != nil {
			t.Errorf("CheckRate(%g) = %v", ok, err)
		}
	}
}
