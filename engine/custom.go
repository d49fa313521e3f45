package engine

import (
	"fmt"

	"github.com/soakd/soakd/datagen"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// compileCustom compiles the scenario's custom ops for its target kind
// (interning their names, so the SLO limits and mixes can name them).
func (r *runner) compileCustom() error {
	if len(r.sc.Ops) == 0 {
		return nil
	}
	kind := r.sc.Target.Kind
	if kind == "" {
		kind = r.opts.TargetKind
	}
	p, err := datagen.Compile(r.sc, kind)
	if err != nil {
		return err
	}
	for _, ph := range r.sc.Phases {
		for name := range ph.Mix {
			if o, ok := scenarios.ParseOp(name); ok && o.IsCustom() && !p.Has(o) {
				return fmt.Errorf("op %s has no template for target kind %s", name, r.sc.Target.Kind)
			}
		}
	}
	r.custom = p
	return nil
}

// fillCustom renders custom op req.Op (its key already chosen) for
// schedule index i.
func (w *worker) fillCustom(req *targets.Request, i uint64) {
	req.Fields = nil
	req.Query = ""
	req.Buf, req.Parts = w.render.Render(req.Op, req.Key, i, w.rng, req.Buf[:0], req.Parts[:0])
}
