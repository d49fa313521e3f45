package scenarios

import (
	"fmt"
	"strings"

	"github.com/soakd/soakd/capture"
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
	return strings.EqualFold(capture.CQLVerb(t.Statement), "SELECT")
}

// cqlStatements are the statements a cql custom op may run; the DDL and
// permission ones are refused without allow_destructive.
var (
	cqlStatements  = []string{"SELECT", "INSERT", "UPDATE", "DELETE", "BEGIN"}
	cqlDestructive = []string{"DROP", "TRUNCATE", "ALTER", "CREATE", "GRANT", "REVOKE"}
)

func (s *Scenario) validateCQLTemplate(name, pp string, c *CustomOp, isBinding func(string) bool, maxLen func([]Segment) int64) []FieldError {
	var errs []FieldError
	add := func(path, format string, args ...any) {
		errs = append(errs, FieldError{Path: path, Msg: fmt.Sprintf(format, args...)})
	}
	q := c.CQL
	if strings.TrimSpace(q.Statement) == "" {
		add(pp, "op %s: a cql template needs statement:", name)
		return errs
	}
	segs, err := ParseTemplate(q.Statement, isBinding)
	if _, lit := Literal(segs); err != nil || !lit {
		add(pp+".statement", "op %s: the statement is prepared once, so it takes ? markers, not placeholders; put the values in args:", name)
	}
	w := strings.ToUpper(capture.CQLVerb(q.Statement))
	switch {
	case contains(cqlDestructive, w):
		if !s.AllowDestructive {
			add(pp+".statement", "op %s: %s destroys data or changes the schema; refused unless the scenario says allow_destructive: true", name, w)
		}
	case !contains(cqlStatements, w):
		add(pp+".statement", "op %s: %q is not a statement a custom op runs (use SELECT, INSERT, UPDATE, DELETE or BEGIN BATCH)", name, w)
	}
	if n := capture.CQLMarkers(q.Statement); n != len(q.Args) {
		add(pp+".args", "op %s: the statement has %d ? markers and args has %d values", name, n, len(q.Args))
	}
	if q.Consistency != "" {
		if _, ok := cqlConsistency(q.Consistency); !ok {
			add(pp+".consistency", "op %s: unknown consistency %q (use %s)", name, q.Consistency, strings.Join(CQLConsistencies, ", "))
		}
	}
	for i, a := range q.Args {
		segs, err := ParseTemplate(a, isBinding)
		if err != nil {
			add(fmt.Sprintf("%s.args[%d]", pp, i), "op %s: %v", name, err)
			continue
		}
		if n := maxLen(segs); n > int64(c.MaxBytes) {
			add(fmt.Sprintf("%s.args[%d]", pp, i), "op %s: %q can render %d bytes, more than max_bytes (%d)", name, a, n, int64(c.MaxBytes))
		}
	}
	return errs
}
