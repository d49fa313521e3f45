package scenarios

import (
	"fmt"
	"slices"
	"strings"
)

// enum is a closed set of string values (a YAML field such as
// keyspace.distribution): its list in the order messages name it, the
// check, the parse and the "a, b or c" text all come from one list.
type enum[T ~string] struct {
	// what names the field in the parse error ("phase kind",
	// "client.mode").
	what   string
	values []T
	// fold makes Parse ignore case and return the listed spelling.
	fold bool
	// format is the parse error, fmt-style over what (%[1]s), the value
	// (%[2]s / %[2]q) and the list text (%[3]s); "" = unknown %s %q
	// (use %s).
	format string
}

func newEnum[T ~string](what string, values ...T) enum[T] {
	return enum[T]{what: what, values: values}
}

// List returns the values in the order messages name them.
func (e enum[T]) List() []T { return slices.Clone(e.values) }

// Valid reports whether v is one of the values (in any case when the
// enum folds case).
func (e enum[T]) Valid(v T) bool {
	_, ok := e.lookup(string(v))
	return ok
}

func (e enum[T]) lookup(s string) (T, bool) {
	for _, v := range e.values {
		if string(v) == s || (e.fold && strings.EqualFold(string(v), s)) {
			return v, true
		}
	}
	return "", false
}

// Parse returns the value s names, or an error naming the values there
// are.
func (e enum[T]) Parse(s string) (T, error) {
	if v, ok := e.lookup(s); ok {
		return v, nil
	}
	format := e.format
	if format == "" {
		format = "unknown %[1]s %[2]q (use %[3]s)"
	}
	names := make([]string, len(e.values))
	for i, v := range e.values {
		names[i] = string(v)
	}
	return "", fmt.Errorf(format+"%[4]s", e.what, s, e.Text(), didYouMean(s, names))
}

// Text is the values as prose: "a, b or c".
func (e enum[T]) Text() string {
	names := make([]string, len(e.values))
	for i, v := range e.values {
		names[i] = string(v)
	}
	return orList(names)
}

// orList joins names as "a, b or c".
func orList(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
