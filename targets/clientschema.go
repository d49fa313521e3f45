package targets

import (
	"reflect"
	"strings"

	"github.com/soakd/soakd/scenarios"
)

// ClientSchema is a store's scenarios.StoreSchema built from T, the
// store's own client: options: a struct with one yaml-tagged field per
// key. The options every adapter takes stay in scenarios.Client
// (ClientCommon); T holds the rest.
type ClientSchema[T any] struct {
	// Check checks the decoded options and the rest of the target
	// (its URL), returning every problem with its path from target:
	// (target.client.mode, target.url). Nil: decoding is the check.
	Check func(t scenarios.Target, c *T) []scenarios.FieldError
}

// ClientKeys lists T's keys.
func (s ClientSchema[T]) ClientKeys() []string {
	return yamlKeys(reflect.TypeFor[T]())
}

// CheckTarget decodes t.Client into T and checks it.
func (s ClientSchema[T]) CheckTarget(t scenarios.Target) []scenarios.FieldError {
	_, errs := s.decode(t)
	return errs
}

// Decode returns t's options for the adapter's factory; every problem
// is in the error, at its file and line.
func (s ClientSchema[T]) Decode(t scenarios.Target) (T, error) {
	c, errs := s.decode(t)
	if len(errs) > 0 {
		return c, t.Client.Problems(errs)
	}
	return c, nil
}

func (s ClientSchema[T]) decode(t scenarios.Target) (T, []scenarios.FieldError) {
	var c T
	errs := t.Client.Decode(&c)
	if s.Check != nil {
		errs = append(errs, s.Check(t, &c)...)
	}
	return c, errs
}

// yamlKeys lists the keys a struct type decodes from, inline fields'
// included.
func yamlKeys(t reflect.Type) []string {
	if t.Kind() != reflect.Struct {
		return nil
	}
	var keys []string
	for f := range t.Fields() {
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		switch {
		case name == "-":
		case strings.Contains(","+opts+",", ",inline,"):
			keys = append(keys, yamlKeys(f.Type)...)
		case name == "":
			keys = append(keys, strings.ToLower(f.Name))
		default:
			keys = append(keys, name)
		}
	}
	return keys
}
