package scenarios

import (
	"reflect"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// decoded decodes src as Parse does and applies the defaults, without
// validating (a replay's capture need not exist).
func decoded(t *testing.T, src string) *Scenario {
	t.Helper()
	var sc Scenario
	if err := yaml.Unmarshal([]byte(src), &sc); err != nil {
		t.Fatal(err)
	}
	for i := range sc.Phases {
		if ps := sc.Phases[i].decodeProblems("d.yaml", i); len(ps) > 0 {
			t.Fatalf("decode problems: %v", ps)
		}
	}
	sc.ApplyDefaults()
	return &sc
}

// Each kind decodes its own keys into its spec and fills its defaults;
// the other kinds' specs stay nil.
func TestKindDefaults(t *testing.T) {
	sc := decoded(t, `name: d
keyspace: {records: 5000}
phases:
  - {kind: load}
  - {kind: steady, requests: 10, mix: {get: 100}}
  - {kind: ramp, from: 100, to: 300, step: 100, step_duration: 2s, mix: {get: 100}}
  - {kind: capacity, mix: {get: 100}}
  - {kind: growth, mix: {get: 100}, growth: {batch: 10, measure_for: 1s}}
  - {kind: sweep, rate: 50, duration: 1s, mix: {get: 100}, sweep: {over: concurrency, points: [{concurrency: 2}]}}
  - {kind: sweep, mix: {get: 100}, sweep: {over: mix, measure: capacity, points: [{get: 100}]}}
  - {kind: replay, source: c.txt}
`)
	ph := sc.Phases
	for i, p := range ph {
		if p.Concurrency != DefaultConcurrency || p.MaxLag != DefaultMaxLag || p.Name != string(p.Kind)+"-"+string(rune('1'+i)) {
			t.Errorf("phases[%d] common defaults: name %q concurrency %d max_lag %v", i, p.Name, p.Concurrency, p.MaxLag)
		}
	}
	if l := ph[0].Load; l == nil || l.Records != 5000 || !reflect.DeepEqual(ph[0].Mix, map[string]float64{"insert": 100}) {
		t.Errorf("load: %+v mix %v", l, ph[0].Mix)
	}
	if ph[1].Requests != 10 || ph[1].Load != nil || ph[1].Ramp != nil {
		t.Errorf("steady: %+v", ph[1])
	}
	want := []Step{{100, Duration(2 * time.Second)}, {200, Duration(2 * time.Second)}, {300, Duration(2 * time.Second)}}
	if r := ph[2].Ramp; r == nil || !reflect.DeepEqual(r.Steps, want) {
		t.Errorf("ramp steps %+v", r)
	}
	if c := ph[3].Capacity; c == nil || *c != (CapacitySpec{Start: DefaultCapacityStart, Factor: DefaultCapacityFactor,
		Max: DefaultCapacityMax, StepDuration: DefaultCapacityStep, Precision: DefaultCapacityPrecision}) {
		t.Errorf("capacity %+v", c)
	}
	if g := ph[4].Growth; g == nil || g.StopRecords != 5000 || g.CliffFactor != DefaultCliffFactor || g.MaxStages != DefaultGrowthMaxStages || g.Measure != MeasureMix {
		t.Errorf("growth %+v", g)
	}
	if sw := ph[5].Sweep; sw == nil || sw.Measure != MeasureRate || ph[5].Capacity != nil {
		t.Errorf("sweep with a rate: %+v capacity %+v", sw, ph[5].Capacity)
	}
	if c := ph[6].Capacity; ph[6].Sweep == nil || c == nil || c.Start != DefaultCapacityStart {
		t.Errorf("capacity sweep: capacity %+v", c)
	}
	if r := ph[7].Replay; r == nil || !reflect.DeepEqual(*r, ReplaySpec{Source: "c.txt", Format: "monitor", Order: ReplayOrderFile, Group: ReplayGroupCommand}) {
		t.Errorf("replay %+v", r)
	}

	// A phase built in Go gets its kind's spec from ApplyDefaults.
	g := &Scenario{Keyspace: Keyspace{Records: 7}, Phases: []Phase{{Kind: PhaseLoad}, {Kind: PhaseRamp}, {Kind: PhaseReplay}}}
	g.ApplyDefaults()
	if g.Phases[0].Load == nil || g.Phases[0].Load.Records != 7 || g.Phases[1].Ramp == nil || g.Phases[2].Replay == nil {
		t.Errorf("Go-built phases: %+v", g.Phases)
	}
}

// Keys of another kind, unknown keys (at the phase and inside a kind's
// block) and mistyped values are all decode problems on their lines,
// reported with the validation problems of the same file; a foreign
// key in flow style does not hide a bad value beside it.
func TestDecodeByKind(t *testing.T) {
	ps := problemsOf(t, `name: t
keyspace: {records: 100}
phases:
  - {name: a, kind: replay, source: c.txt, records: 5, rate: -1}
  - {name: b, kind: load, requests: 3}
  - name: c
    kind: capacity
    mix: {get: 100}
    capacity: {start: 10, stop: 20}
    sweep: {over: rate}
  - {name: d, kind: ramp, steps: [{rate: 10, duration: 1s, label: x}], mix: {get: 100}, frobs: 1}
  - {name: e, kind: growth, mix: {get: 100}, growth: {batch: ten, measure_for: 1s}}
`)
	for _, want := range []struct {
		line        int
		field, text string
	}{
		{4, "phases[0].records", "only a load phase takes records (this is a replay phase)"},
		{4, "phases[0].rate", "positive"},
		{5, "phases[1].requests", "only a steady or sweep phase takes requests (this is a load phase)"},
		{9, "", `unknown key "stop" in capacityspec`},
		{10, "phases[2].sweep", "only a sweep phase takes sweep (this is a capacity phase)"},
		{11, "", `unknown key "label" in step`},
		{11, "", `unknown key "frobs" in phase`},
		{12, "", "phases[4].growth.batch: ten is not a number"},
	} {
		if !hasProblem(ps, want.line, want.field, want.text) {
			t.Errorf("missing s.yaml:%d %s %q in\n%v", want.line, want.field, want.text, ps)
		}
	}
	// The mistyped batch is not reported again as out of range.
	for _, p := range ps {
		if p.Field == "phases[4].growth.batch" {
			t.Errorf("follow-on problem of a mistyped value: %v", p)
		}
	}
}

// Merge keys are read like the phase's own keys, foreign ones included.
func TestPhaseMergeKeys(t *testing.T) {
	ps := problemsOf(t, `name: m
keyspace: {records: 100}
phases:
  - &s {name: a, kind: steady, rate: 50, duration: 2s, mix: {get: 100}, requests: 9}
  - {<<: *s, name: b, kind: ramp, steps: [{rate: 5, duration: 1s}]}
`)
	if !hasProblem(ps, 4, "phases[1].requests", "only a steady or sweep phase takes requests (this is a ramp phase)") || len(ps) != 1 {
		t.Errorf("merged foreign key:\n%v", ps)
	}
	ps = problemsOf(t, "name: m\nphases:\n  - {<<: 5, kind: steady, duration: 1s, mix: {get: 100}}\n")
	if !hasProblem(ps, 3, "", "map merge requires map or sequence of maps as the value") {
		t.Errorf("merge of a scalar:\n%v", ps)
	}
}

// Validate reports every problem of every kind at once, on its path.
func TestValidateReturnsEveryProblem(t *testing.T) {
	sc := &Scenario{Keyspace: Keyspace{Records: 10}, Phases: []Phase{
		{Name: "l", Kind: PhaseLoad, Load: &LoadSpec{Records: 20}, Mix: map[string]float64{"read": 100}},
		{Name: "s", Kind: PhaseSteady, Rate: -1},
		{Name: "r", Kind: PhaseRamp, Ramp: &RampSpec{Steps: []Step{{Rate: 0, Duration: 0}}}, Mix: map[string]float64{"get": 100}},
		{Name: "c", Kind: PhaseCapacity, Mix: map[string]float64{"get": 100}, Capacity: &CapacitySpec{Factor: 0.5}},
		{Name: "g", Kind: PhaseGrowth},
		{Name: "w", Kind: PhaseSweep, Mix: map[string]float64{"get": 100}},
		{Name: "x"},
		{Name: "y", Kind: "soak"},
	}}
	sc.ApplyDefaults()
	got := map[string]bool{}
	for _, fe := range sc.Validate() {
		got[fe.Path] = true
	}
	for _, p := range []string{
		"phases[0].records", "phases[0].mix.read",
		"phases[1].rate", "phases[1].duration", "phases[1].mix",
		"phases[2].steps[0].rate", "phases[2].steps[0].duration",
		"phases[3].capacity.factor",
		"phases[4].mix", "phases[4].growth",
		"phases[5].sweep",
		"phases[6].kind", "phases[7].kind",
	} {
		if !got[p] {
			t.Errorf("no problem on %s (got %v)", p, got)
		}
	}
}

// One generic serves every enum: list order, case folding, the parse
// error's words.
func TestEnumGeneric(t *testing.T) {
	e := newEnum("colour", "red", "green", "blue")
	if !e.Valid("green") || e.Valid("Green") || e.Valid("") {
		t.Error("Valid")
	}
	if _, err := e.Parse("pink"); err == nil || err.Error() != `unknown colour "pink" (use red, green or blue)` {
		t.Errorf("Parse: %v", err)
	}
	l := e.List()
	l[0] = "changed"
	if e.List()[0] != "red" {
		t.Error("List shares the enum's slice")
	}
	f := enum[string]{what: "shade", values: []string{"darkRed"}, fold: true, format: "%[1]s %[2]s: use %[3]s"}
	if v, err := f.Parse("DARKRED"); err != nil || v != "darkRed" {
		t.Errorf("fold: %q %v", v, err)
	}
	if _, err := f.Parse("x"); err == nil || err.Error() != "shade x: use darkRed" {
		t.Errorf("format: %v", err)
	}
	if orList(nil) != "" || orList([]string{"a"}) != "a" || orList([]string{"a", "b"}) != "a or b" {
		t.Error("orList")
	}
}

// The overrides each kind takes (runpath.Apply asks these).
func TestKindOverrides(t *testing.T) {
	sc := decoded(t, `name: o
keyspace: {records: 100}
phases:
  - {kind: load, records: 100}
  - {kind: load, records: 50}
  - {kind: steady, duration: 1s, mix: {get: 100}}
  - {kind: ramp, steps: [{rate: 1, duration: 1s}], mix: {get: 100}}
  - {kind: sweep, rate: 5, duration: 1s, mix: {get: 100}, sweep: {over: concurrency, points: [{concurrency: 1}]}}
  - {kind: sweep, duration: 1s, mix: {get: 100}, sweep: {over: rate, points: [{rate: 1}]}}
  - {kind: sweep, mix: {get: 100}, sweep: {over: mix, measure: capacity, points: [{get: 100}]}}
`)
	rate := []bool{false, false, true, true, true, false, false}
	timed := []bool{false, false, true, false, true, true, false}
	for i := range sc.Phases {
		p := &sc.Phases[i]
		if p.TakesRateOverride() != rate[i] || p.TakesDurationOverride() != timed[i] {
			t.Errorf("phases[%d] (%s): rate %v timed %v", i, p.Kind, p.TakesRateOverride(), p.TakesDurationOverride())
		}
		p.OverrideRecords(70, 100)
	}
	if sc.Phases[0].Load.Records != 70 || sc.Phases[1].Load.Records != 50 {
		t.Errorf("--records 70: %d, %d", sc.Phases[0].Load.Records, sc.Phases[1].Load.Records)
	}
}

// Only steady phases are compared across runs (regression checks,
// soakd compare); a kind the table does not know is not.
func TestKindCompared(t *testing.T) {
	for _, k := range PhaseKinds() {
		if got, want := k.Compared(), k == PhaseSteady; got != want {
			t.Errorf("%s.Compared() = %v, want %v", k, got, want)
		}
	}
	if PhaseKind("").Compared() || PhaseKind("soak").Compared() {
		t.Error("an unknown kind is compared")
	}
}
