package engine

import (
	"fmt"

	"github.com/soakd/soakd/datagen"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// compileCustom compiles sc's custom ops for its target kind, or
// targetKind when the scenario names none (their Ops are those of the
// run's table, ops); nil when it has none.
func compileCustom(sc *scenarios.Scenario, ops *scenarios.OpTable, targetKind scenarios.TargetKind) (*datagen.Program, error) {
	if len(sc.Ops) == 0 {
		return nil, nil
	}
	kind, store := sc.Target.Kind, sc.StoreKind() // store: an alias (scylla) resolved
	if kind == "" {
		kind, store = targetKind, targetKind
	}
	p, err := datagen.Compile(sc, store)
	if err != nil {
		return nil, err
	}
	for _, ph := range sc.Phases {
		for name := range ph.Mix {
			if o, ok := ops.Lookup(name); ok && o.IsCustom() && !p.Has(o) {
				return nil, fmt.Errorf("op %s has no template for target kind %s", name, kind)
			}
		}
		if g := ph.Growth; g != nil && g.Insert != "" {
			if err := checkGrowthInsert(sc, ops, p, g.Insert, kind, store); err != nil {
				return nil, fmt.Errorf("phase %s: growth.insert: %w", ph.Name, err)
			}
		}
	}
	return p, nil
}

// checkGrowthInsert checks, for the kind known at run time, what
// validation could not when the scenario named no target kind: the op
// growth.insert names has a form for kind, and that form writes. kind
// is as the scenario names it, store its adapter's own name (an alias
// resolved).
func checkGrowthInsert(sc *scenarios.Scenario, ops *scenarios.OpTable, p *datagen.Program, name string, kind, store scenarios.TargetKind) error {
	o, ok := ops.Lookup(name)
	c := sc.Ops[name]
	if !ok || c == nil || !p.Has(o) {
		return fmt.Errorf("op %s has no template for target kind %s", name, kind)
	}
	if c.ReadOnly(store) {
		return fmt.Errorf("op %s only reads, so it inserts no records", name)
	}
	return nil
}

// fillCustom renders custom op req.Op (its key already chosen) for
// schedule index i. In a sequential segment (a load, a growth stage's
// batch) {seq} is the record number, like {key}, so every insert of a
// growth writes a record of its own, stage after stage.
func (s *mixStream) fillCustom(req *targets.Request, i uint64) {
	req.Fields = nil
	req.Query = ""
	seq := i
	if s.seg.Sequential {
		seq = uint64(req.KeyNum)
	}
	req.Buf, req.Parts = s.render.Render(req.Op, req.Key, seq, s.rng, req.Buf[:0], req.Parts[:0])
}
