package scenarios

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// SweepOver is what a sweep varies from point to point: the YAML
// sweep.over of a sweep phase.
type SweepOver string

// What a sweep can vary.
const (
	SweepMix         SweepOver = "mix"
	SweepRate        SweepOver = "rate"
	SweepValueSize   SweepOver = "value_size"
	SweepConcurrency SweepOver = "concurrency"
)

var sweepOvers = newEnum("sweep.over", SweepMix, SweepRate, SweepValueSize, SweepConcurrency)

// SweepOvers lists what a sweep can vary, in the order messages name them.
func SweepOvers() []SweepOver { return sweepOvers.List() }

// SweepMeasure is how each point of a sweep is measured: the YAML
// sweep.measure.
type SweepMeasure string

// How a sweep point is measured.
const (
	// MeasureClosed runs the point closed loop (as fast as the phase's
	// concurrency allows) for the phase's duration or requests.
	MeasureClosed SweepMeasure = "closed"
	// MeasureRate runs the point open loop at the phase's rate (or, in a
	// rate sweep, the point's).
	MeasureRate SweepMeasure = "rate"
	// MeasureCapacity runs a capacity search (the phase's capacity:
	// block) at each point.
	MeasureCapacity SweepMeasure = "capacity"
)

var sweepMeasures = newEnum("sweep.measure", MeasureClosed, MeasureRate, MeasureCapacity)

// SweepMeasures lists the ways to measure a point.
func SweepMeasures() []SweepMeasure { return sweepMeasures.List() }

// MaxSweepPoints bounds a sweep's points.
const MaxSweepPoints = 1000

// SweepSpec is a sweep phase's sweep: block: the phase is a template (its
// mix, rate, duration, warmup, requests, concurrency and capacity block)
// measured once per point, each point changing one thing.
type SweepSpec struct {
	Over    SweepOver    `yaml:"over"`
	Measure SweepMeasure `yaml:"measure"` // default rate for a rate sweep or a phase with a rate, closed otherwise
	Points  []SweepPoint `yaml:"points"`
}

// SweepPoint is one point: what it changes from the phase's template.
// A mix point names op percentages ({update: 10}); the ops of the
// phase's mix it does not name are scaled in proportion to fill the
// rest (PointMix).
type SweepPoint struct {
	Label       string             `yaml:"label"`
	Rate        float64            `yaml:"rate"`
	Concurrency int                `yaml:"concurrency"`
	FieldBytes  int                `yaml:"field_bytes"`
	Mix         map[string]float64 `yaml:",inline"`
}

// PointMix is the mix point j of a mix sweep runs: the ops the point
// names at its percentages, the phase mix's other ops scaled in
// proportion to fill the rest (a phase mix {search: 65, read: 35} and a
// point {update: 10} give search 58.5, read 31.5, update 10). Other
// sweeps run the phase's mix. ok is false when the point's percentages
// cannot make a mix of 100 (Validate says why).
func (p *Phase) PointMix(j int) (map[string]float64, bool) {
	if p.Sweep == nil || p.Sweep.Over != SweepMix || j < 0 || j >= len(p.Sweep.Points) {
		return p.Mix, true
	}
	m, msg := resolveMix(p.Mix, p.Sweep.Points[j].Mix)
	return m, msg == ""
}

// resolveMix scales base's ops not named in point to fill what point's
// percentages leave; msg says why that cannot make 100.
func resolveMix(base, point map[string]float64) (map[string]float64, string) {
	fixed, rest := 0.0, 0.0
	for _, w := range point {
		fixed += w
	}
	for op, w := range base {
		if _, named := point[op]; !named {
			rest += w
		}
	}
	switch {
	case math.IsNaN(fixed) || math.IsInf(fixed, 0):
		return nil, "percentages must be numbers"
	case fixed > 100.01:
		return nil, fmt.Sprintf("percentages add up to %g, more than 100", fixed)
	case rest <= 0 && (fixed < 99.99 || fixed > 100.01):
		return nil, fmt.Sprintf("percentages add up to %g, and the phase's mix has no other op to fill the rest to 100", fixed)
	}
	out := make(map[string]float64, len(base)+len(point))
	for op, w := range point {
		out[op] = w
	}
	for op, w := range base {
		if _, named := point[op]; !named && rest > 0 {
			// (100-fixed)*w/rest rather than w*scale: 90*35/100 is
			// exactly 31.5; rounded to 1e-9 so 58.5 stays 58.5.
			out[op] = math.Round((100-fixed)*w/rest*1e9) / 1e9
		}
	}
	return out, ""
}

