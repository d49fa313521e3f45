package scenarios

import (
	"fmt"
	"strings"
)

// Stores is the registry of store adapters as scenarios sees it:
// package targets implements it (scenarios cannot import targets) and
// ParseWith takes it. Which kinds there are, the names and URL schemes
// that select them and what the memory bound assumes of them come from
// here, so a new store adds nothing to this package.
type Stores interface {
	// Store returns what the adapter registered for kind (its own name
	// or an alias) declares; false when no adapter takes the name.
	Store(kind TargetKind) (Store, bool)
	// StoreKinds lists the adapters' own kinds, aliases left out, in
	// the order messages name them.
	StoreKinds() []TargetKind
}

// Store is what a store's adapter declares about its kind.
type Store struct {
	// Kind is the adapter's own name; target.kind giving an alias
	// resolves to it.
	Kind TargetKind
	// Aliases are other names target.kind may give the store (cql:
	// scylla, cassandra).
	Aliases []TargetKind
	// URLSchemes are the schemes of the URLs the store takes ("redis",
	// "rediss", "unix"): a target with a url: and no kind: is this
	// kind, and --target with such a URL switches a scenario to it.
	URLSchemes []string
	// SchemeHint is how messages suggest the schemes ("http(s)://"),
	// leaving out any not worth suggesting; "" names each of URLSchemes.
	SchemeHint string
	// DefaultMaxBatch is the pipeline depth the adapter uses when
	// client.max_batch is left out; the memory bound assumes it (0:
	// one op in flight).
	DefaultMaxBatch int
	// Schema checks the store's part of target: (nil: the shared client:
	// options only).
	Schema StoreSchema
	// Family names the store's family (family.go): the key of its custom
	// ops' form, ops.<name>.<Family>; stores of one family share it.
	Family string
	// Custom decodes the family's custom-op form (nil: the store runs no
	// custom ops).
	Custom CustomFormat
	// Replay are the family's replay rules (nil: the store replays
	// nothing).
	Replay ReplayRules
	// Scratch: the store is soakd's own (embedded), so what destroys
	// data is allowed without allow_destructive.
	Scratch bool
}

// KindOfURL is the kind of the store whose URL scheme u has; "" when no
// store in stores takes it (or u is empty).
func KindOfURL(stores Stores, u string) TargetKind {
	scheme, _, ok := strings.Cut(u, "://")
	if !ok || stores == nil {
		return ""
	}
	for _, k := range stores.StoreKinds() {
		if st, found := stores.Store(k); found {
			for _, s := range st.URLSchemes {
				if s == scheme {
					return st.Kind
				}
			}
		}
	}
	return ""
}

// SchemeHint lists the URL schemes of the stores, in their order, as
// messages suggest them ("redis://, rediss://, mongodb://, ...").
func SchemeHint(stores Stores) string {
	var parts []string
	for _, k := range stores.StoreKinds() {
		st, ok := stores.Store(k)
		switch {
		case !ok:
		case st.SchemeHint != "":
			parts = append(parts, st.SchemeHint)
		default:
			for _, s := range st.URLSchemes {
				parts = append(parts, s+"://")
			}
		}
	}
	return strings.Join(parts, ", ")
}

// UnknownKind is the problem with a target.kind no store in stores
// takes, naming those there are (aliases beside their kind).
func UnknownKind(stores Stores, kind TargetKind) string {
	var names, known []string
	for _, k := range stores.StoreKinds() {
		name := string(k)
		if st, ok := stores.Store(k); ok && len(st.Aliases) > 0 {
			as := make([]string, len(st.Aliases))
			for i, a := range st.Aliases {
				as[i] = string(a)
			}
			word := "aliases"
			if len(as) == 1 {
				word = "alias"
			}
			name += fmt.Sprintf(" (%s %s)", word, strings.Join(as, ", "))
		}
		names = append(names, name)
		known = append(known, string(k))
		if st, ok := stores.Store(k); ok {
			for _, a := range st.Aliases {
				known = append(known, string(a))
			}
		}
	}
	return fmt.Sprintf("unknown target kind %q%s (use %s)", kind, didYouMean(string(kind), known), orList(names))
}

// StoreKind is the kind of the scenario's store: target.kind, an alias
// resolved to its adapter's own name when the scenario was read with
// the stores (ParseWith); as written otherwise.
func (s *Scenario) StoreKind() TargetKind {
	if s.stores != nil {
		if st, ok := s.stores.Store(s.Target.Kind); ok {
			return st.Kind
		}
	}
	return s.Target.Kind
}

// Stores returns the stores the scenario was read with (nil: none).
func (s *Scenario) Stores() Stores { return s.stores }

// validateKind checks target.kind and that the URL's scheme is the
// kind's, against the stores the scenario was read with. Without them a
// kind is taken as written and checked when the target opens; only a
// URL with no kind cannot be read.
func (s *Scenario) validateKind() []FieldError {
	t := s.Target
	if s.stores == nil {
		if t.Kind == "" {
			return []FieldError{{Path: "target.kind", Msg: "not given, and the URL's scheme names a store only when the scenario is read with the store registry (targets.LoadScenario); give target.kind"}}
		}
		return nil
	}
	var errs []FieldError
	kind := t.Kind
	if st, ok := s.stores.Store(t.Kind); ok {
		kind = st.Kind
	} else {
		errs = append(errs, FieldError{Path: "target.kind", Msg: UnknownKind(s.stores, t.Kind)})
	}
	if t.URL != "" && t.Kind != KindEmbedded {
		if k := KindOfURL(s.stores, t.URL); k != "" && k != kind {
			errs = append(errs, FieldError{Path: "target.url", Msg: fmt.Sprintf("URL scheme is for %s but target.kind is %s", k, t.Kind)})
		}
	}
	return errs
}

// defaultMaxBatch is the pipeline depth of the scenario's store when
// client.max_batch is left out, as its adapter declares it. Without the
// stores it is 1 (no pipeline counted): soakd itself reads every
// scenario with them, plain Parse serves tests.
func (s *Scenario) defaultMaxBatch() int {
	if s.stores != nil {
		if st, ok := s.stores.Store(s.Target.Kind); ok {
			return st.DefaultMaxBatch
		}
	}
	return 1
}

// kindOfURL is the kind a target without kind: has: embedded without a
// URL, else the store whose scheme the URL has ("" when none is, or
// the scenario was read without the stores).
func (s *Scenario) kindOfURL() TargetKind {
	if s.Target.URL == "" {
		return KindEmbedded
	}
	return KindOfURL(s.stores, s.Target.URL)
}
