package scenarios

import (
	"fmt"
	"slices"
	"strings"
)

// applyCustomDefaults fills what bindings and ops may leave out.
func (s *Scenario) applyCustomDefaults() {
	for name, b := range s.Bindings {
		if b.Key != "" {
			if b.Records == 0 {
				b.Records = s.Keyspace.Records
			}
			if b.ZipfTheta == 0 {
				b.ZipfTheta = s.Keyspace.ZipfTheta
			}
			if b.Key == DistHotspot {
				if b.HotFraction == 0 {
					b.HotFraction = 0.2
				}
				if b.HotOps == 0 {
					b.HotOps = 0.8
				}
			}
		}
		s.Bindings[name] = b
	}
	for _, c := range s.Ops {
		if c != nil && c.MaxBytes == 0 {
			c.MaxBytes = DefaultCustomMaxBytes
		}
	}
}

// validName reports whether s is a lower-case identifier: a letter, then
// letters, digits and '_' (it becomes a metric label and a file tag).
func validName(s string) bool {
	if s == "" || len(s) > 64 || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// validateCustom checks bindings: and ops: and the mixes that name
// custom ops.
func (s *Scenario) validateCustom() []FieldError {
	var errs []FieldError
	add := func(path, format string, args ...any) {
		errs = append(errs, FieldError{Path: path, Msg: fmt.Sprintf(format, args...)})
	}
	bindingNames := make([]string, 0, len(s.Bindings))
	for n := range s.Bindings {
		bindingNames = append(bindingNames, n)
	}
	slices.Sort(bindingNames)
	for _, name := range bindingNames {
		b := s.Bindings[name]
		bp := "bindings." + name
		if !validName(name) {
			add(bp, "binding name %q: use a lower-case letter, then letters, digits or _", name)
		}
		if IsGeneratorName(name) {
			add(bp, "binding name %q is a built-in placeholder; pick another", name)
		}
		switch {
		case b.Key != "" && b.Gen != "":
			add(bp, "a binding is a key (key: distribution) or a generator (gen:), not both")
		case b.Key != "":
			if !b.Key.Valid() {
				add(bp+".key", "unknown distribution %q (use uniform, zipfian, hotspot or latest)", b.Key)
			}
			if b.Records < 1 || b.Records > MaxRecords {
				add(bp+".records", "must be between 1 and %d", int64(MaxRecords))
			}
			if b.Key == DistZipfian && (b.ZipfTheta <= 0 || b.ZipfTheta >= 1) {
				add(bp+".zipf_theta", "must be between 0 and 1 (exclusive)")
			}
			if b.Key == DistHotspot && (b.HotFraction <= 0 || b.HotFraction >= 1 || b.HotOps < 0 || b.HotOps > 1) {
				add(bp, "hot_fraction must be between 0 and 1 (exclusive) and hot_ops between 0 and 1")
			}
		case b.Gen != "":
			if b.Records != 0 || b.Prefix != "" || b.HotFraction != 0 || b.HotOps != 0 || b.ZipfTheta != 0 {
				add(bp, "a gen: binding takes no records, prefix, hot_fraction, hot_ops or zipf_theta")
			}
			if g, err := ParseGenerator(b.Gen); err != nil {
				add(bp+".gen", "%v", err)
			} else if g.Kind == GenKey {
				add(bp+".gen", "a binding of {key} is {key}: use the placeholder itself")
			}
		default:
			add(bp, "a binding needs key: (a distribution) or gen: (a generator such as int:1:100)")
		}
	}
	isBinding, bindingLen := s.isBinding, s.bindingLen
	keyLen := len(s.Keyspace.Prefix) + 20

	if len(s.Ops) > MaxCustomOps {
		add("ops", "%d ops; a scenario declares at most %d", len(s.Ops), MaxCustomOps)
	}
	for _, name := range s.customOpNames() {
		c := s.Ops[name]
		op := "ops." + name
		if !validName(name) {
			add(op, "op name %q: use a lower-case letter, then letters, digits or _", name)
		}
		if _, ok := parseBuiltinOp(name); ok {
			add(op, "%q is a built-in op; give the custom op another name", name)
		}
		if c == nil || len(c.forms) == 0 {
			add(op, "an op needs a template for at least one store (redis: ...)")
			continue
		}
		switch c.MissWhen {
		case MissNever, MissNil, MissZero, MissEmpty:
		default:
			add(op+".miss_when", "unknown %q (use nil, zero or empty)", c.MissWhen)
		}
		if c.MaxBytes < 1 || c.MaxBytes > MaxGenBytes {
			add(op+".max_bytes", "must be between 1 and %d", MaxGenBytes)
		}
		maxLen := func(segs []Segment) int64 {
			var n int64
			for _, g := range segs {
				n += g.MaxLen(keyLen, bindingLen)
			}
			return n
		}
		for _, f := range c.forms {
			if f.form == nil {
				continue // undecoded: its problem is the decoder's
			}
			errs = append(errs, f.form.Check(CustomCheck{
				Scenario: s, Op: c, Name: name, Path: op + "." + f.family,
				AllowDestructive: s.allowsDestructive(), IsBinding: isBinding, MaxLen: maxLen,
			})...)
		}
	}
	for i, p := range s.Phases {
		for _, name := range sortedMixKeys(p.Mix) {
			c, ok := s.Ops[name]
			if !ok || c == nil || s.Target.Kind == "" || !s.knowsStore() {
				continue
			}
			if _, has := c.Templates(s.StoreKind()); !has {
				add(fmt.Sprintf("phases[%d].mix.%s", i, name), "op %s has no template for target kind %s (it has: %s)", name, s.Target.Kind, strings.Join(c.Kinds(), ", "))
			}
		}
	}
	return errs
}

// isBinding reports whether the scenario declares a binding of that name.
func (s *Scenario) isBinding(name string) bool { _, ok := s.Bindings[name]; return ok }

// bindingLen is the longest value a binding renders: its generator's
// bound, else its prefix and a 20-digit number (0 for a generator that
// does not parse: validation reports that itself).
func (s *Scenario) bindingLen(name string) int {
	b := s.Bindings[name]
	if b.Gen != "" {
		g, err := ParseGenerator(b.Gen)
		if err != nil {
			return 0
		}
		return int(g.MaxLen(0, nil))
	}
	return len(b.Prefix) + 20
}
