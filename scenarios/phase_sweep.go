package scenarios

import (
	"fmt"

	"gopkg.in/yaml.v3"
)

// PhaseSweep measures the phase (a template) once per point, each
// point changing one thing (sweep.go).
const PhaseSweep PhaseKind = "sweep"

// sweepKeys is a sweep phase's own keys beside requests: the sweep:
// block, and the capacity: block of a sweep that measures capacity.
type sweepKeys struct {
	Sweep    *SweepSpec    `yaml:"sweep"`
	Capacity *CapacitySpec `yaml:"capacity"`
}

func sweepKind() *kindDef {
	return &kindDef{
		kind:  PhaseSweep,
		keys:  keysOf[sweepKeys](),
		takes: []string{"requests"},
		decode: func(n *yaml.Node, p *Phase) []string {
			var k sweepKeys
			errs := decodeKeys(n, &k)
			p.Sweep, p.Capacity = k.Sweep, k.Capacity
			return errs
		},
		defaults: func(_ *Scenario, p *Phase) {
			if p.Sweep == nil {
				return
			}
			p.Sweep.applyDefaults(p.Rate)
			if p.Sweep.Measure == MeasureCapacity {
				if p.Capacity == nil {
					p.Capacity = &CapacitySpec{}
				}
				p.Capacity.applyDefaults()
			}
		},
		validate: func(s *Scenario, pp string, p *Phase) []FieldError {
			errs := validateSweep(pp, p, s.knownOp)
			if p.Warmup > 0 && p.Duration <= 0 && p.Requests > 0 {
				errs = append(errs, fieldErr(pp+".warmup", "a warmup needs a point duration; points bounded by requests alone have none"))
			}
			if p.Capacity != nil && p.Sweep != nil && p.Sweep.Measure != MeasureCapacity {
				errs = append(errs, fieldErr(pp+".capacity", "only a capacity phase or a capacity sweep (measure: capacity) takes capacity (this sweep measures %s)", p.Sweep.Measure))
			}
			return append(errs, validateCapacity(pp, p.Capacity)...)
		},
		plan: planRule{
			maxOps: maxSweepOps,
			openLoop: func(p *Phase) bool {
				return p.Rate > 0 || (p.Sweep != nil && p.Sweep.Measure != MeasureClosed)
			},
			repeated: func(p *Phase) bool {
				return p.Sweep != nil && p.Sweep.Measure != MeasureCapacity
			},
			shapes: sweepShapes,
			labels: sweepLabels,
		},
		overrides: overrideRule{
			// --rate sets the rate of a sweep whose points all run at
			// the phase's rate (measure: rate, not a rate sweep); a
			// closed-loop, capacity or rate sweep has no one rate.
			rate: func(p *Phase) bool {
				return p.Sweep != nil && p.Sweep.Measure == MeasureRate && p.Sweep.Over != SweepRate
			},
			// --duration and --warmup set each point's, unless the
			// points are capacity searches.
			timed: func(p *Phase) bool {
				return p.Sweep == nil || p.Sweep.Measure != MeasureCapacity
			},
		},
	}
}

// maxSweepOps bounds a sweep's ops: each point's, by the phase's
// requests and duration at the point's rate; a capacity sweep has no
// bound.
func maxSweepOps(p *Phase) (int64, bool) {
	if p.Sweep == nil || p.Sweep.Measure == MeasureCapacity {
		return 0, false
	}
	var n int64
	for _, pt := range p.Sweep.Points {
		rate := p.Rate
		if p.Sweep.Over == SweepRate {
			rate = pt.Rate
		}
		m, ok := boundedOps(p.Requests, rate, p.Duration)
		if !ok {
			return 0, false
		}
		n += m
	}
	return n, true
}

// sweepShapes are the sweep's points that change the workers or the
// record (over concurrency or value_size), up to MaxSweepPoints (more
// are refused by validation).
func sweepShapes(p *Phase, pp string) []phaseShape {
	sw := p.Sweep
	if sw == nil {
		return nil
	}
	var out []phaseShape
	for j, pt := range sw.Points {
		if j >= MaxSweepPoints {
			break
		}
		switch {
		case sw.Over == SweepConcurrency:
			out = append(out, phaseShape{workers: pt.Concurrency, workersPath: fmt.Sprintf("%s.sweep.points[%d].concurrency", pp, j)})
		case sw.Over == SweepValueSize && pt.FieldBytes > 0:
			out = append(out, phaseShape{fieldBytes: pt.FieldBytes, fieldBytesPath: fmt.Sprintf("%s.sweep.points[%d].field_bytes", pp, j)})
		}
	}
	return out
}

// sweepLabels are the sweep's point labels (each point's, given or
// made), on the label's path or, for a made one, the point's.
func sweepLabels(p *Phase, pp string) []pathLabel {
	if p.Sweep == nil {
		return nil
	}
	var out []pathLabel
	for j := range p.Sweep.Points {
		if j >= MaxSweepPoints {
			break
		}
		path := fmt.Sprintf("%s.sweep.points[%d]", pp, j)
		if p.Sweep.Points[j].Label != "" {
			path += ".label"
		}
		out = append(out, pathLabel{path: path, label: p.PointLabel(j)})
	}
	return out
}
