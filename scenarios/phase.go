package scenarios

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

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

// phaseFields is Phase without its decoder: the common fields.
type phaseFields Phase

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
	// fills says the kind inserts the dataset itself: a scenario whose
	// first phase is one starts with an empty store.
	fills bool
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

// phaseKindKeys is the set of keys every phase takes.
func commonPhaseKeys() map[string]bool {
	keys := map[string]bool{}
	for _, k := range yamlKeys(reflect.TypeFor[phaseFields]()) {
		keys[k] = true
	}
	return keys
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

// UnmarshalYAML decodes a phase by kind: the common keys into Phase,
// the kind's keys into its spec (strictly: an unknown key anywhere is
// reported), and every key that belongs to another kind as an error on
// its line. The problems stay with the phase until Parse collects them
// (decodeProblems).
func (p *Phase) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.ShortTag() == "!!null" {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		v := ""
		if n.Kind == yaml.ScalarNode {
			v = n.Value
			if len(v) > 10 {
				v = v[:7] + "..."
			}
			v = " `" + v + "`"
		}
		return typeErr(n, fmt.Sprintf("cannot unmarshal %s%s into scenarios.Phase", n.ShortTag(), v))
	}
	pairs := mappingPairs(n)
	var def *kindDef
	known := false
	for _, kv := range pairs {
		if kv[0].Value == "kind" && kv[1].Kind == yaml.ScalarNode {
			def, known = lookupKind(PhaseKind(kv[1].Value))
		}
	}
	common, own := subMapping(n), subMapping(n)
	commonKeys := commonPhaseKeys()
	for _, kv := range pairs {
		key := kv[0].Value
		switch {
		case commonKeys[key] && (len(owners(key)) == 0 || known && def.owns(key)):
			common.Content = append(common.Content, kv[0], kv[1])
		case known && def.owns(key):
			own.Content = append(own.Content, kv[0], kv[1])
		}
	}
	var errs []string
	var foreign []foreignKey
	errs = appendDecodeErr(errs, common, common.Decode((*phaseFields)(p)))
	for _, kv := range pairs {
		key := kv[0].Value
		switch {
		case known && def.owns(key):
		case commonKeys[key] && len(owners(key)) == 0:
		case len(owners(key)) > 0:
			if known {
				foreign = append(foreign, foreignKey{kv[0].Line, key, foreignKeyMsg(key, owners(key), p.Kind)})
			}
			// Without a known kind the kind is what is wrong
			// (Validate says so); its keys are not decoded.
		default:
			errs = append(errs, fmt.Sprintf("line %d: field %s not found in type scenarios.Phase", kv[0].Line, key))
		}
	}
	if known && def.decode != nil {
		errs = append(errs, def.decode(own, p)...)
	}
	p.decoded = phaseProblems{yaml: errs, foreign: foreign}
	return nil
}

// decodeProblems returns the problems decoding found with phase i.
func (p *Phase) decodeProblems(file string, i int) Problems {
	var out Problems
	if len(p.decoded.yaml) > 0 {
		out = append(out, decodeProblems(file, &yaml.TypeError{Errors: p.decoded.yaml})...)
	}
	for _, f := range p.decoded.foreign {
		out = append(out, Problem{File: file, Line: f.line, Field: fmt.Sprintf("phases[%d].%s", i, f.key), Msg: f.msg})
	}
	p.decoded = phaseProblems{}
	return out
}

// foreignKeyMsg says that key belongs to the kinds of, not to kind.
func foreignKeyMsg(key string, of []PhaseKind, kind PhaseKind) string {
	names := make([]string, len(of))
	for i, k := range of {
		names[i] = string(k)
	}
	return fmt.Sprintf("only a %s phase takes %s (this is a %s phase)", orList(names), key, kind)
}

// decodeKeys decodes the mapping n (a kind's own keys) into v, a
// pointer to the kind's key struct, and returns its problems as
// yaml.v3 words them: mistyped values and unknown keys at any depth.
func decodeKeys(n *yaml.Node, v any) []string {
	errs := unknownKeys(n, reflect.TypeOf(v).Elem())
	return appendDecodeErr(errs, n, n.Decode(v))
}

func appendDecodeErr(errs []string, n *yaml.Node, err error) []string {
	var te *yaml.TypeError
	switch {
	case err == nil:
	case errors.As(err, &te):
		errs = append(errs, te.Errors...)
	default:
		errs = append(errs, fmt.Sprintf("line %d: %v", n.Line, strings.TrimPrefix(err.Error(), "yaml: ")))
	}
	return errs
}

