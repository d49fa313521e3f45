package scenarios

import (
	"fmt"
	"slices"
)

// Custom ops (a scenario's ops:, a replay's command groups) are Ops too,
// so everything indexed by Op (per-op histograms, counts, metrics) holds
// them without change. Their values are indexes into the run's OpTable,
// from OpCustomBase up: the table, not the Op, knows a custom op's name,
// so whatever renders op names (metrics labels, latency.hlog tags,
// summary.json, counts.csv) takes the run's table. A run's table is its
// own: two scenarios may give one name different values, or one value
// different names, and a daemon running scenario after scenario never
// fills a process-wide list.

// MaxCustomOps is how many custom ops one run holds: a scenario's ops:
// and a replay phase's latency groups together.
const MaxCustomOps = 64

// OpCustomBase is the first custom op's value.
const OpCustomBase = numBuiltinOps

// OpTable is one run's custom op names. A nil table holds the built-in
// ops only. Add is for building the table before the run starts; after
// that it is read-only and safe to share.
type OpTable struct {
	names []string // by op - OpCustomBase
	index map[string]Op
}

// Add returns the Op of name, giving a name the table does not hold the
// next free value. A built-in name returns its built-in Op.
func (t *OpTable) Add(name string) (Op, error) {
	if o, ok := t.Lookup(name); ok {
		return o, nil
	}
	if len(t.names) >= MaxCustomOps {
		return 0, fmt.Errorf("custom op %q: the run already holds %d custom ops, the most it can", name, MaxCustomOps)
	}
	o := OpCustomBase + Op(len(t.names))
	t.names = append(t.names, name)
	if t.index == nil {
		t.index = map[string]Op{}
	}
	t.index[name] = o
	return o, nil
}

// Lookup maps an op name to its Op: a built-in op or one of the table's.
func (t *OpTable) Lookup(name string) (Op, bool) {
	if o, ok := parseBuiltinOp(name); ok {
		return o, true
	}
	if t == nil {
		return 0, false
	}
	o, ok := t.index[name]
	return o, ok
}

// Name is o's name: a built-in op's own, a custom op's from the table
// ("op<n>" for a value the table does not hold).
func (t *OpTable) Name(o Op) string {
	if o.IsCustom() && t != nil {
		if i := int(o - OpCustomBase); i < len(t.names) {
			return t.names[i]
		}
	}
	return o.String()
}

// Clone returns a copy of t that Add can grow without changing t.
func (t *OpTable) Clone() *OpTable {
	c := &OpTable{}
	if t != nil {
		c.names = slices.Clone(t.names)
		c.index = make(map[string]Op, len(t.index))
		for k, v := range t.index {
			c.index[k] = v
		}
	}
	return c
}

// Len is how many custom ops the table holds.
func (t *OpTable) Len() int {
	if t == nil {
		return 0
	}
	return len(t.names)
}

// OpTable is the scenario's custom ops, by name: the same scenario
// always gives the same table (its ops sorted by name), so the engine
// and the target's adapter agree on every custom op's value. More than
// MaxCustomOps ops is an error (Validate reports it at ops:).
func (s *Scenario) OpTable() (*OpTable, error) {
	t := &OpTable{}
	for _, name := range s.customOpNames() {
		if _, err := t.Add(name); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// IsCustom reports whether o is a custom op (one of a run's table).
func (o Op) IsCustom() bool { return o >= OpCustomBase && o < NumOps }

// OpName is o's name in the scenario's table.
func (s *Scenario) OpName(o Op) string {
	if !o.IsCustom() {
		return o.String()
	}
	t, err := s.OpTable()
	if err != nil {
		return o.String()
	}
	return t.Name(o)
}
