package scenarios

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
)

// maxSuggestDistance is how far (in single-letter edits) a mistyped
// name may be from a known one for a "did you mean" hint; a name
// shorter than 6 letters may be one edit away only ("soak" is two from
// "load" and means something else).
const maxSuggestDistance = 2

// closest returns the name in names nearest to s in edit distance (case
// ignored) when it is near enough (maxSuggestDistance) and unique at
// that distance; "" otherwise, or when s is itself one of the names.
func closest(s string, names []string) string {
	limit := min(maxSuggestDistance, max(1, len(s)/3))
	best, bestD, tie := "", limit+1, false
	ls := strings.ToLower(s)
	for _, n := range names {
		d := editDistance(ls, strings.ToLower(n))
		if d == 0 && n == s {
			return ""
		}
		switch {
		case d < bestD:
			best, bestD, tie = n, d, false
		case d == bestD && n != best:
			tie = true
		}
	}
	if best == "" || tie {
		return ""
	}
	return best
}

// didYouMean is closest(s, names) as a message suffix: ` (did you mean
// "x"?)`, or "".
func didYouMean(s string, names []string) string {
	if c := closest(s, names); c != "" {
		return fmt.Sprintf(" (did you mean %q?)", c)
	}
	return ""
}

// editDistance is the number of single-letter edits (insert, delete,
// replace, or swap two neighbours: "setps" is one from "steps") that
// turn a into b, counted in bytes (scenario keys and kinds are ASCII).
func editDistance(a, b string) int {
	// d[i][j] is the distance between a[:i] and b[:j]; three rows kept.
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j-1]+cost, prev[j]+1, cur[j-1]+1)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

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