// subMapping is an empty mapping placed where n is.
func subMapping(n *yaml.Node) *yaml.Node {
	return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: n.Line, Column: n.Column}
}

// mappingPairs is n's key/value pairs with merge keys (<<) resolved,
// the mapping's own keys first.
func mappingPairs(n *yaml.Node) [][2]*yaml.Node {
	var out, merged [][2]*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Value != "<<" || k.ShortTag() != "!!merge" {
			out = append(out, [2]*yaml.Node{k, v})
			continue
		}
		srcs := []*yaml.Node{v}
		if v.Kind == yaml.SequenceNode {
			srcs = v.Content
		}
		for _, m := range srcs {
			if m.Kind == yaml.AliasNode && m.Alias != nil {
				m = m.Alias
			}
			if m.Kind == yaml.MappingNode {
				merged = append(merged, mappingPairs(m)...)
			}
		}
	}
	seen := map[string]bool{}
	for _, kv := range out {
		seen[kv[0].Value] = true
	}
	for _, kv := range merged {
		if !seen[kv[0].Value] {
			seen[kv[0].Value] = true
			out = append(out, kv)
		}
	}
	return out
}

// yamlKeys lists the keys a struct type decodes (inline structs' too).
func yamlKeys(t reflect.Type) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		switch {
		case name == "-" || !f.IsExported():
		case opts == "inline" && f.Type.Kind() == reflect.Struct:
			out = append(out, yamlKeys(f.Type)...)
		case opts == "inline":
		case name == "":
			out = append(out, strings.ToLower(f.Name))
		default:
			out = append(out, name)
		}
	}
	return out
}

var unmarshalerType = reflect.TypeFor[yaml.Unmarshaler]()

// unknownKeys reports, in yaml.v3's words, the keys of n (and of the
// mappings inside it) that type t has no field for: what a decoder with
// KnownFields says, for the parts of a file decoded node by node.
func unknownKeys(n *yaml.Node, t reflect.Type) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n.Kind == yaml.AliasNode || reflect.PointerTo(t).Implements(unmarshalerType) {
		return nil // aliases are checked where they are defined
	}
	var errs []string
	switch {
	case t.Kind() == reflect.Struct && n.Kind == yaml.MappingNode:
		fields, rest := structFields(t)
		for _, kv := range mappingPairs(n) {
			switch ft, ok := fields[kv[0].Value]; {
			case ok:
				errs = append(errs, unknownKeys(kv[1], ft)...)
			case rest != nil:
				errs = append(errs, unknownKeys(kv[1], rest.Elem())...)
			default:
				errs = append(errs, fmt.Sprintf("line %d: field %s not found in type %s", kv[0].Line, kv[0].Value, t))
			}
		}
	case (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) && n.Kind == yaml.SequenceNode:
		for _, c := range n.Content {
			errs = append(errs, unknownKeys(c, t.Elem())...)
		}
	case t.Kind() == reflect.Map && n.Kind == yaml.MappingNode:
		for _, kv := range mappingPairs(n) {
			errs = append(errs, unknownKeys(kv[1], t.Elem())...)
		}
	}
	return errs
}

// structFields maps a struct's yaml keys to their types; rest is the
// type of an inline map that takes every other key (nil if none).
func structFields(t reflect.Type) (fields map[string]reflect.Type, rest reflect.Type) {
	fields = map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		switch {
		case name == "-" || !f.IsExported():
		case opts == "inline" && f.Type.Kind() == reflect.Map:
			rest = f.Type
		case opts == "inline" && f.Type.Kind() == reflect.Struct:
			sub, r := structFields(f.Type)
			for k, v := range sub {
				fields[k] = v
			}
			if r != nil {
				rest = r
			}
		case name == "":
			fields[strings.ToLower(f.Name)] = f.Type
		default:
			fields[name] = f.Type
		}
	}
	return fields, rest
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

// ParsePhaseKind returns the phase kind named s, or an error naming the
// kinds there are.
func ParsePhaseKind(s string) (PhaseKind, error) {
	if k := PhaseKind(s); k.Valid() {
		return k, nil
	}
	return "", fmt.Errorf("unknown phase kind %q (use %s)", s, phaseKindText())
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
