package cql

import (
	"context"
	"errors"

	"github.com/gocql/gocql"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// Custom ops (a scenario's ops: with a cql form) run one statement with
// ? markers, which the driver prepares once per connection and then
// executes with the op's rendered args, each bound as its marker's type
// (customargs.go), at the op's consistency (default:
// the URL's read consistency for a SELECT, its write consistency
// otherwise). A server error is an error, classified like the
// built-ins'; miss_when judges the rows: nil and empty (no row), zero (a
// first column of 0, such as SELECT count(*)).

type customOp struct {
	stmt  string
	cons  gocql.Consistency
	read  bool
	miss  scenarios.MissRule
	nargs int
}

// prepareCustom compiles sc's custom ops with a cql form.
func (t *Target) prepareCustom(sc *scenarios.Scenario) error {
	cs, err := targets.CompileCustom(sc, func(_ scenarios.Op, c *scenarios.CustomOp) (*customOp, bool, error) {
		f, _ := c.Form(Family.Name)
		q, ok := f.(*CQLTemplate)
		if !ok {
			return nil, false, nil
		}
		co := &customOp{stmt: q.Statement, read: q.IsRead(), miss: c.MissWhen, nargs: len(q.Args), cons: t.cfg.Write}
		if co.read {
			co.cons = t.cfg.Read
		}
		if q.Consistency != "" {
			var err error
			if co.cons, err = ParseConsistency(q.Consistency); err != nil {
				return nil, false, err
			}
		}
		return co, co.read, nil
	})
	t.custom = cs
	return err
}

var errNoCustom = errors.New("custom op has no cql form")

// doCustom runs custom op r: Parts are the statement's args. A custom
// op the scenario's ops: did not compile is a replay phase's group
// (replay.go).
func (t *Target) doCustom(ctx context.Context, r *targets.Request) error {
	co := t.custom.Of(r.Op)
	if co == nil {
		return t.doReplay(ctx, r)
	}
	if len(r.Parts) != co.nargs {
		return errNoCustom
	}
	args := make([]any, len(r.Parts))
	for i, p := range r.Parts {
		args[i] = customArg(p) // bound as its marker's type (customargs.go)
	}
	return t.exec(ctx, co, args)
}

// exec runs op co's statement with args and judges its rows.
func (t *Target) exec(ctx context.Context, co *customOp, args []any) error {
	q := t.sess().Query(co.stmt, args...).WithContext(ctx).Consistency(co.cons)
	if !co.read {
		return q.Exec()
	}
	iter := q.Iter()
	rows := iter.NumRows()
	var first any
	if co.miss == scenarios.MissZero && rows > 0 {
		if m := map[string]any{}; iter.MapScan(m) {
			if cols := iter.Columns(); len(cols) > 0 {
				first = m[cols[0].Name]
			}
		}
	}
	if err := iter.Close(); err != nil {
		return err
	}
	switch co.miss {
	case scenarios.MissNil, scenarios.MissEmpty:
		if rows == 0 {
			return targets.ErrMiss
		}
	case scenarios.MissZero:
		switch v := first.(type) {
		case int64:
			if v == 0 {
				return targets.ErrMiss
			}
		case int:
			if v == 0 {
				return targets.ErrMiss
			}
		case int32:
			if v == 0 {
				return targets.ErrMiss
			}
		case int16:
			if v == 0 {
				return targets.ErrMiss
			}
		case int8:
			if v == 0 {
				return targets.ErrMiss
			}
		case float64:
			if v == 0 {
				return targets.ErrMiss
			}
		case float32:
			if v == 0 {
				return targets.ErrMiss
			}
		}
	}
	return nil
}
