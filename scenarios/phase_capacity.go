package scenarios

import (
	"fmt"
	"time"

	"gopkg.in/yaml.v3"
)

// PhaseCapacity searches for the highest rate the target sustains
// within the SLO (step up, then bisect).
const PhaseCapacity PhaseKind = "capacity"

// Capacity search defaults (a capacity phase's capacity: block).
const (
	DefaultCapacityStart     = 1000
	DefaultCapacityFactor    = 2
	DefaultCapacityMax       = 10_000_000
	DefaultCapacityStep      = Duration(10 * time.Second)
	DefaultCapacityPrecision = 0.05
)

// CapacitySpec configures the capacity search (step up, then bisect).
type CapacitySpec struct {
	Start        float64  `yaml:"start"`
	Factor       float64  `yaml:"factor"`
	Max          float64  `yaml:"max"`
	StepDuration Duration `yaml:"step_duration"`
	Precision    float64  `yaml:"precision"` // stop bisecting when hi/lo-1 < precision
}

// capacityKeys is a capacity phase's own keys.
type capacityKeys struct {
	Capacity *CapacitySpec `yaml:"capacity"`
}

func capacityKind() *kindDef {
	return &kindDef{
		kind: PhaseCapacity,
		keys: keysOf[capacityKeys](),
		decode: func(n *yaml.Node, p *Phase) []string {
			var k capacityKeys
			errs := decodeKeys(n, &k)
			p.Capacity = k.Capacity
			return errs
		},
		defaults: func(_ *Scenario, p *Phase) {
			if p.Capacity == nil {
				p.Capacity = &CapacitySpec{}
			}
			p.Capacity.applyDefaults()
		},
		validate: func(_ *Scenario, pp string, p *Phase) []FieldError {
			var errs []FieldError
			if len(p.Mix) == 0 {
				errs = append(errs, fieldErr(pp+".mix", "a capacity search needs a mix"))
			}
			return append(errs, validateCapacity(pp, p.Capacity)...)
		},
		overrides: overrideRule{rate: always},
		plan: planRule{
			openLoop: always,
			// One probe: the rest of the search is not known ahead.
			scheduled: func(p *Phase, n int64) (float64, int64) {
				if p.Capacity == nil {
					return 0, n
				}
				return p.Capacity.StepDuration.D().Seconds(), n
			},
		},
	}
}

// applyDefaults fills what a capacity: block leaves out (a phase
// without one gets every default). Without a start the search starts at
// DefaultCapacityStart, or at max when that is lower.
func (c *CapacitySpec) applyDefaults() {
	if c.Start == 0 {
		c.Start = DefaultCapacityStart
		if c.Max > 0 && c.Max < c.Start {
			c.Start = c.Max
		}
	}
	if c.Factor == 0 {
		c.Factor = DefaultCapacityFactor
	}
	if c.Max == 0 {
		c.Max = max(DefaultCapacityMax, c.Start)
	}
	if c.StepDuration == 0 {
		c.StepDuration = DefaultCapacityStep
	}
	if c.Precision == 0 {
		c.Precision = DefaultCapacityPrecision
	}
}

// validateCapacity checks a capacity: block (a capacity phase's, or a
// capacity sweep's).
func validateCapacity(pp string, c *CapacitySpec) []FieldError {
	var errs []FieldError
	add := func(path, format string, args ...any) {
		errs = append(errs, FieldError{Path: path, Msg: fmt.Sprintf(format, args...)})
	}
	if c != nil {
		if msg := badRate(c.Start, true); msg != "" {
			add(pp+".capacity.start", "%s", msg)
		}
		if msg := badRate(c.Max, true); msg != "" {
			add(pp+".capacity.max", "%s", msg)
		} else if c.Max > 0 && c.Max < c.Start {
			add(pp+".capacity.max", "must be at least capacity.start")
		}
		if c.Factor != 0 && c.Factor <= 1 {
			add(pp+".capacity.factor", "must be greater than 1")
		}
		if c.StepDuration < 0 {
			add(pp+".capacity.step_duration", "must be a positive duration")
		}
		if c.Precision < 0 || c.Precision >= 1 {
			add(pp+".capacity.precision", "must be a fraction between 0 and 1 (0.05 = stop within 5%%)")
		}
	}
	return errs
}
