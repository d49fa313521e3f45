package scenarios

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
)

// CorpusQuery is record.query: search ops draw Terms distinct words from
// the text fields From, with Distribution over the corpus's own term
// frequencies (computed once at prepare).
type CorpusQuery struct {
	Terms        int      `yaml:"terms"`
	From         []string `yaml:"from"`
	Distribution string   `yaml:"distribution"` // zipfian (default) | frequency | uniform
}

// Default and cap of record.query.terms.
const (
	DefaultQueryTerms = 2
	MaxQueryTerms     = 16
)

// HasCorpus reports whether records come from a corpus file.
func (s *Scenario) HasCorpus() bool { return s.Record.Source != "" }

// CorpusPath is record.source resolved against the scenario file's
// directory ("" without a corpus).
func (s *Scenario) CorpusPath() string {
	src := s.Record.Source
	if src == "" || filepath.IsAbs(src) {
		return src
	}
	return filepath.Join(filepath.Dir(s.File), src)
}

// SearchFields are the corpus fields search ops query and the search
// index covers (record.query.from); nil without a corpus.
func (s *Scenario) SearchFields() []string {
	if !s.HasCorpus() || s.Record.Query == nil {
		return nil
	}
	return s.Record.Query.From
}

// QueryTerms is record.query.terms with its default.
func (s *Scenario) QueryTerms() int {
	if q := s.Record.Query; q != nil && q.Terms > 0 {
		return q.Terms
	}
	return DefaultQueryTerms
}

// validateCorpus checks record.source, key_field and query: the spec,
// and a cheap look at the file (it exists, is not empty, its first
// document or header has the fields named).
func (s *Scenario) validateCorpus() []FieldError {
	var errs []FieldError
	add := func(path, format string, args ...any) {
		errs = append(errs, FieldError{Path: path, Msg: fmt.Sprintf(format, args...)})
	}
	errs = append(errs, s.corpusPlaceholderErrors()...)
	r := s.Record
	if r.Source == "" {
		if r.KeyField != "" {
			add("record.key_field", "needs record.source (a corpus file to take keys from)")
		}
		if r.Query != nil {
			add("record.query", "needs record.source (a corpus file to draw query terms from)")
		}
		return errs
	}
	var from []string
	if q := r.Query; q != nil {
		if q.Terms < 0 || q.Terms > MaxQueryTerms {
			add("record.query.terms", "must be between 1 and %d, got %d", MaxQueryTerms, q.Terms)
		}
		if q.Distribution != "" {
			if c := s.corpusChecker(); c != nil {
				if err := c.CheckDistribution(q.Distribution); err != nil {
					add("record.query.distribution", "%v", err)
				}
			}
		}
		for i, f := range q.From {
			if f == "" {
				add(fmt.Sprintf("record.query.from[%d]", i), "must name a field")
			}
		}
		if len(q.From) == 0 {
			add("record.query.from", "must name at least one text field of the corpus")
		}
		from = q.From
	} else if s.Uses(OpSearch) {
		add("record.query", "a scenario that searches a corpus must say which fields queries draw from: query: {terms: 2, from: [title, body]}")
	}
	if c := s.corpusChecker(); c != nil {
		if err := c.CheckCorpus(s.CorpusPath(), r.KeyField, from); err != nil {
			add("record.source", "%v", err)
		}
	}
	return errs
}

// ProblemAt is a problem found after validation (at prepare) with the
// scenario file's line of field path when the scenario was read from YAML.
func (s *Scenario) ProblemAt(path string, err error) Problem {
	p := Problem{File: s.File, Field: path, Msg: err.Error()}
	if s.doc != nil {
		p.Line = lineOf(s.doc, path)
	}
	return p
}

// corpusPlaceholderErrors refuses {corpus:field} in bindings and custom
// op templates when the scenario has no record.source.
func (s *Scenario) corpusPlaceholderErrors() []FieldError {
	if s.HasCorpus() {
		return nil
	}
	var errs []FieldError
	msg := "{corpus:...} draws from record.source, and the scenario has none"
	for _, name := range slices.Sorted(maps.Keys(s.Bindings)) {
		if g, err := ParseGenerator(s.Bindings[name].Gen); err == nil && g.Kind == GenCorpus {
			errs = append(errs, FieldError{Path: "bindings." + name + ".gen", Msg: msg})
		}
	}
	isBinding := func(n string) bool { _, ok := s.Bindings[n]; return ok }
	for _, name := range s.customOpNames() {
		c := s.Ops[name]
		if c == nil {
			continue
		}
		for _, k := range c.Kinds() {
			if drawsCorpus(c.familyTemplates(k), isBinding) {
				errs = append(errs, FieldError{Path: "ops." + name + "." + k, Msg: msg})
			}
		}
	}
	return errs
}

func drawsCorpus(tpls []string, isBinding func(string) bool) bool {
	for _, t := range tpls {
		segs, _ := ParseTemplate(t, isBinding)
		for _, g := range segs {
			if g.Kind == GenCorpus {
				return true
			}
		}
	}
	return false
}

// CorpusChecker reads a scenario's corpus at validate, as the run will
// (package corpus): the registry of stores implements it (targets), so
// that this package, which the corpus reader does not need, imports no
// reader of files it validates.
type CorpusChecker interface {
	// CheckDistribution is the problem with a record.query.distribution.
	CheckDistribution(name string) error
	// CheckCorpus is the problem with the corpus at path: its key field
	// and text fields, and (small enough) every document.
	CheckCorpus(path, keyField string, textFields []string) error
}

// corpusChecker is the CorpusChecker of the stores the scenario was read
// with, else of the linked registry (nil: the corpus is checked when the
// run opens it).
func (s *Scenario) corpusChecker() CorpusChecker {
	for _, st := range []Stores{s.stores, linked} {
		if c, ok := st.(CorpusChecker); ok {
			return c
		}
	}
	return nil
}
