package scenarios

import (
	"testing"
	"time"
)

// TestParseTick: tick decodes on any open-loop phase, and is refused
// with its line on a closed-loop phase, a replay, or out of bounds.
func TestParseTick(t *testing.T) {
	sc, err := Parse("s.yaml", []byte(`name: t
phases:
  - {name: soak, kind: steady, rate: 250, duration: 1h, tick: 20ms, mix: {get: 100}}
  - {name: up, kind: ramp, tick: 5ms, steps: [{rate: 100, duration: 1s}], mix: {get: 100}}
`))
	if err != nil {
		t.Fatal(err)
	}
	if sc.Phases[0].Tick.D() != 20*time.Millisecond || sc.Phases[1].Tick.D() != 5*time.Millisecond {
		t.Fatalf("ticks %v, %v: want 20ms and 5ms", sc.Phases[0].Tick, sc.Phases[1].Tick)
	}
	ps := problemsOf(t, `name: t
phases:
  - {kind: steady, rate: 0, duration: 1s, tick: 20ms, mix: {get: 100}}
  - {kind: steady, rate: 10, duration: 1s, tick: 500us, mix: {get: 100}}
  - {kind: steady, rate: 10, duration: 1s, tick: 2s, mix: {get: 100}}
  - {kind: steady, rate: 10, duration: 1s, tick: -1s, mix: {get: 100}}
`)
	for _, c := range []struct {
		line       int
		field, sub string
	}{
		{3, "phases[0].tick", "runs closed loop"},
		{4, "phases[1].tick", "must be 1ms to 1s"},
		{5, "phases[2].tick", "must be 1ms to 1s"},
		{6, "phases[3].tick", "must be 1ms to 1s"},
	} {
		if !hasProblem(ps, c.line, c.field, c.sub) {
			t.Errorf("no problem at line %d %s containing %q in:\n%v", c.line, c.field, c.sub, ps)
		}
	}
}

// TestTickOnReplayRefused: a replay keeps its own timing.
func TestTickOnReplayRefused(t *testing.T) {
	p := &Phase{Kind: PhaseReplay, Rate: 100, Tick: Duration(20 * time.Millisecond)}
	errs := validateTick("phases[0]", p)
	if len(errs) != 1 || errs[0].Path != "phases[0].tick" {
		t.Fatalf("replay with tick: %v, want one phases[0].tick problem", errs)
	}
	if p.TakesTick() {
		t.Error("a replay phase takes --tick")
	}
	if !(&Phase{Kind: PhaseSteady, Rate: 10}).TakesTick() || (&Phase{Kind: PhaseSteady}).TakesTick() {
		t.Error("TakesTick: want true for an open-loop steady phase, false for a closed-loop one")
	}
}
