package scenarios

import (
	"fmt"
	"reflect"

	"gopkg.in/yaml.v3"
)

// PhaseKind is a phase's kind: the YAML `kind:` of a phase. Each kind
// lives in its own file (phase_<kind>.go: its constant, keys, decode,
// defaults, validation and overrides) and one line of the kind table
// (phase_kinds.go).
type PhaseKind string

// Phase is one part of a run: the fields every kind reads, and the
// spec of its kind. A phase's YAML is one flat mapping; the keys beyond
// the common ones are its kind's, and a key of another kind is a decode
// error on its line.
type Phase struct {
	Name     string    `yaml:"name"`
	Kind     PhaseKind `yaml:"kind"`
	Rate     float64   `yaml:"rate"` // ops/s; 0 = closed loop
	Duration Duration  `yaml:"duration"`
	// Requests bounds a measuring phase by a count of ops, like
	// redis-benchmark -n: alone, the phase (or each sweep point) runs
	// until that many ops are scheduled (closed loop: started); with
	// duration, whichever comes first ends it. With shards it is the
	// total over all shards. Only the kinds that list it in their
	// table entry's takes accept it (steady, sweep).
	Requests    int64              `yaml:"requests"`
	Mix         map[string]float64 `yaml:"mix"`
	Concurrency int                `yaml:"concurrency"`
	MaxLag      Duration           `yaml:"max_lag"`
	// Tick, when set, groups an open-loop phase's arrivals into ticks:
	// the ops the rate calls for in a tick are all intended at its
	// start (tick.go). 0 = each op at its own instant.
	Tick Duration `yaml:"tick"`
	// Warmup is excluded from the phase's summary and SLO verdicts.
	Warmup Duration `yaml:"warmup"`

	// The kind's own keys: decoding (or ApplyDefaults, for a phase
	// built in Go) sets the spec of the phase's kind; the others stay
	// nil. Capacity is also set on a sweep that measures capacity.
	Load     *LoadSpec     `yaml:"-"`
	Ramp     *RampSpec     `yaml:"-"`
	Capacity *CapacitySpec `yaml:"-"`
	Growth   *GrowthSpec   `yaml:"-"`
	Sweep    *SweepSpec    `yaml:"-"`
	Replay   *ReplaySpec   `yaml:"-"`

	// decoded holds what decoding found wrong with the phase, for Parse
	// to report: yaml.v3 drops a list item whose decoder returns an
	// error, so the phase keeps its problems and is validated too.
	decoded phaseProblems
}

// phaseProblems are a phase's decode problems: yaml.v3-worded lines
// ("line N: ..."), and keys of another kind.
type phaseProblems struct {
	yaml    []string
	foreign []foreignKey
}

// foreignKey is a key of another kind of phase, on its line.
type foreignKey struct {
	line     int
	key, msg string
}

// kindDef is one phase kind's entry in the kind table.
type kindDef struct {
	kind PhaseKind
	// keys is the struct whose yaml tags name the kind's own keys
	// beside the common ones (nil: none); decode fills the phase's
	// spec from a mapping of just those keys.
	keys   reflect.Type
	decode func(n *yaml.Node, p *Phase) []string
	// takes lists the common keys only some kinds accept (requests).
	takes []string
	// defaults fills what the file leaves out (and the kind's spec of a
	// phase built in Go); validate reports every problem with the
	// defaulted phase, on paths under pp.
	defaults func(s *Scenario, p *Phase)
	validate func(s *Scenario, pp string, p *Phase) []FieldError
	// overrides says which command-line and API overrides set the
	// phase's fields (runpath.Apply).
	overrides overrideRule
	// plan answers what the rest of the package asks of a phase of the
	// kind (bounds, scheduled time, memory, repeats).
	plan planRule
	// compared says two runs' phases of the kind are compared op by op
	// (PhaseKind.Compared).
	compared bool
	// budgeted says the SLO's error budgets apply to the kind's phases
	// (PhaseKind.Budgeted): they hold a rate meant to be served, not a
	// fill or a search that overloads the store on purpose.
	budgeted bool
}

