package cql

import (
	"slices"

	"fmt"
	"github.com/soakd/soakd/capture"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
	"strings"
)

// cqlDialect: an op is one statement and its bind values. In the op log,
//
//	{"ts": 1.5, "op": "SELECT v FROM ks.t WHERE k = ?", "args": ["k1"]}
//
// op is the statement with ? markers, args a value for each marker: a
// string as it is (the driver converts text to the column's type),
// numbers and booleans as their JSON text, null as null. The group is
// the statement's verb: SELECT, INSERT, UPDATE, DELETE, BATCH (BEGIN
// ... APPLY BATCH). USE is skipped (the replay runs in the target's
// keyspace). key_prefix does not apply (statements name their tables):
// the scenario refuses it.
type cqlDialect struct{}

func (cqlDialect) Check(op capture.Op, _ string) (string, bool, error) {
	stmt := string(op.Args[0])
	verb := strings.ToUpper(firstWord(stmt))
	switch verb {
	case "":
		return "", false, fmt.Errorf("cql op: an empty statement")
	case "USE":
		return verb, true, nil
	case "BEGIN":
		verb = "BATCH"
	}
	if n, got := cqlMarkers(stmt), len(op.Args)-1; n != got {
		return "", false, fmt.Errorf("cql op %s: the statement has %d ? markers, args give %d values", verb, n, got)
	}
	for i := 1; i < len(op.Args); i++ {
		if op.IsJSON(i) && len(op.Args[i]) > 0 && (op.Args[i][0] == '{' || op.Args[i][0] == '[') {
			return "", false, fmt.Errorf("cql op %s: args[%d] is a JSON %s; give a string, a number, a boolean or null", verb, i-1, map[byte]string{'{': "object", '[': "array"}[op.Args[i][0]])
		}
	}
	return verb, false, nil
}

// Render's parts: the statement, then each value (nil for null).
func (cqlDialect) Render(op capture.Op, _ string, buf []byte, parts [][]byte) ([]byte, [][]byte) {
	var fixed [16]int
	ends := fixed[:0]
	start := len(buf)
	for i, a := range op.Args {
		if op.IsNull(i) {
			ends = append(ends, -1)
			continue
		}
		buf = append(buf, a...)
		ends = append(ends, len(buf)-start)
	}
	return buf, capture.Cut(buf[start:], ends, parts)
}

// CQLVerb is a statement's first word as written (SELECT, INSERT, ...;
// "" for a blank statement).
func CQLVerb(s string) string { return firstWord(s) }

func firstWord(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// CQLMarkers counts the ? bind markers of stmt outside quoted text.
func CQLMarkers(stmt string) int { return cqlMarkers(stmt) }

func cqlMarkers(stmt string) int {
	n := 0
	var quote byte
	for i := 0; i < len(stmt); i++ {
		c := stmt[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '?':
			n++
		}
	}
	return n
}

// Family is the cql family: the cql form of a custom op and the replay
// of op logs of statements.
var Family = &targets.Family{Name: "cql", Custom: customFormat{}, Replay: replay{}}

// replay is the cql replay dialect (cqlDialect) and its rules.
type replay struct{}

func (replay) Dialect() capture.Dialect { return cqlDialect{} }

// CheckReplay: the op log only, and no key_prefix.
func (replay) CheckReplay(sc *scenarios.Scenario, r *scenarios.ReplaySpec) []scenarios.FieldError {
	errs := sc.OpLogReplayProblems(r)
	if r.KeyPrefix != "" {
		scenarios.Add(&errs, "key_prefix", "a cql replay runs its statements as they are (they name their tables); point the target's keyspace at a scratch one instead")
	}
	return errs
}

// Refusal: the DDL and permission statements a custom op may not run
// without allow_destructive.
func (replay) Refusal(sc *scenarios.Scenario, _ *scenarios.ReplaySpec, args []string) string {
	if w := strings.ToUpper(CQLVerb(args[0])); slices.Contains(cqlDestructive, w) {
		return sc.DestructiveRefusal(w)
	}
	return ""
}
