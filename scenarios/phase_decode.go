package scenarios

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"
)

// phaseFields is Phase without its decoder: the common fields.
type phaseFields Phase

// commonPhaseKeys is the set of keys of Phase's common fields.
func commonPhaseKeys() map[string]bool {
	keys := map[string]bool{}
	for _, k := range yamlKeys(reflect.TypeFor[phaseFields]()) {
		keys[k] = true
	}
	return keys
}

// UnmarshalYAML decodes a phase by kind: the common keys into Phase,
// the kind's keys into its spec (strictly: an unknown key anywhere is
// reported), and every key that belongs to another kind as an error on
// its line. The problems stay with the phase until Parse collects them
// (decodeProblems).
func (p *Phase) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.ShortTag() == "!!null" {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		v := ""
		if n.Kind == yaml.ScalarNode {
			v = n.Value
			if len(v) > 10 {
				v = v[:7] + "..."
			}
			v = " `" + v + "`"
		}
		return typeErr(n, fmt.Sprintf("cannot unmarshal %s%s into scenarios.Phase", n.ShortTag(), v))
	}
	pairs := mappingPairs(n)
	var def *kindDef
	known := false
	for _, kv := range pairs {
		if kv[0].Value == "kind" && kv[1].Kind == yaml.ScalarNode {
			def, known = lookupKind(PhaseKind(kv[1].Value))
		}
	}
	common, own := subMapping(n), subMapping(n)
	commonKeys := commonPhaseKeys()
	for _, kv := range pairs {
		key := kv[0].Value
		switch {
		case commonKeys[key] && (len(owners(key)) == 0 || known && def.owns(key)):
			common.Content = append(common.Content, kv[0], kv[1])
		case known && def.owns(key):
			own.Content = append(own.Content, kv[0], kv[1])
		}
	}
	errs := badMerges(n)
	var foreign []foreignKey
	errs = appendDecodeErr(errs, common, common.Decode((*phaseFields)(p)))
	for _, kv := range pairs {
		key := kv[0].Value
		switch {
		case known && def.owns(key):
		case commonKeys[key] && len(owners(key)) == 0:
		case len(owners(key)) > 0:
			if known {
				foreign = append(foreign, foreignKey{kv[0].Line, key, foreignKeyMsg(key, owners(key), p.Kind)})
			}
			// Without a known kind the kind is what is wrong
			// (Validate says so); its keys are not decoded.
		default:
			errs = append(errs, fmt.Sprintf("line %d: field %s not found in type scenarios.Phase", kv[0].Line, key))
		}
	}
	if known && def.decode != nil {
		errs = append(errs, def.decode(own, p)...)
	}
	p.decoded = phaseProblems{yaml: errs, foreign: foreign}
	return nil
}

// decodeProblems returns the problems decoding found with phase i.
func (p *Phase) decodeProblems(file string, i int) Problems {
	var out Problems
	if len(p.decoded.yaml) > 0 {
		out = append(out, decodeProblems(file, &yaml.TypeError{Errors: p.decoded.yaml})...)
	}
	for _, f := range p.decoded.foreign {
		out = append(out, Problem{File: file, Line: f.line, Field: fmt.Sprintf("phases[%d].%s", i, f.key), Msg: f.msg})
	}
	p.decoded = phaseProblems{}
	return out
}

// foreignKeyMsg says that key belongs to the kinds of, not to kind.
func foreignKeyMsg(key string, of []PhaseKind, kind PhaseKind) string {
	names := make([]string, len(of))
	for i, k := range of {
		names[i] = string(k)
	}
	return fmt.Sprintf("only a %s phase takes %s (this is a %s phase)", orList(names), key, kind)
}

// decodeKeys decodes the mapping n (a kind's own keys) into v, a
// pointer to the kind's key struct, and returns its problems as
// yaml.v3 words them: mistyped values and unknown keys at any depth.
func decodeKeys(n *yaml.Node, v any) []string {
	errs := unknownKeys(n, reflect.TypeOf(v).Elem())
	return appendDecodeErr(errs, n, n.Decode(v))
}

func appendDecodeErr(errs []string, n *yaml.Node, err error) []string {
	var te *yaml.TypeError
	switch {
	case err == nil:
	case errors.As(err, &te):
		errs = append(errs, te.Errors...)
	default:
		errs = append(errs, fmt.Sprintf("line %d: %v", n.Line, strings.TrimPrefix(err.Error(), "yaml: ")))
	}
	return errs
}

// subMapping is an empty mapping placed where n is.
func subMapping(n *yaml.Node) *yaml.Node {
	return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: n.Line, Column: n.Column}
}