// PointLabel names point j (its stage in the run's results): its label,
// or one made from what it changes (update-10, rate-500,
// concurrency-16, value-1024).
func (p *Phase) PointLabel(j int) string {
	pt := p.Sweep.Points[j]
	if pt.Label != "" {
		return pt.Label
	}
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	switch p.Sweep.Over {
	case SweepMix:
		ops := sortedMixKeys(pt.Mix)
		parts := make([]string, len(ops))
		for i, op := range ops {
			parts[i] = op + "-" + num(pt.Mix[op])
		}
		return strings.Join(parts, "+")
	case SweepRate:
		return "rate-" + num(pt.Rate)
	case SweepConcurrency:
		return "concurrency-" + strconv.Itoa(pt.Concurrency)
	case SweepValueSize:
		return "value-" + strconv.Itoa(pt.FieldBytes)
	}
	return "point-" + strconv.Itoa(j+1)
}

// Mixes lists every mix the phase runs: its own and, in a mix sweep,
// each point's.
func (p *Phase) Mixes() []map[string]float64 {
	out := []map[string]float64{p.Mix}
	if p.Sweep != nil && p.Sweep.Over == SweepMix {
		for j := range p.Sweep.Points {
			if m, ok := p.PointMix(j); ok {
				out = append(out, m)
			}
		}
	}
	return out
}

func sortedMixKeys(m map[string]float64) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// applyDefaults picks the measure where the sweep leaves it out: at
// each point's rate in a rate sweep, at the phase's rate when it has
// one, closed loop otherwise.
func (sw *SweepSpec) applyDefaults(rate float64) {
	if sw.Measure == "" {
		sw.Measure = MeasureClosed
		if sw.Over == SweepRate || rate > 0 {
			sw.Measure = MeasureRate
		}
	}
}

// validateSweep checks a sweep phase's sweep: block and what it needs
// of the phase template.
func validateSweep(pp string, p *Phase, known func(op string) bool) []FieldError {
	var errs []FieldError
	add := func(path, format string, args ...any) {
		errs = append(errs, FieldError{Path: path, Msg: fmt.Sprintf(format, args...)})
	}
	if len(p.Mix) == 0 {
		add(pp+".mix", "a sweep needs a mix, e.g. {search: 65, read: 35} (a mix sweep's points change it)")
	}
	sw := p.Sweep
	if sw == nil {
		add(pp+".sweep", "a sweep phase needs sweep: {over: mix|rate|value_size|concurrency, points: [...]}")
		return errs
	}
	sp := pp + ".sweep"
	overOK := sweepOvers.Valid(sw.Over)
	switch {
	case sw.Over == "":
		add(sp+".over", "a sweep needs over: %s", sweepOvers.Text())
	case !overOK:
		add(sp+".over", "unknown %q (use %s)", sw.Over, sweepOvers.Text())
	}
	measureOK := sweepMeasures.Valid(sw.Measure)
	if !measureOK {
		add(sp+".measure", "unknown %q (use %s)", sw.Measure, sweepMeasures.Text())
	}
	switch {
	case len(sw.Points) == 0:
		add(sp+".points", "a sweep needs at least one point, e.g. [{update: 0}, {update: 10}]")
	case len(sw.Points) > MaxSweepPoints:
		add(sp+".points", "%d points; a sweep has at most %d", len(sw.Points), MaxSweepPoints)
	}
	if measureOK {
		switch sw.Measure {
		case MeasureClosed:
			if sw.Over == SweepRate {
				add(sp+".measure", "a rate sweep runs each point at its rate (measure: rate)")
			} else if p.Rate != 0 {
				add(pp+".rate", "a closed-loop sweep runs as fast as concurrency allows; leave out rate or use measure: rate")
			}
		case MeasureRate:
			if sw.Over == SweepRate && p.Rate != 0 {
				add(pp+".rate", "a rate sweep takes its rates from its points; leave out the phase's rate")
			} else if sw.Over != SweepRate && p.Rate <= 0 {
				add(pp+".rate", "measure: rate runs each point at the phase's rate; give it (ops/s)")
			}
		case MeasureCapacity:
			if sw.Over == SweepRate {
				add(sp+".measure", "a capacity search chooses the rates itself; sweep over mix, value_size or concurrency")
			}
			if p.Rate != 0 {
				add(pp+".rate", "a capacity sweep searches for the rate; leave out rate")
			}
			if p.Duration != 0 {
				add(pp+".duration", "a capacity sweep's probes last capacity.step_duration; leave out duration")
			}
			if p.Requests != 0 {
				add(pp+".requests", "a capacity sweep's probes last capacity.step_duration; leave out requests")
			}
		}
		if sw.Measure != MeasureCapacity && p.Duration <= 0 && p.Requests <= 0 {
			add(pp+".duration", "each sweep point runs for the phase's duration (such as 30s) or requests: N")
		}
	}
	labels := map[string]int{}
	for j := range sw.Points {
		if j >= MaxSweepPoints {
			break
		}
		pt := &sw.Points[j]
		ptp := fmt.Sprintf("%s.points[%d]", sp, j)
		if overOK {
			only := func(key string, set bool) {
				if set {
					add(ptp+"."+key, "a %s sweep's point gives only %s", sw.Over, overKey(sw.Over))
				}
			}
			only("rate", sw.Over != SweepRate && pt.Rate != 0)
			only("concurrency", sw.Over != SweepConcurrency && pt.Concurrency != 0)
			only("field_bytes", sw.Over != SweepValueSize && pt.FieldBytes != 0)
			if sw.Over != SweepMix {
				for _, op := range sortedMixKeys(pt.Mix) {
					if known(op) {
						add(ptp+"."+op, "a %s sweep's point gives only %s", sw.Over, overKey(sw.Over))
					} else {
						add(ptp+"."+op, "unknown key %q in a %s sweep's point (it gives %s and optionally label)", op, sw.Over, overKey(sw.Over))
					}
				}
			}
			switch sw.Over {
			case SweepMix:
				errs = append(errs, validatePointMix(ptp, p.Mix, pt.Mix, known)...)
			case SweepRate:
				if msg := badRate(pt.Rate, false); msg != "" {
					add(ptp+".rate", "%s", msg)
				}
			case SweepConcurrency:
				if pt.Concurrency < 1 || pt.Concurrency > MaxConcurrency {
					add(ptp+".concurrency", "must be at least 1 and at most %d, got %d", MaxConcurrency, pt.Concurrency)
				}
			case SweepValueSize:
				if pt.FieldBytes < 1 || pt.FieldBytes > 16<<20 {
					add(ptp+".field_bytes", "must be between 1 and 16777216, got %d", pt.FieldBytes)
				}
			}
			label := p.PointLabel(j)
			lp := ptp
			if pt.Label != "" {
				lp += ".label"
			}
			switch {
			case badName(label) != "":
				// validateNames says what is wrong with it.
			case labels[label] > 0:
				add(lp, "point %q is also points[%d]; give one a label", label, labels[label]-1)
			default:
				labels[label] = j + 1
			}
		}
	}
	return errs
}