// planRule is what a kind says about how its phase runs; a nil func
// gives the zero answer.
type planRule struct {
	// maxOps bounds the ops the phase can schedule; ok is false when
	// nothing does (closed loop by duration, a search).
	maxOps func(p *Phase) (n int64, ok bool)
	// scheduled is the phase's scheduled seconds when it starts with
	// records in the store, and the records after it.
	scheduled func(p *Phase, records int64) (secs float64, after int64)
	// openLoop says whether the phase's workers may have several due
	// ops at once (it runs at a rate); nil = when it has a rate.
	openLoop func(p *Phase) bool
	// repeated says whether repeat: N splits the phase into rounds.
	repeated func(p *Phase) bool
	// shapes are the workloads the phase runs besides its own
	// concurrency and the scenario's record (a sweep's points): the
	// memory bound and MaxConcurrency take the largest.
	shapes func(p *Phase, pp string) []phaseShape
	// growsTo is the record count the phase may grow the store to, on
	// its field's path (0: no more than it starts with).
	growsTo func(p *Phase, pp string) (n int64, path string)
	// labels are the names the phase gives its parts (a sweep's
	// points), each on its path: checked as phase names are.
	labels func(p *Phase, pp string) []pathLabel
	// checkRepeat reports what keeps the phase from running with
	// repeat: n (n > 1).
	checkRepeat func(s *Scenario, p *Phase, pp string, n int) []FieldError
	// ownTiming says the kind paces its ops itself (a capture's
	// timing): tick: does not apply to it.
	ownTiming bool
	// fills says the kind inserts the dataset itself: a scenario whose
	// first phase is one starts with an empty store.
	fills bool
}

// phaseShape is one workload a phase runs: its workers (0: the
// phase's concurrency) and its record's field size (0: the
// scenario's), each with the path that sets it.
type phaseShape struct {
	workers        int
	workersPath    string
	fieldBytes     int
	fieldBytesPath string
}

// pathLabel is a name a phase gives one of its parts, on its path.
type pathLabel struct {
	path, label string
}

// overrideRule is which overrides reach a phase of a kind.
type overrideRule struct {
	// rate and timed say whether --rate, and --duration/--warmup, set
	// the phase's; nil = never.
	rate  func(p *Phase) bool
	timed func(p *Phase) bool
	// records applies --records n (keyspace.records was ks); nil =
	// the kind has no record count of its own.
	records func(p *Phase, n, ks int64)
}

// keysOf is the yaml keys of struct T: a kind's key struct.
func keysOf[T any]() reflect.Type { return reflect.TypeFor[T]() }

// owners lists the kinds that take key beside the common keys.
func owners(key string) []PhaseKind {
	var out []PhaseKind
	for _, d := range kindTable() {
		if d.owns(key) {
			out = append(out, d.kind)
		}
	}
	return out
}

func (d *kindDef) owns(key string) bool {
	for _, k := range d.takes {
		if k == key {
			return true
		}
	}
	if d.keys == nil {
		return false
	}
	for _, k := range yamlKeys(d.keys) {
		if k == key {
			return true
		}
	}
	return false
}

// PhaseKinds lists the phase kinds in the order messages name them.
func PhaseKinds() []PhaseKind {
	var out []PhaseKind
	for _, d := range kindTable() {
		out = append(out, d.kind)
	}
	return out
}

func lookupKind(k PhaseKind) (*kindDef, bool) {
	for _, d := range kindTable() {
		if d.kind == k {
			return d, true
		}
	}
	return nil, false
}

func phaseKindText() string {
	names := []string{}
	for _, k := range PhaseKinds() {
		names = append(names, string(k))
	}
	return orList(names)
}

// Valid reports whether k is one of the phase kinds.
func (k PhaseKind) Valid() bool {
	_, ok := lookupKind(k)
	return ok
}

// Compared reports whether phases of kind k are compared across runs:
// a regression check against earlier runs and soakd compare pair them
// by name, op by op. Those are the kinds that hold one workload at one
// rate for a set time; the others change rate or workload on purpose
// (or only fill the store). An unknown kind is not compared.
func (k PhaseKind) Compared() bool {
	d, ok := lookupKind(k)
	return ok && d.compared
}

// Budgeted reports whether the SLO's error budgets (burn-rate alerts)
// judge phases of kind k. An unknown kind is not budgeted.
func (k PhaseKind) Budgeted() bool {
	d, ok := lookupKind(k)
	return ok && d.budgeted
}

