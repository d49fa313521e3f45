package scenarios

import (
	"fmt"
	"math"

	"gopkg.in/yaml.v3"
)

// PhaseRamp steps the rate through a list of steps.
const PhaseRamp PhaseKind = "ramp"

// RampSpec is a ramp phase's own keys: steps, or from/to/step/
// step_duration (expanded into steps by ApplyDefaults).
type RampSpec struct {
	Steps        []Step   `yaml:"steps"`
	From         float64  `yaml:"from"`
	To           float64  `yaml:"to"`
	Step         float64  `yaml:"step"`
	StepDuration Duration `yaml:"step_duration"`
}

// Step is one rate step of a ramp.
type Step struct {
	Rate     float64  `yaml:"rate"`
	Duration Duration `yaml:"duration"`
}

// ranged says whether the ramp is given as from/to/step/step_duration.
func (r *RampSpec) ranged() bool {
	return r.From != 0 || r.To != 0 || r.Step != 0 || r.StepDuration != 0
}

func rampKind() *kindDef {
	return &kindDef{
		budgeted: true,
		kind:     PhaseRamp,
		keys:     keysOf[RampSpec](),
		decode: func(n *yaml.Node, p *Phase) []string {
			p.Ramp = &RampSpec{}
			return decodeKeys(n, p.Ramp)
		},
		defaults:  defaultRamp,
		validate:  validateRamp,
		overrides: overrideRule{rate: always},
		plan: planRule{
			openLoop: always,
			maxOps: func(p *Phase) (int64, bool) {
				var n int64
				for _, st := range p.Ramp.Steps {
					n += int64(math.Ceil(st.Rate * st.Duration.D().Seconds()))
				}
				return n, true
			},
			scheduled: func(p *Phase, n int64) (float64, int64) {
				var t float64
				for _, st := range p.Ramp.Steps {
					t += st.Duration.D().Seconds()
				}
				return t, n
			},
		},
	}
}

func defaultRamp(_ *Scenario, p *Phase) {
	if p.Ramp == nil {
		p.Ramp = &RampSpec{}
	}
	r := p.Ramp
	if len(r.Steps) > 0 || badRate(r.From, false) != "" || badRate(r.To, false) != "" {
		return
	}
	// Step i is from + i*step: repeated addition never advances once
	// step is below the rate's float precision.
	if n, ok := rampStepCount(r.From, r.To, r.Step); ok {
		r.Steps = make([]Step, n)
		for j := range r.Steps {
			r.Steps[j] = Step{Rate: r.From + float64(j)*r.Step, Duration: r.StepDuration}
		}
	}
}

// rampStepCount is the number of steps from/to/step make, computed
// without iterating; ok is false when they make no finite, positive
// number of steps (n is then 0) or more than MaxRampSteps.
func rampStepCount(from, to, step float64) (n int, ok bool) {
	for _, v := range []float64{from, to, step} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, false
		}
	}
	if step <= 0 || from <= 0 || to < from {
		return 0, false
	}
	f := math.Floor((to-from)/step+1e-9) + 1
	if f > MaxRampSteps {
		return MaxRampSteps + 1, false
	}
	return int(f), true
}

func validateRamp(_ *Scenario, pp string, p *Phase) []FieldError {
	var errs []FieldError
	add := func(path, format string, args ...any) { errs = append(errs, fieldErr(path, format, args...)) }
	r := p.Ramp
	// from/to/step were expanded into steps by ApplyDefaults (when
	// valid): report on the fields the file has.
	switch {
	case r.ranged():
		if msg := badRate(r.From, false); msg != "" {
			add(pp+".from", "%s", msg)
		}
		if msg := badRate(r.To, false); msg != "" {
			add(pp+".to", "%s", msg)
		} else if r.To < r.From {
			add(pp+".to", "must be at least from")
		}
		if n, _ := rampStepCount(r.From, r.To, r.Step); n > MaxRampSteps {
			add(pp+".step", "from/to/step make more than %d steps", MaxRampSteps)
		} else if !(r.Step > 0) || math.IsInf(r.Step, 0) {
			add(pp+".step", "must be a positive number of ops/s")
		}
		if r.StepDuration <= 0 {
			add(pp+".step_duration", "must be a positive duration")
		}
	case len(r.Steps) == 0:
		add(pp+".steps", "a ramp needs steps (list of {rate, duration}) or from/to/step/step_duration")
	case len(r.Steps) > MaxRampSteps:
		add(pp+".steps", "%d steps; a ramp has at most %d", len(r.Steps), MaxRampSteps)
	}
	for j, st := range r.Steps {
		if j >= MaxRampSteps || r.ranged() {
			break
		}
		if msg := badRate(st.Rate, false); msg != "" {
			add(fmt.Sprintf("%s.steps[%d].rate", pp, j), "%s", msg)
		}
		if st.Duration <= 0 {
			add(fmt.Sprintf("%s.steps[%d].duration", pp, j), "must be positive")
		}
	}
	if len(p.Mix) == 0 {
		add(pp+".mix", "a ramp needs a mix")
	}
	return errs
}
