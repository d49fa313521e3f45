package cql

import (
	"context"
	"errors"
	"strings"

	"github.com/soakd/soakd/targets"
)

// A replay phase's op (capture's cql dialect) arrives as a custom op the
// scenario's ops: did not declare, its parts the statement and a value
// for each ? marker (a nil part is null). It runs like a custom op's
// statement, prepared once per connection by the driver, at the URL's
// read consistency for a SELECT and its write consistency otherwise; a
// server error is an error, a SELECT of no row a success (replayed
// traffic has no miss rule).

var errReplayStatement = errors.New("replay op: no statement")

// doReplay runs replayed op r.
func (t *Target) doReplay(ctx context.Context, r *targets.Request) error {
	if len(r.Parts) == 0 {
		return errReplayStatement
	}
	stmt := string(r.Parts[0])
	co := customOp{stmt: stmt, cons: t.cfg.Write}
	if f := strings.Fields(stmt); len(f) > 0 && strings.EqualFold(f[0], "SELECT") {
		co.read, co.cons = true, t.cfg.Read
	}
	args := make([]any, len(r.Parts)-1)
	for i, p := range r.Parts[1:] {
		if p != nil {
			args[i] = string(p) // the driver converts text to the column's type
		}
	}
	return t.exec(ctx, &co, args)
}
