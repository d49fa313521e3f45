package scenarios

import (
	"reflect"
	"testing"
)

// A mix sweep's point names the ops it sets; the phase mix's other ops
// are scaled in proportion: the study's update sweep from 65/35.
func TestSweepPointMix(t *testing.T) {
	sc, err := Parse("s.yaml", []byte(`name: s
keyspace: {records: 100}
phases:
  - name: sweep
    kind: sweep
    duration: 10s
    warmup: 1s
    mix: {search: 65, read: 35}
    sweep:
      over: mix
      points: [{update: 0}, {update: 10}, {update: 50}, {insert: 100}, {label: half, read: 50, update: 50}]
`))
	if err != nil {
		t.Fatal(err)
	}
	p := &sc.Phases[0]
	if p.Sweep.Measure != MeasureClosed {
		t.Errorf("measure %q, want closed (no rate)", p.Sweep.Measure)
	}
	want := []struct {
		label string
		mix   map[string]float64
	}{
		{"update-0", map[string]float64{"search": 65, "read": 35, "update": 0}},
		{"update-10", map[string]float64{"search": 58.5, "read": 31.5, "update": 10}},
		{"update-50", map[string]float64{"search": 32.5, "read": 17.5, "update": 50}},
		{"insert-100", map[string]float64{"search": 0, "read": 0, "insert": 100}},
		{"half", map[string]float64{"search": 0, "read": 50, "update": 50}},
	}
	for j, w := range want {
		m, ok := p.PointMix(j)
		if !ok || !reflect.DeepEqual(m, w.mix) {
			t.Errorf("point %d mix %v (%v), want %v", j, m, ok, w.mix)
		}
		if l := p.PointLabel(j); l != w.label {
			t.Errorf("point %d label %q, want %q", j, l, w.label)
		}
	}
	// The ops the points add count as used: update and insert are run.
	if !sc.Uses(OpUpdate) || !sc.Uses(OpInsert) || !sc.Uses(OpSearch) || sc.Uses(OpDelete) {
		t.Errorf("Uses: update %v insert %v search %v delete %v", sc.Uses(OpUpdate), sc.Uses(OpInsert), sc.Uses(OpSearch), sc.Uses(OpDelete))
	}
}

// Rate, concurrency and value-size sweeps: labels, defaults, bounds.
func TestSweepOtherAxes(t *testing.T) {
	sc, err := Parse("s.yaml", []byte(`name: s
keyspace: {records: 100}
phases:
  - {name: r, kind: sweep, duration: 2s, mix: {get: 100}, sweep: {over: rate, points: [{rate: 100}, {rate: 250.5}]}}
  - {name: c, kind: sweep, requests: 500, mix: {get: 100}, sweep: {over: concurrency, points: [{concurrency: 1}, {concurrency: 700}]}}
  - {name: v, kind: sweep, rate: 50, duration: 1s, mix: {set: 100}, sweep: {over: value_size, points: [{field_bytes: 10}, {field_bytes: 1000}]}}
  - {name: k, kind: sweep, mix: {get: 100}, capacity: {start: 100, step_duration: 1s}, sweep: {over: mix, measure: capacity, points: [{get: 100}]}}
`))
	if err != nil {
		t.Fatal(err)
	}
	ph := sc.Phases
	if ph[0].Sweep.Measure != MeasureRate || ph[0].PointLabel(1) != "rate-250.5" {
		t.Errorf("rate sweep: measure %q label %q", ph[0].Sweep.Measure, ph[0].PointLabel(1))
	}
	if ph[1].Sweep.Measure != MeasureClosed || ph[1].PointLabel(1) != "concurrency-700" || sc.MaxConcurrency() != 700 {
		t.Errorf("concurrency sweep: measure %q label %q max concurrency %d", ph[1].Sweep.Measure, ph[1].PointLabel(1), sc.MaxConcurrency())
	}
	if ph[2].Sweep.Measure != MeasureRate || ph[2].PointLabel(0) != "value-10" {
		t.Errorf("value sweep: measure %q label %q", ph[2].Sweep.Measure, ph[2].PointLabel(0))
	}
	if c := ph[3].Capacity; c == nil || c.Factor != DefaultCapacityFactor || c.Precision != DefaultCapacityPrecision {
		t.Errorf("capacity sweep defaults: %+v", c)
	}
	// Bounded sweeps count their ops (pops are pre-filled from this).
	if n, ok := (&Scenario{Phases: ph[:2]}).MaxOps(OpGet); !ok || n != 200+501+500*2 {
		t.Errorf("MaxOps = %d, %v; want %d, true", n, ok, 200+501+1000)
	}
}

