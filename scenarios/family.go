package scenarios

import (
	"fmt"
	"io"

	"gopkg.in/yaml.v3"
)

// A store family is what stores speaking one protocol share: the form
// of a custom op (ops.<name>.<family>) and the rules of a replay. Redis
// and the embedded store are the RESP family "redis". A store's adapter
// declares its family (Store.Family) and the registry hands scenarios
// the family's CustomFormat and ReplayRules, so this package names no
// store and a new store adds nothing here.

// CustomFormat decodes a family's form of a custom op: the node under
// ops.<name>.<family>.
type CustomFormat interface {
	// Decode decodes n strictly. A problem is a *yaml.TypeError whose
	// messages start "line N: "; the form is returned with it, partly
	// filled, so validation goes on.
	Decode(n *yaml.Node) (CustomForm, error)
}

// CustomForm is one custom op's form for a family, decoded.
type CustomForm interface {
	// Templates lists the form's template strings in the order the
	// adapter renders them (datagen keeps that order).
	Templates() []string
	// Places says where each of segs' placeholders lands, segs being
	// template part (an index into Templates): how datagen escapes its
	// values. nil: every value is a separate argument, sent raw.
	Places(part int, segs []Segment) []Place
	// ReadOnly reports whether the op only reads: the adapters give a
	// read the read timeout, and a growth phase refuses one as its
	// insert. An op soakd cannot tell counts as a write.
	ReadOnly() bool
	// Check returns every problem of the form, each on its path under
	// c.Path.
	Check(c CustomCheck) []FieldError
}

// CustomCheck is what a form's Check is given.
type CustomCheck struct {
	Scenario *Scenario
	Op       *CustomOp
	Name     string // the op's name
	Path     string // ops.<name>.<family>
	// AllowDestructive: the scenario says allow_destructive: true, or
	// its target is a scratch store (Store.Scratch).
	AllowDestructive bool
	IsBinding        func(name string) bool
	// MaxLen is the longest a template's segments render.
	MaxLen func(segs []Segment) int64
}

// Add appends a problem at path to errs, for forms' checks.
func Add(errs *[]FieldError, path, format string, args ...any) {
	*errs = append(*errs, FieldError{Path: path, Msg: fmt.Sprintf(format, args...)})
}

// ReplayRules are a family's rules for a replay phase.
type ReplayRules interface {
	// CheckReplay returns the problems of replay phase spec r on the
	// scenario's target, each on its key in the phase (format,
	// key_prefix, scripts).
	CheckReplay(s *Scenario, r *ReplaySpec) []FieldError
	// Refusal says why op args (a line of r's capture) may not be
	// replayed without allow_destructive, "" when it may (r may be nil:
	// no scripts: list).
	Refusal(s *Scenario, r *ReplaySpec, args []string) string
	// Index indexes the first size bytes of phase p's capture as the
	// run will: its latency groups, or why the run would refuse it.
	Index(s *Scenario, p *Phase, capture io.Reader, size int64) (groups, folded []string, err error)
}

// linked is the store registry of the binary, which package targets
// hands over when it initialises (Link): the one registry, seen from
// here. A scenario read without stores (plain Parse) reads custom-op
// forms and replay rules with it; its target: is still taken as written.
var linked Stores

// Link is how the registry of the stores compiled in reaches a scenario
// read with plain Parse (package targets calls it once, in init).
func Link(stores Stores) { linked = stores }

// familyStores are the stores a scenario's families come from: those it
// was read with, each store that declares no family taking its family
// from the linked registry (familyView); the linked registry alone when
// the scenario was read without stores (nil: none).
func (s *Scenario) familyStores() Stores {
	switch {
	case s.stores == nil:
		return linked
	case linked == nil:
		return s.stores
	}
	return familyView{s.stores, linked}
}

// familyView is stores with the family of each store that declares
// none taken from linked, the registry of the binary (a test's stores
// that declare the kinds but not their families).
type familyView struct{ stores, linked Stores }

func (v familyView) Store(kind TargetKind) (Store, bool) {
	st, ok := v.stores.Store(kind)
	if !ok || st.Family != "" {
		return st, ok
	}
	if l, found := v.linked.Store(kind); found {
		st.Family, st.Custom, st.Replay, st.Scratch = l.Family, l.Custom, l.Replay, l.Scratch
	}
	return st, true
}

func (v familyView) StoreKinds() []TargetKind { return v.stores.StoreKinds() }

// store is what the adapter of the scenario's kind declares, from
// familyStores.
func (s *Scenario) store() (Store, bool) {
	st := s.familyStores()
	if st == nil {
		return Store{}, false
	}
	return st.Store(s.Target.Kind)
}

// familyFormat is the custom-op format of family name among stores.
func familyFormat(stores Stores, name string) (CustomFormat, bool) {
	if stores == nil {
		return nil, false
	}
	for _, k := range stores.StoreKinds() {
		if st, ok := stores.Store(k); ok && st.Family == name && st.Custom != nil {
			return st.Custom, true
		}
	}
	return nil, false
}

// familyNames lists the families of stores with a custom-op form, in
// the stores' order, each once.
func familyNames(stores Stores) []string {
	if stores == nil {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, k := range stores.StoreKinds() {
		if st, ok := stores.Store(k); ok && st.Custom != nil && !seen[st.Family] {
			seen[st.Family] = true
			out = append(out, st.Family)
		}
	}
	return out
}

// knowsStore reports whether the store of the scenario's kind is known
// (familyStores): only then is an op's lack of a form for it a problem
// at validate; otherwise the run finds it.
func (s *Scenario) knowsStore() bool {
	_, ok := s.store()
	return ok
}

// family is the family of the scenario's store ("" when none is known).
func (s *Scenario) family() string {
	st, _ := s.store()
	return st.Family
}

// replayRules are the replay rules of the scenario's store (nil: none
// known).
func (s *Scenario) replayRules() ReplayRules {
	if st, ok := s.store(); ok {
		return st.Replay
	}
	return nil
}

// allowsDestructive: the scenario says allow_destructive: true, or its
// target is a scratch store.
func (s *Scenario) allowsDestructive() bool {
	if s.AllowDestructive {
		return true
	}
	st, ok := s.store()
	return ok && st.Scratch
}

// DestructiveRefusal is a replay's refusal of what d names
// ("FLUSHALL", "DROP") on the scenario's target.
func (s *Scenario) DestructiveRefusal(d string) string {
	return fmt.Sprintf("%s destroys data or stops or reconfigures the server; refused against a %s target unless the scenario says allow_destructive: true", d, s.Target.Kind)
}