// ParsePhaseKind returns the phase kind named s, or an error naming the
// kinds there are.
func ParsePhaseKind(s string) (PhaseKind, error) {
	if k := PhaseKind(s); k.Valid() {
		return k, nil
	}
	names := []string{}
	for _, k := range PhaseKinds() {
		names = append(names, string(k))
	}
	return "", fmt.Errorf("unknown phase kind %q%s (use %s)", s, didYouMean(s, names), phaseKindText())
}

// applyPhaseDefaults fills what phase i leaves out: the common fields,
// then its kind's.
func (s *Scenario) applyPhaseDefaults(i int) {
	p := &s.Phases[i]
	if p.Name == "" {
		p.Name = fmt.Sprintf("%s-%d", p.Kind, i+1)
	}
	if p.Concurrency == 0 {
		p.Concurrency = DefaultConcurrency
	}
	if p.MaxLag == 0 {
		p.MaxLag = DefaultMaxLag
	}
	if d, ok := lookupKind(p.Kind); ok && d.defaults != nil {
		d.defaults(s, p)
	}
}

// validatePhases checks every phase: the checks every kind shares here,
// then its kind's own.
func (s *Scenario) validatePhases() []FieldError {
	var errs []FieldError
	add := func(path, format string, args ...any) {
		errs = append(errs, FieldError{Path: path, Msg: fmt.Sprintf(format, args...)})
	}
	if len(s.Phases) == 0 {
		add("phases", "a scenario needs at least one phase")
	}
	names := map[string]int{}
	for i := range s.Phases {
		p := &s.Phases[i]
		pp := fmt.Sprintf("phases[%d]", i)
		if j, dup := names[p.Name]; dup {
			add(pp+".name", "phase name %q is also used by phases[%d]", p.Name, j)
		}
		names[p.Name] = i
		if msg := badRate(p.Rate, true); msg != "" {
			add(pp+".rate", "%s", msg)
		}
		if p.Concurrency < 1 || p.Concurrency > MaxConcurrency {
			add(pp+".concurrency", "must be at least 1 and at most %d (omit it for the default %d), got %d", MaxConcurrency, DefaultConcurrency, p.Concurrency)
		}
		if p.MaxLag < 0 {
			add(pp+".max_lag", "must not be negative")
		}
		errs = append(errs, validateTick(pp, p)...)
		if p.Warmup < 0 || (p.Duration > 0 && p.Warmup >= p.Duration) {
			add(pp+".warmup", "must be shorter than the phase duration")
		}
		if p.Requests < 0 {
			add(pp+".requests", "must not be negative")
		}
		errs = append(errs, s.validateMix(pp, p.Mix)...)
		d, ok := lookupKind(p.Kind)
		switch {
		case p.Kind == "":
			add(pp+".kind", "every phase needs a kind (%s)", phaseKindText())
		case !ok:
			_, err := ParsePhaseKind(string(p.Kind))
			add(pp+".kind", "%s", err)
		case d.validate != nil:
			errs = append(errs, d.validate(s, pp, p)...)
		}
	}
	return errs
}

// plan is the phase's kind's plan rule (zero for an unknown kind).
func (p *Phase) plan() planRule {
	if d, ok := lookupKind(p.Kind); ok {
		return d.plan
	}
	return planRule{}
}

// TakesRateOverride says whether --rate (and the API's rate) sets the
// phase's rate.
func (p *Phase) TakesRateOverride() bool {
	d, ok := lookupKind(p.Kind)
	return ok && d.overrides.rate != nil && d.overrides.rate(p)
}

// TakesDurationOverride says whether --duration and --warmup set the
// phase's duration and warmup.
func (p *Phase) TakesDurationOverride() bool {
	d, ok := lookupKind(p.Kind)
	return ok && d.overrides.timed != nil && d.overrides.timed(p)
}

// OverrideRecords applies --records n to the phase, keyspace.records
// having been ks.
func (p *Phase) OverrideRecords(n, ks int64) {
	if d, ok := lookupKind(p.Kind); ok && d.overrides.records != nil {
		d.overrides.records(p, n, ks)
	}
}

// fieldErr is a FieldError with a formatted message.
func fieldErr(path, format string, args ...any) FieldError {
	return FieldError{Path: path, Msg: fmt.Sprintf(format, args...)}
}