// Every sweep problem is reported at once, each on its own line.
func TestSweepValidate(t *testing.T) {
	src := `name: t
keyspace: {records: 1000}
phases:
  - name: a
    kind: sweep
    duration: 5s
    mix: {search: 65, read: 35}
    sweep:
      over: mixes
      points: []
  - name: b
    kind: sweep
    duration: 5s
    mix: {search: 65, read: 35}
    sweep:
      over: mix
      measure: fast
      points:
        - {update: 120}
        - {read: 60, update: 50}
        - {nope: 10}
        - {}
        - {update: 10, rate: 5}
        - {update: 10}
  - name: c
    kind: sweep
    mix: {get: 100}
    rate: 100
    sweep:
      over: rate
      points: [{rate: -1}, {get: 5}]
  - name: d
    kind: sweep
    duration: 1s
    mix: {get: 100}
    sweep: {over: concurrency, measure: closed, points: [{concurrency: 0}, {concurrency: 20000}, {label: "x y", concurrency: 2}]}
  - name: e
    kind: sweep
    duration: 1s
    rate: 10
    mix: {get: 100}
    sweep: {over: value_size, measure: capacity, points: [{field_bytes: 0}]}
  - name: f
    kind: sweep
    duration: 1s
  - name: g
    kind: steady
    duration: 1s
    mix: {get: 100}
    sweep: {over: rate, points: [{rate: 1}]}
  - name: h
    kind: sweep
    mix: {get: 100}
    sweep: {over: mix, points: [{get: 100}]}
  - name: i
    kind: sweep
    duration: 1s
    mix: {get: 100}
    capacity: {start: 10}
    sweep: {over: mix, points: [{get: 100}]}
`
	ps := problemsOf(t, src)
	for _, want := range []struct {
		line  int
		field string
		sub   string
	}{
		{9, "phases[0].sweep.over", `unknown "mixes" (use mix, rate, value_size or concurrency)`},
		{10, "phases[0].sweep.points", "at least one point"},
		{17, "phases[1].sweep.measure", `unknown "fast"`},
		{19, "phases[1].sweep.points[0].update", "between 0 and 100"},
		{20, "phases[1].sweep.points[1]", "add up to 110, more than 100"},
		{21, "phases[1].sweep.points[2].nope", `unknown op "nope"`},
		{22, "phases[1].sweep.points[3]", "gives op percentages"},
		{23, "phases[1].sweep.points[4].rate", "a mix sweep's point gives only op percentages"},
		{24, "phases[1].sweep.points[5]", `point "update-10" is also points[4]`},
		{28, "phases[2].rate", "takes its rates from its points"},
		{25, "phases[2].duration", "for the phase's duration"},
		{31, "phases[2].sweep.points[0].rate", "positive"},
		{31, "phases[2].sweep.points[1].get", "a rate sweep's point gives only rate"},
		{36, "phases[3].sweep.points[0].concurrency", "at least 1"},
		{36, "phases[3].sweep.points[1].concurrency", "at most 10000"},
		{36, "phases[3].sweep.points[2].label", "holds a space"},
		{39, "phases[4].duration", "leave out duration"},
		{40, "phases[4].rate", "leave out rate"},
		{42, "phases[4].sweep.points[0].field_bytes", "between 1 and 16777216"},
		{43, "phases[5].name", "a sweep phase needs sweep:"},
		{43, "phases[5].name", "a sweep needs a mix"},
		{50, "phases[6].sweep", "only a sweep phase takes sweep (this is a steady phase)"},
		{51, "phases[7].duration", "each sweep point runs for the phase's duration"},
		{59, "phases[8].capacity", "only a capacity phase or a capacity sweep (measure: capacity) takes capacity (this sweep measures closed)"},
	} {
		if !hasProblem(ps, want.line, "", want.sub) {
			t.Errorf("missing s.yaml:%d %s %q in\n%v", want.line, want.field, want.sub, ps)
		}
	}
}

// The chart's axis: a mix sweep whose points each set the same one op is
// drawn against that op's percentage; points that set other ops or
// several have none (evenly spaced by label); rates, workers and value
// sizes are their own axis.
func TestSweepAxis(t *testing.T) {
	sc, err := Parse("s.yaml", []byte(`name: s
keyspace: {records: 100}
phases:
  - {name: u, kind: sweep, duration: 1s, mix: {search: 65, read: 35}, sweep: {over: mix, points: [{update: 0}, {update: 12.5}]}}
  - {name: two, kind: sweep, duration: 1s, mix: {search: 65, read: 35}, sweep: {over: mix, points: [{update: 0}, {insert: 100}]}}
  - {name: both, kind: sweep, duration: 1s, mix: {search: 65, read: 35}, sweep: {over: mix, points: [{update: 10, read: 10}]}}
  - {name: c, kind: sweep, duration: 1s, mix: {read: 100}, sweep: {over: concurrency, points: [{concurrency: 3}]}}
`))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []struct {
		name string
		xs   []float64
		ok   bool
	}{
		{"update (% of ops)", []float64{0, 12.5}, true},
		{"", nil, false},
		{"", nil, false},
		{"workers (connections)", []float64{3}, true},
	} {
		name, xs, ok := sc.Phases[i].SweepAxis()
		if name != want.name || ok != want.ok || !reflect.DeepEqual(xs, want.xs) {
			t.Errorf("phase %s: axis %q %v %v, want %q %v %v", sc.Phases[i].Name, name, xs, ok, want.name, want.xs, want.ok)
		}
	}
}
