package scenarios

import (
	"fmt"
	"strings"
)

// validateGrowthInserts checks each growth phase's growth.insert: a
// custom op of ops: with a form for the target's kind that writes (a
// read inserts nothing, so the stages would not grow).
func (s *Scenario) validateGrowthInserts() []FieldError {
	var errs []FieldError
	for i, p := range s.Phases {
		if p.Growth == nil || p.Growth.Insert == "" {
			continue
		}
		name := p.Growth.Insert
		path := fmt.Sprintf("phases[%d].growth.insert", i)
		add := func(format string, args ...any) {
			errs = append(errs, FieldError{Path: path, Msg: fmt.Sprintf(format, args...)})
		}
		c, ok := s.Ops[name]
		switch {
		case !ok || c == nil:
			if _, builtin := parseBuiltinOp(name); builtin {
				add("%q is a built-in op; growth.insert names a custom op of ops: (leave it out for the built-in insert)", name)
			} else if len(s.Ops) == 0 {
				add("unknown op %q: growth.insert names a custom op, and the scenario declares none under ops:", name)
			} else {
				add("unknown op %q (the scenario's ops: %s)", name, strings.Join(s.customOpNames(), ", "))
			}
		case s.Target.Kind == "":
			// The kind is known at run time only (the engine checks the
			// form then); an op whose every form reads is refused now.
			reads := true
			for _, k := range c.Kinds() {
				f, ok := c.Form(k)
				reads = reads && ok && f.ReadOnly()
			}
			if reads {
				add("op %s only reads, so it inserts no records; growth.insert needs an op that writes a new record per {key} or {seq}", name)
			}
		case !s.knowsStore():
			// The store is not known here: the engine checks the form
			// for the kind it runs.
		default:
			if _, has := c.Templates(s.StoreKind()); !has {
				add("op %s has no template for target kind %s (it has: %s)", name, s.Target.Kind, strings.Join(c.Kinds(), ", "))
			} else if c.ReadOnly(s.StoreKind()) {
				add("op %s only reads, so it inserts no records; growth.insert needs an op that writes a new record per {key} or {seq}", name)
			}
		}
	}
	return errs
}