// overKey is the point key a sweep over o sets.
func overKey(o SweepOver) string {
	switch o {
	case SweepMix:
		return "op percentages such as {update: 10}"
	case SweepRate:
		return "rate"
	case SweepConcurrency:
		return "concurrency"
	case SweepValueSize:
		return "field_bytes"
	}
	return string(o)
}

func validatePointMix(ptp string, base, point map[string]float64, known func(op string) bool) []FieldError {
	var errs []FieldError
	if len(point) == 0 {
		return []FieldError{{ptp, "a mix point gives op percentages such as {update: 10}"}}
	}
	bad := false
	for _, op := range sortedMixKeys(point) {
		w := point[op]
		if !known(op) {
			errs = append(errs, FieldError{ptp + "." + op, fmt.Sprintf("unknown op %q (known: %s)", op, strings.Join(OpNames(), ", "))})
			bad = true
		}
		if w < 0 || w > 100 || math.IsNaN(w) || math.IsInf(w, 0) {
			errs = append(errs, FieldError{ptp + "." + op, "a percentage must be between 0 and 100"})
			bad = true
		}
	}
	if !bad {
		if _, msg := resolveMix(base, point); msg != "" {
			errs = append(errs, FieldError{ptp, msg})
		}
	}
	return errs
}

// SweepAxis is what a sweep's chart draws on x: its name and each
// point's value (rates, workers, field bytes; in a mix sweep whose points
// each name one and the same op, that op's percentage). ok is false for
// a mix sweep whose points name other ops or several: its points are
// then drawn evenly spaced by label.
func (p *Phase) SweepAxis() (name string, xs []float64, ok bool) {
	sw := p.Sweep
	if sw == nil || len(sw.Points) == 0 {
		return "", nil, false
	}
	xs = make([]float64, len(sw.Points))
	switch sw.Over {
	case SweepRate:
		name = "target rate (ops/s)"
	case SweepConcurrency:
		name = "workers (connections)"
	case SweepValueSize:
		name = "field bytes"
	case SweepMix:
		op := ""
		for _, pt := range sw.Points {
			if len(pt.Mix) != 1 {
				return "", nil, false
			}
			for k := range pt.Mix {
				if op != "" && k != op {
					return "", nil, false
				}
				op = k
			}
		}
		name = op + " (% of ops)"
	default:
		return "", nil, false
	}
	for j, pt := range sw.Points {
		switch sw.Over {
		case SweepRate:
			xs[j] = pt.Rate
		case SweepConcurrency:
			xs[j] = float64(pt.Concurrency)
		case SweepValueSize:
			xs[j] = float64(pt.FieldBytes)
		case SweepMix:
			for _, v := range pt.Mix {
				xs[j] = v
			}
		}
	}
	return name, xs, true
}
