package cql

import (
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/soakd/soakd/scenarios"
)

// CQLTemplate is a custom op's cql form: one statement with ? markers,
// prepared once by the driver, and a template for each marker's value,
// e.g.
//
//	{statement: "SELECT items FROM shop.carts WHERE user = ?", args: ["{user}"], consistency: LOCAL_QUORUM}
type CQLTemplate struct {
	Statement string   `yaml:"statement"`
	Args      []string `yaml:"args"`
	// Consistency for this op (default: the URL's read consistency for
	// a SELECT, its write consistency for anything else).
	Consistency string `yaml:"consistency"`
}

// IsRead reports whether the statement is a SELECT.
func (t *CQLTemplate) IsRead() bool {
	return strings.EqualFold(CQLVerb(t.Statement), "SELECT")
}

// cqlStatements are the statements a cql custom op may run; the DDL and
// permission ones are refused without allow_destructive.
var (
	cqlStatements  = []string{"SELECT", "INSERT", "UPDATE", "DELETE", "BEGIN"}
	cqlDestructive = []string{"DROP", "TRUNCATE", "ALTER", "CREATE", "GRANT", "REVOKE"}
)

// Check checks the cql form: a statement a custom op runs, with a value
// for each ? marker, a known consistency, and values within max_bytes.
func (q *CQLTemplate) Check(c scenarios.CustomCheck) []scenarios.FieldError {
	var errs []scenarios.FieldError
	add := func(path, format string, args ...any) { scenarios.Add(&errs, path, format, args...) }
	s, name, pp, isBinding, maxLen := c.Scenario, c.Name, c.Path, c.IsBinding, c.MaxLen
	if strings.TrimSpace(q.Statement) == "" {
		add(pp, "op %s: a cql template needs statement:", name)
		return errs
	}
	segs, err := scenarios.ParseTemplate(q.Statement, isBinding)
	if _, lit := scenarios.Literal(segs); err != nil || !lit {
		add(pp+".statement", "op %s: the statement is prepared once, so it takes ? markers, not placeholders; put the values in args:", name)
	}
	w := strings.ToUpper(CQLVerb(q.Statement))
	switch {
	case slices.Contains(cqlDestructive, w):
		if !s.AllowDestructive {
			add(pp+".statement", "op %s: %s destroys data or changes the schema; refused unless the scenario says allow_destructive: true", name, w)
		}
	case !slices.Contains(cqlStatements, w):
		add(pp+".statement", "op %s: %q is not a statement a custom op runs (use SELECT, INSERT, UPDATE, DELETE or BEGIN BATCH)", name, w)
	}
	if n := CQLMarkers(q.Statement); n != len(q.Args) {
		add(pp+".args", "op %s: the statement has %d ? markers and args has %d values", name, n, len(q.Args))
	}
	if q.Consistency != "" {
		if _, ok := cqlConsistency(q.Consistency); !ok {
			add(pp+".consistency", "op %s: unknown consistency %q (use %s)", name, q.Consistency, strings.Join(Consistencies, ", "))
		}
	}
	for i, a := range q.Args {
		segs, err := scenarios.ParseTemplate(a, isBinding)
		if err != nil {
			add(fmt.Sprintf("%s.args[%d]", pp, i), "op %s: %v", name, err)
			continue
		}
		if n := maxLen(segs); n > int64(c.Op.MaxBytes) {
			add(fmt.Sprintf("%s.args[%d]", pp, i), "op %s: %q can render %d bytes, more than max_bytes (%d)", name, a, n, int64(c.Op.MaxBytes))
		}
	}
	return errs
}

// Consistencies are the CQL consistency level names: a custom op's cql
// consistency and a cql:// URL's take them.
var Consistencies = []string{"ANY", "ONE", "TWO", "THREE", "QUORUM", "ALL", "LOCAL_QUORUM", "EACH_QUORUM", "LOCAL_ONE"}

// ReadOnly: a SELECT.
func (q *CQLTemplate) ReadOnly() bool { return q.IsRead() }

// Templates: a value for each ? marker.
func (q *CQLTemplate) Templates() []string { return q.Args }

// Places: each value is bound to its marker as it is.
func (q *CQLTemplate) Places(int, []scenarios.Segment) []scenarios.Place { return nil }

// customFormat decodes the cql form.
type customFormat struct{}

func (customFormat) Decode(n *yaml.Node) (scenarios.CustomForm, error) {
	q := &CQLTemplate{}
	return q, scenarios.DecodeNode(n, q)
}
