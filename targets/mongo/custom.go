package mongo

import (
	"context"
	"errors"
	"fmt"

	"go.mongodb.org/mongo-driver/bson"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// Custom ops (a scenario's ops: with a mongo form) run one database
// command, rendered from extended JSON per op, on the scenario's
// database. A reply with ok 0, writeErrors or a writeConcernError is an
// error; miss_when judges the rest: nil (no document: findAndModify's
// value null, or an empty first batch), zero (n is 0: count, update,
// delete), empty (no document and no count).

type customOp struct {
	name string
	// cmd is the command the template runs (its first key): a rendered
	// command that runs any other is not sent.
	cmd  string
	miss scenarios.MissRule
}

// prepareCustom compiles sc's custom ops with a mongo form.
func (t *Target) prepareCustom(sc *scenarios.Scenario) error {
	cs, err := targets.CompileCustom(sc, func(o scenarios.Op, c *scenarios.CustomOp) (*customOp, bool, error) {
		f, _ := c.Form(Family.Name)
		m, ok := f.(*MongoTemplate)
		if !ok {
			return nil, false, nil
		}
		// Only reads: find, count, distinct, an aggregate without $out or $merge.
		read := m.ReadOnly()
		segs, err := scenarios.ParseTemplate(m.Command, func(n string) bool { _, ok := sc.Bindings[n]; return ok })
		if err != nil {
			return nil, false, fmt.Errorf("op %s: %w", sc.OpName(o), err)
		}
		cmd := MongoCommandName(scenarios.SampleRender(segs))
		return &customOp{name: sc.OpName(o), cmd: cmd, miss: c.MissWhen}, read, nil
	})
	t.custom = cs
	return err
}

var errNoCustom = errors.New("custom op has no mongo form")

// doCustom runs custom op r. A custom op the scenario's ops: did not
// compile is a replay phase's group (replay.go).
func (t *Target) doCustom(ctx context.Context, r *targets.Request) error {
	co := t.custom.Of(r.Op)
	if co == nil {
		return t.doReplay(ctx, r)
	}
	if len(r.Parts) != 1 {
		return errNoCustom
	}
	var cmd bson.D
	if err := bson.UnmarshalExtJSON(r.Parts[0], false, &cmd); err != nil {
		return fmt.Errorf("op %s: the rendered command is not extended JSON: %w", co.name, err)
	}
	if len(cmd) == 0 || cmd[0].Key != co.cmd {
		return fmt.Errorf("op %s: the rendered command is not the template's %s; refused", co.name, co.cmd)
	}
	return t.runCommand(ctx, cmd, co.miss)
}

// runCommand runs cmd on the scenario's database and judges its reply
// (a find is sent with singleBatch, so no cursor stays open).
func (t *Target) runCommand(ctx context.Context, cmd bson.D, miss scenarios.MissRule) error {
	if len(cmd) > 0 && cmd[0].Key == "find" && !hasKey(cmd, "singleBatch") {
		cmd = append(cmd, bson.E{Key: "singleBatch", Value: true})
	}
	raw, err := t.coll.Database().RunCommand(ctx, cmd).Raw()
	if err != nil {
		return err
	}
	return customOutcome(raw, miss)
}

func hasKey(d bson.D, k string) bool {
	for _, e := range d {
		if e.Key == k {
			return true
		}
	}
	return false
}

// customOutcome judges a command's reply.
func customOutcome(raw bson.Raw, miss scenarios.MissRule) error {
	if we, ok := raw.Lookup("writeErrors").ArrayOK(); ok {
		if vals, _ := we.Values(); len(vals) > 0 {
			msg, _ := vals[0].Document().Lookup("errmsg").StringValueOK()
			return fmt.Errorf("write error: %s", msg)
		}
	}
	if wce, ok := raw.Lookup("writeConcernError").DocumentOK(); ok {
		msg, _ := wce.Lookup("errmsg").StringValueOK()
		return fmt.Errorf("write concern error: %s", msg)
	}
	if miss == scenarios.MissNever {
		return nil
	}
	docs, hasDocs := -1, false
	if fb, ok := raw.Lookup("cursor", "firstBatch").ArrayOK(); ok {
		vals, _ := fb.Values()
		docs, hasDocs = len(vals), true
	} else if vs, ok := raw.Lookup("values").ArrayOK(); ok {
		vals, _ := vs.Values()
		docs, hasDocs = len(vals), true
	}
	if v, err := raw.LookupErr("value"); err == nil {
		docs, hasDocs = 1, true
		if v.Type == bson.TypeNull {
			docs = 0
		}
	}
	n, hasN := int64(-1), false
	if v, err := raw.LookupErr("n"); err == nil {
		n, hasN = v.AsInt64OK()
	}
	switch miss {
	case scenarios.MissNil:
		if hasDocs && docs == 0 {
			return targets.ErrMiss
		}
	case scenarios.MissZero:
		if hasN && n == 0 {
			return targets.ErrMiss
		}
	case scenarios.MissEmpty:
		if (hasDocs && docs == 0) || (hasN && n == 0) {
			return targets.ErrMiss
		}
	}
	return nil
}
