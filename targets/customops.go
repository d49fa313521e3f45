package targets

import "github.com/soakd/soakd/scenarios"

// CustomOps is an adapter's compiled custom ops (a scenario's ops: with
// the adapter's form), indexed by op: what each needs to run, T being
// the adapter's own type, and whether it only reads.
type CustomOps[T any] struct {
	ops   [scenarios.MaxCustomOps]*T
	reads [scenarios.MaxCustomOps]bool
}

// CompileCustom compiles sc's custom ops for one adapter: compile gets
// each op and returns the adapter's form of it (nil: the op has none for
// this store) and whether it only reads. A scenario without ops (or no
// scenario) compiles to nil, which CustomOps' methods take.
func CompileCustom[T any](sc *scenarios.Scenario, compile func(op scenarios.Op, c *scenarios.CustomOp) (form *T, read bool, err error)) (*CustomOps[T], error) {
	if sc == nil || len(sc.Ops) == 0 {
		return nil, nil
	}
	ops, err := sc.CustomOps()
	if err != nil {
		return nil, err
	}
	cs := &CustomOps[T]{}
	for o, c := range ops {
		form, read, err := compile(o, c)
		if err != nil {
			return nil, err
		}
		if form != nil {
			i := o - scenarios.OpCustomBase
			cs.ops[i], cs.reads[i] = form, read
		}
	}
	return cs, nil
}

// Of returns op's compiled form: nil for a built-in op or a custom op
// without this adapter's form.
func (c *CustomOps[T]) Of(op scenarios.Op) *T {
	if c == nil || !op.IsCustom() {
		return nil
	}
	return c.ops[op-scenarios.OpCustomBase]
}

// Writes reports whether op runs under the write timeout: a built-in op
// that writes, or a custom op that does not only read (one this adapter
// has no form for included: it fails, and is not a read).
func (c *CustomOps[T]) Writes(op scenarios.Op) bool {
	if !op.IsCustom() {
		return op.IsWrite()
	}
	if c == nil || c.ops[op-scenarios.OpCustomBase] == nil {
		return true
	}
	return !c.reads[op-scenarios.OpCustomBase]
}