// mappingPairs is n's key/value pairs with merge keys (<<) resolved,
// the mapping's own keys first.
func mappingPairs(n *yaml.Node) [][2]*yaml.Node {
	var out, merged [][2]*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Value != "<<" || k.ShortTag() != "!!merge" {
			out = append(out, [2]*yaml.Node{k, v})
			continue
		}
		srcs := []*yaml.Node{v}
		if v.Kind == yaml.SequenceNode {
			srcs = v.Content
		}
		for _, m := range srcs {
			if m.Kind == yaml.AliasNode && m.Alias != nil {
				m = m.Alias
			}
			if m.Kind == yaml.MappingNode {
				merged = append(merged, mappingPairs(m)...)
			}
		}
	}
	seen := map[string]bool{}
	for _, kv := range out {
		seen[kv[0].Value] = true
	}
	for _, kv := range merged {
		if !seen[kv[0].Value] {
			seen[kv[0].Value] = true
			out = append(out, kv)
		}
	}
	return out
}

// badMerges reports merge keys (<<) of n whose value is not a mapping
// or a list of mappings, as yaml.v3 words it.
func badMerges(n *yaml.Node) []string {
	isMap := func(m *yaml.Node) bool {
		if m.Kind == yaml.AliasNode && m.Alias != nil {
			m = m.Alias
		}
		return m.Kind == yaml.MappingNode
	}
	var errs []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Value != "<<" || k.ShortTag() != "!!merge" {
			continue
		}
		ok := isMap(v)
		if v.Kind == yaml.SequenceNode {
			ok = true
			for _, m := range v.Content {
				ok = ok && isMap(m)
			}
		}
		if !ok {
			errs = append(errs, fmt.Sprintf("line %d: map merge requires map or sequence of maps as the value", v.Line))
		}
	}
	return errs
}

// yamlKeys lists the keys a struct type decodes (inline structs' too).
func yamlKeys(t reflect.Type) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		switch {
		case name == "-" || !f.IsExported():
		case opts == "inline" && f.Type.Kind() == reflect.Struct:
			out = append(out, yamlKeys(f.Type)...)
		case opts == "inline":
		case name == "":
			out = append(out, strings.ToLower(f.Name))
		default:
			out = append(out, name)
		}
	}
	return out
}

// unknownKeys reports, in yaml.v3's words, the keys of n (and of the
// mappings inside it) that type t has no field for: what a decoder with
// KnownFields says, for the parts of a file decoded node by node.
func unknownKeys(n *yaml.Node, t reflect.Type) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n.Kind == yaml.AliasNode || reflect.PointerTo(t).Implements(reflect.TypeFor[yaml.Unmarshaler]()) {
		return nil // aliases are checked where they are defined
	}
	var errs []string
	switch {
	case t.Kind() == reflect.Struct && n.Kind == yaml.MappingNode:
		fields, rest := structFields(t)
		for _, kv := range mappingPairs(n) {
			switch ft, ok := fields[kv[0].Value]; {
			case ok:
				errs = append(errs, unknownKeys(kv[1], ft)...)
			case rest != nil:
				errs = append(errs, unknownKeys(kv[1], rest.Elem())...)
			default:
				errs = append(errs, fmt.Sprintf("line %d: field %s not found in type %s", kv[0].Line, kv[0].Value, t))
			}
		}
	case (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) && n.Kind == yaml.SequenceNode:
		for _, c := range n.Content {
			errs = append(errs, unknownKeys(c, t.Elem())...)
		}
	case t.Kind() == reflect.Map && n.Kind == yaml.MappingNode:
		for _, kv := range mappingPairs(n) {
			errs = append(errs, unknownKeys(kv[1], t.Elem())...)
		}
	}
	return errs
}

// structFields maps a struct's yaml keys to their types; rest is the
// type of an inline map that takes every other key (nil if none).
func structFields(t reflect.Type) (fields map[string]reflect.Type, rest reflect.Type) {
	fields = map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		switch {
		case name == "-" || !f.IsExported():
		case opts == "inline" && f.Type.Kind() == reflect.Map:
			rest = f.Type
		case opts == "inline" && f.Type.Kind() == reflect.Struct:
			sub, r := structFields(f.Type)
			for k, v := range sub {
				fields[k] = v
			}
			if r != nil {
				rest = r
			}
		case name == "":
			fields[strings.ToLower(f.Name)] = f.Type
		default:
			fields[name] = f.Type
		}
	}
	return fields, rest
}
