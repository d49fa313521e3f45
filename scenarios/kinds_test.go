package scenarios

import "testing"

// Keys of another phase kind are errors, each on its line, in the same
// pass as every other problem. Before: a steady phase with steps: or
// growth: was accepted and the keys silently ignored.
func TestForeignPhaseKeys(t *testing.T) {
	src := `name: t
keyspace: {records: 1000}
phases:
  - name: s
    kind: steady
    rate: 100
    duration: 1s
    mix: {get: 100}
    steps: [{rate: 10, duration: 1s}]
    growth: {batch: 10, measure_rate: 10, measure_for: 1s}
  - name: l
    kind: load
    capacity: {start: 10}
    from: 5
  - name: c
    kind: capacity
    mix: {get: 100}
    step_duration: 1s
    rate: -1
`
	ps := problemsOf(t, src)
	for _, want := range []struct {
		line  int
		field string
		sub   string
	}{
		{9, "phases[0].steps", "only a ramp phase takes steps (this is a steady phase)"},
		{10, "phases[0].growth", "only a growth phase takes growth"},
		{13, "phases[1].capacity", "only a capacity or sweep phase takes capacity (this is a load phase)"},
		{14, "phases[1].from", "only a ramp phase takes from"},
		{18, "phases[2].step_duration", "only a ramp phase takes step_duration"},
		{19, "phases[2].rate", "positive"},
	} {
		if !hasProblem(ps, want.line, want.field, want.sub) {
			t.Errorf("missing s.yaml:%d %s %q in\n%v", want.line, want.field, want.sub, ps)
		}
	}
	if len(ps) != 6 {
		t.Errorf("%d problems, want 6:\n%v", len(ps), ps)
	}
}

// Capacity and growth defaults are applied once, at parse, where every
// other default is (before: at run time, in the engine).
func TestCapacityAndGrowthDefaults(t *testing.T) {
	sc, err := Parse("d.yaml", []byte(`name: d
keyspace: {records: 5000}
phases:
  - {name: c, kind: capacity, mix: {get: 100}}
  - {name: m, kind: capacity, mix: {get: 100}, capacity: {max: 400}}
  - {name: g, kind: growth, mix: {get: 100}, growth: {batch: 100, measure_rate: 10, measure_for: 1s}}
`))
	if err != nil {
		t.Fatal(err)
	}
	c := sc.Phases[0].Capacity
	if c == nil || *c != (CapacitySpec{Start: DefaultCapacityStart, Factor: DefaultCapacityFactor, Max: DefaultCapacityMax,
		StepDuration: DefaultCapacityStep, Precision: DefaultCapacityPrecision}) {
		t.Errorf("capacity defaults %+v", c)
	}
	if m := sc.Phases[1].Capacity; m.Start != 400 || m.Max != 400 {
		t.Errorf("capacity with max below the default start: %+v", m)
	}
	g := sc.Phases[2].Growth
	if g.CliffFactor != DefaultCliffFactor || g.MaxStages != DefaultGrowthMaxStages || g.StopRecords != 5000 {
		t.Errorf("growth defaults %+v", g)
	}
	// Out-of-range values are still reported, not defaulted away.
	ps := problemsOf(t, `name: d
phases:
  - {name: c, kind: capacity, mix: {get: 100}, capacity: {start: -1, precision: -0.1, step_duration: -1s}}
  - {name: g, kind: growth, mix: {get: 100}, growth: {batch: 100, measure_rate: 10, measure_for: 1s, cliff_factor: 0.5, max_stages: -2}}
`)
	for _, f := range []string{"phases[0].capacity.start", "phases[0].capacity.precision", "phases[0].capacity.step_duration",
		"phases[1].growth.cliff_factor", "phases[1].growth.max_stages"} {
		if !hasProblem(ps, 0, f, "") && !hasProblem(ps, 3, f, "") && !hasProblem(ps, 4, f, "") {
			t.Errorf("no problem on %s:\n%v", f, ps)
		}
	}
}
