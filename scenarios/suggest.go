package scenarios

import (
	"reflect"
	"sync"

	"github.com/soakd/soakd/internal/suggest"
)

// didYouMean is suggest.DidYouMean: ` (did you mean "x"?)`, or "".
func didYouMean(s string, names []string) string { return suggest.DidYouMean(s, names) }

// keysFrom maps each struct type reachable from roots (through fields,
// pointers, slices and maps) by its Go name, as yaml.v3's "not found in
// type" messages give it, to the keys it takes.
func keysFrom(roots ...reflect.Type) map[string][]string {
	out := map[string][]string{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return
		}
		if _, seen := out[t.String()]; seen {
			return
		}
		out[t.String()] = yamlKeys(t)
		fields, rest := structFields(t)
		for _, ft := range fields {
			walk(ft)
		}
		if rest != nil {
			walk(rest.Elem())
		}
	}
	for _, t := range roots {
		walk(t)
	}
	return out
}

// typeKeys is keysFrom a scenario: the types a scenario file decodes.
// A phase, decoded by kind, takes its common keys and every kind's.
var typeKeys = sync.OnceValue(func() map[string][]string {
	roots := []reflect.Type{reflect.TypeFor[Scenario](), reflect.TypeFor[phaseFields]()}
	keys := yamlKeys(reflect.TypeFor[phaseFields]())
	for _, d := range kindTable() {
		keys = append(keys, d.takes...)
		if d.keys != nil {
			keys = append(keys, yamlKeys(d.keys)...)
			roots = append(roots, d.keys)
		}
	}
	out := keysFrom(roots...)
	out[reflect.TypeFor[Phase]().String()] = keys
	return out
})

// otherKeys holds keysFrom the other files soakd reads strictly
// (DecodeStrict: the daemon's soakd.yaml), type name -> keys.
var otherKeys sync.Map

// learnKeys lets keyHint name the keys of t's types (DecodeStrict's v).
func learnKeys(t reflect.Type) {
	for name, keys := range keysFrom(t) {
		otherKeys.LoadOrStore(name, keys)
	}
}

// keyHint is the "did you mean" suffix for key, unknown in the type
// named typ (yaml.v3's spelling: scenarios.Keyspace).
func keyHint(key, typ string) string {
	keys, ok := typeKeys()[typ]
	if !ok {
		if v, found := otherKeys.Load(typ); found {
			keys = v.([]string)
		}
	}
	return didYouMean(key, keys)
}
