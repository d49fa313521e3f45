package engine

import (
	"fmt"

	"github.com/soakd/soakd/datagen"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// compileCustom compiles the scenario's custom ops for its target kind
// (their Ops are those of the run's table, r.ops).
func (r *runner) compileCustom() error {
	if len(r.sc.Ops) == 0 {
		return nil
	}
	kind, store := r.sc.Target.Kind, r.sc.StoreKind() // store: an alias (scylla) resolved
	if kind == "" {
		kind, store = r.opts.TargetKind, r.opts.TargetKind
	}
	p, err := datagen.Compile(r.sc, store)
	if err != nil {
		return err
	}
	for _, ph := range r.sc.Phases {
		for name := range ph.Mix {
			if o, ok := r.ops.Lookup(name); ok && o.IsCustom() && !p.Has(o) {
				return fmt.Errorf("op %s has no template for target kind %s", name, kind)
			}
		}
		if g := ph.Growth; g != nil && g.Insert != "" {
			if err := checkGrowthInsert(r.sc, r.ops, p, g.Insert, kind, store); err != nil {
				return fmt.Errorf("phase %s: growth.insert: %w", ph.Name, err)
			}
		}
	}
	r.custom = p
	return nil
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
func (w *worker) fillCustom(req *targets.Request, i uint64) {
	req.Fields = nil
	req.Query = ""
	seq := i
	if w.seg.Sequential {
		seq = uint64(req.KeyNum)
	}
	req.Buf, req.Parts = w.render.Render(req.Op, req.Key, seq, w.rng, req.Buf[:0], req.Parts[:0])
}
