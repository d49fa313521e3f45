package targets

import (
	"cmp"
	"slices"
	"sync"

	"github.com/soakd/soakd/corpus"
	"github.com/soakd/soakd/scenarios"
)

// Adapter is what a store registers for its kind: how to open it, how
// its part of a target: block (client: options, URL) is checked, and
// what scenarios needs to know of the kind (its other names, its URL
// schemes, its default pipeline depth), so that a new store adds
// nothing outside its own package but an import.
type Adapter struct {
	Open Factory
	// Schema checks the store's options; ClientSchema[T] builds one
	// from the store's options type. Nil: the kind takes only the
	// client: options every adapter takes (scenarios.ClientCommon).
	Schema scenarios.StoreSchema
	// Aliases are other names target.kind may give this store (cql:
	// scylla, cassandra); they open the same adapter.
	Aliases []string
	// URLSchemes are the schemes of the URLs the store takes, without
	// "://" (redis, rediss, unix): a target with a url: and no kind: is
	// this kind, and --target with such a URL switches a scenario to it.
	URLSchemes []string
	// SchemeHint is how messages suggest the schemes ("http(s)://"),
	// leaving out any not worth suggesting; "" names each of URLSchemes.
	SchemeHint string
	// DefaultMaxBatch is the pipeline depth the adapter uses when
	// client.max_batch is left out (open-loop workers send up to that
	// many due ops at once); scenario validation's memory bound assumes
	// it. 0: one op in flight.
	DefaultMaxBatch int
	// Order places the kind in the lists messages give (ascending, then
	// by name): `unknown target kind "x" (use embedded, redis, ...)`.
	Order int
	// Family is the store's family (family.go): its custom-op form and
	// replay dialect, shared with the other stores of the family (nil:
	// no custom ops, no replay).
	Family *Family
	// Title names the store in soakd's one-line description ("Redis",
	// "MongoDB"; "" leaves it out) and Help says in a line what it
	// drives, beside its URL schemes in `soakd help`.
	Title, Help string
	// Scratch: the store is soakd's own, whose data a run may destroy
	// (the embedded store): destructive custom ops and replays need no
	// allow_destructive.
	Scratch bool
	// Note is a line every run against the store carries in its
	// summary (summary.json's target.note), "" for none: the embedded
	// store's says its figures measure soakd itself.
	Note string
}

// Registry maps target kinds, and their aliases, to adapters. Adapters
// register with the package's one Registry in init (Register); a test
// may build its own (NewRegistry). It is scenarios.Stores, so a scenario
// is checked against the adapters (LoadScenario).
type Registry struct {
	mu    sync.RWMutex
	m     map[string]*entry // by kind and by alias
	kinds []*entry          // one per adapter, in Order
}

// entry is one registered adapter under its own kind.
type entry struct {
	kind string
	a    Adapter
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{m: map[string]*entry{}} }

// registry is the one piece of package-level state in soakd: the
// adapters compiled in register in it. A scenario read with plain
// scenarios.Parse reads custom-op forms and replay rules with it
// (scenarios.Link).
var registry = NewRegistry()

func init() { scenarios.Link(registry) }

// Register adds the adapter for a kind to the registry; registering a
// name (kind or alias) twice, or without a factory, panics. The registry
// is keyed by plain strings so that any adapter can register; Open
// converts target.kind at this boundary.
func Register(kind string, a Adapter) { registry.Register(kind, a) }

// Register adds the adapter for a kind to r, as the package's Register.
func (r *Registry) Register(kind string, a Adapter) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if a.Open == nil {
		panic("targets: kind registered without a factory: " + kind)
	}
	if a.Schema == nil {
		a.Schema = ClientSchema[struct{}]{}
	}
	e := &entry{kind: kind, a: a}
	for _, name := range append([]string{kind}, a.Aliases...) {
		if _, dup := r.m[name]; dup {
			panic("targets: kind registered twice: " + name)
		}
		r.m[name] = e
	}
	r.kinds = append(r.kinds, e)
	slices.SortStableFunc(r.kinds, func(x, y *entry) int {
		return cmp.Or(cmp.Compare(x.a.Order, y.a.Order), cmp.Compare(x.kind, y.kind))
	})
}

