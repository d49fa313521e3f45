package scenarios

import (
	"reflect"
	"sync"

	"github.com/soakd/soakd/internal/suggest"
)

// didYouMean is suggest.DidYouMean: ` (did you mean "x"?)`, or "".
func didYouMean(s string, names []string) string { return suggest.DidYouMean(s, names) }

// typeKeys maps each struct type a scenario file decodes (by its Go
// name, as yaml.v3's "not found in type" messages give it) to the keys
// it takes, for "did you mean" on an unknown key. A phase takes its
// common keys and every kind's.
var typeKeys = sync.OnceValue(func() map[string][]string {
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
	phase := reflect.TypeFor[Phase]().String()
	out[phase] = nil // decoded by kind: its keys are added below
	walk(reflect.TypeFor[Scenario]())
	walk(reflect.TypeFor[phaseFields]())
	keys := yamlKeys(reflect.TypeFor[phaseFields]())
	for _, d := range kindTable() {
		keys = append(keys, d.takes...)
		if d.keys != nil {
			keys = append(keys, yamlKeys(d.keys)...)
			walk(d.keys)
		}
	}
	out[phase] = keys
	return out
})

// keyHint is the "did you mean" suffix for key, unknown in the type
// named typ (yaml.v3's spelling: scenarios.Keyspace).
func keyHint(key, typ string) string {
	return didYouMean(key, typeKeys()[typ])
}