// adapter returns the adapter kind (or an alias) names.
func (r *Registry) adapter(kind scenarios.TargetKind) (Adapter, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	e, ok := r.m[string(kind)]
	if !ok {
		return Adapter{}, false
	}
	return e.a, true
}

// Kinds lists the registered names, kinds and aliases, sorted.
func Kinds() []string {
	registry.mu.RLock()
	defer registry.mu.RUnlock()
	out := make([]string, 0, len(registry.m))
	for k := range registry.m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Stores is the registry as scenarios sees it (scenarios.ParseWith).
func Stores() scenarios.Stores { return registry }

// Store returns what the adapter kind (or an alias) names declares.
func (r *Registry) Store(kind scenarios.TargetKind) (scenarios.Store, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	e, ok := r.m[string(kind)]
	if !ok {
		return scenarios.Store{}, false
	}
	st := scenarios.Store{
		Kind:            scenarios.TargetKind(e.kind),
		URLSchemes:      slices.Clone(e.a.URLSchemes),
		SchemeHint:      e.a.SchemeHint,
		DefaultMaxBatch: e.a.DefaultMaxBatch,
		Schema:          e.a.Schema,
		Scratch:         e.a.Scratch,
	}
	if f := e.a.Family; f != nil {
		st.Family, st.Custom = f.Name, f.Custom
		if f.Replay != nil {
			st.Replay = replayRules{f.Replay}
		}
	}
	for _, a := range e.a.Aliases {
		st.Aliases = append(st.Aliases, scenarios.TargetKind(a))
	}
	return st, true
}

// StoreKinds lists the adapters' kinds, aliases left out, in Order.
func (r *Registry) StoreKinds() []scenarios.TargetKind {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]scenarios.TargetKind, len(r.kinds))
	for i, e := range r.kinds {
		out[i] = scenarios.TargetKind(e.kind)
	}
	return out
}

// LoadScenario reads a scenario file as scenarios.LoadFile does, with
// target: checked against the registered adapters: its kind, its URL's
// scheme and its store options.
func LoadScenario(path string) (*scenarios.Scenario, error) {
	return scenarios.LoadFileWith(path, registry)
}

// ParseScenario is scenarios.Parse with target: checked against the
// registered adapters.
func ParseScenario(file string, data []byte) (*scenarios.Scenario, error) {
	return scenarios.ParseWith(file, data, registry)
}

// StoreDoc is what `soakd help` says of a registered store.
type StoreDoc struct {
	Kind       string
	URLSchemes []string
	Title      string
	Help       string
}

// Docs lists the registered stores (aliases left out) in Order, for
// help text.
func Docs() []StoreDoc {
	registry.mu.RLock()
	defer registry.mu.RUnlock()
	out := make([]StoreDoc, len(registry.kinds))
	for i, e := range registry.kinds {
		out[i] = StoreDoc{Kind: e.kind, URLSchemes: slices.Clone(e.a.URLSchemes), Title: e.a.Title, Help: e.a.Help}
	}
	return out
}

// CheckDistribution is scenarios.CorpusChecker's: the query term
// distribution named name (corpus.ParseDistribution).
func (r *Registry) CheckDistribution(name string) error {
	_, err := corpus.ParseDistribution(name)
	return err
}

// CheckCorpus is scenarios.CorpusChecker's: corpus.Check.
func (r *Registry) CheckCorpus(path, keyField string, textFields []string) error {
	return corpus.Check(path, keyField, textFields)
}

var _ scenarios.CorpusChecker = (*Registry)(nil)

// Note is the summary's note for a run against kind (Adapter.Note), ""
// when it has none or the kind is not registered.
func Note(kind scenarios.TargetKind) string {
	a, ok := registry.adapter(kind)
	if !ok {
		return ""
	}
	return a.Note
}
