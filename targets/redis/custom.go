package redis

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	goredis "github.com/redis/go-redis/v9"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
	"github.com/soakd/soakd/targets/resp"
)

// Custom ops (a scenario's ops: with a redis form) go over the fast path
// like the built-ins: a command, EVALSHA of a script loaded at Prepare,
// or MULTI ... EXEC, encoded from the request's rendered Parts into the
// connection's buffer and pipelined with the ops due with them. Off the
// fast path (cluster, sentinel, client.protocol goredis) they go through
// go-redis. An error reply (or one inside EXEC's reply) is an error; the
// op's miss_when says which other replies are misses.

type customForm uint8

const (
	formCommand customForm = iota
	formScript
	formMulti
)

// customOp is one custom op compiled for this target.
type customOp struct {
	form  customForm
	sha   []byte // formScript: the script's SHA1, from SCRIPT LOAD
	nkeys int    // formScript: how many of Parts are keys
	argc  []int  // formMulti: each command's argument count
	miss  scenarios.MissRule
}

// customOps holds the compiled custom ops by op - OpCustomBase.
type customOps [scenarios.MaxCustomOps]*customOp

// prepareCustom compiles sc's custom ops and loads their scripts.
func (t *Target) prepareCustom(ctx context.Context, sc *scenarios.Scenario) error {
	if len(sc.Ops) == 0 {
		return nil
	}
	ops, err := sc.CustomOps()
	if err != nil {
		return err
	}
	var keyPos map[string]commandKeys
	if t.mode == ModeCluster {
		if keyPos, err = t.keyPositions(ctx); err != nil {
			return fmt.Errorf("COMMAND (key positions, to check custom ops' slots): %w", err)
		}
	}
	if keyPos != nil {
		// Every cross-slot op at once, not the first of them a run.
		var errs []error
		for _, o := range slices.Sorted(maps.Keys(ops)) {
			f, _ := ops[o].Form(resp.Family.Name)
			if rt, ok := f.(*resp.Template); ok {
				errs = append(errs, t.checkSlots(sc, sc.OpName(o), rt, keyPos))
			}
		}
		if err := errors.Join(errs...); err != nil {
			return err
		}
	}
	var cs customOps
	for o, c := range ops {
		f, _ := c.Form(resp.Family.Name)
		rt, ok := f.(*resp.Template)
		if !ok {
			continue
		}
		co := &customOp{miss: c.MissWhen}
		switch {
		case rt.Script != "":
			co.form = formScript
			co.nkeys = len(rt.Keys)
			sha, err := t.c.ScriptLoad(ctx, rt.Script).Result()
			if err != nil {
				return fmt.Errorf("op %s: SCRIPT LOAD: %w", sc.OpName(o), err)
			}
			co.sha = []byte(sha)
		case len(rt.Multi) > 0:
			co.form = formMulti
			for _, cmd := range rt.Multi {
				co.argc = append(co.argc, len(cmd))
			}
		}
		cs[o-scenarios.OpCustomBase] = co
	}
	t.custom = &cs
	return nil
}

// customOf returns op's compiled form, nil for a built-in op. A custom
// op the scenario's ops: did not compile (a replay phase's command
// group) is sent as the plain command its Parts spell.
func (t *Target) customOf(op scenarios.Op) *customOp {
	if !op.IsCustom() {
		return nil
	}
	if t.custom != nil {
		if co := t.custom[op-scenarios.OpCustomBase]; co != nil {
			return co
		}
	}
	return &plainCommand
}

// plainCommand is the form of a request whose Parts are one whole
// command (name and arguments), sent as they are.
var plainCommand = customOp{form: formCommand}

// errNoCustom is the outcome of a custom op this target has no form for
// (Validate keeps such mixes out).
var errNoCustom = errors.New("custom op has no redis form")

// commands is how many commands appendCustom sends for the op.
func (co *customOp) commands() int {
	if co.form == formMulti {
		return len(co.argc) + 2
	}
	return 1
}

// appendCustom appends r's commands (custom op co) to b.
func appendCustom(b []byte, co *customOp, r *targets.Request) []byte {
	switch co.form {
	case formScript:
		b = appendHeader(b, 3+len(r.Parts))
		b = appendBulkString(b, "EVALSHA")
		b = appendBulk(b, co.sha)
		b = appendBulkInt(b, int64(co.nkeys))
		for _, p := range r.Parts {
			b = appendBulk(b, p)
		}
		return b
	case formMulti:
		b = appendBulkString(appendHeader(b, 1), "MULTI")
		k := 0
		for _, n := range co.argc {
			b = appendHeader(b, n)
			for _, p := range r.Parts[k : k+n] {
				b = appendBulk(b, p)
			}
			k += n
		}
		return appendBulkString(appendHeader(b, 1), "EXEC")
	}
	b = appendHeader(b, len(r.Parts))
	for _, p := range r.Parts {
		b = appendBulk(b, p)
	}
	return b
}

// customOutcome is a custom op's result from its replies on the fast
// path: first is the first command's error reply, later the first error
// reply after it; c holds the last reply (EXEC's for a multi).
func customOutcome(co *customOp, c *conn, first, later error) error {
	if first != nil {
		return first
	}
	if later != nil {
		return later
	}
	if co.form == formMulti && c.kind == kindNil {
		return errors.New("EXEC returned nil: the transaction was aborted")
	}
	return missBy(co.miss, c.kind, c.n, c.zeroOne)
}

// missBy applies miss rule m to a reply of kind and size n (array
// length, bulk length or integer value); noHits says the reply is [0],
// FT.SEARCH's (and FT.AGGREGATE's) reply with no hits, a miss under
// zero and empty like an elastic search's total of 0.
func missBy(m scenarios.MissRule, kind int, n int64, noHits bool) error {
	switch m {
	case scenarios.MissNil:
		if kind == kindNil {
			return targets.ErrMiss
		}
	case scenarios.MissZero:
		if (kind == kindInt && n == 0) || noHits {
			return targets.ErrMiss
		}
	case scenarios.MissEmpty:
		if kind == kindNil || (kind == kindArray && n == 0) || (kind == kindBulk && n == 0) || noHits {
			return targets.ErrMiss
		}
	}
	return nil
}

// buildCustom queues custom op r on go-redis (the path off the fast
// one).
func (t *Target) buildCustom(ctx context.Context, c cmdable, r *targets.Request) post {
	co := t.customOf(r.Op)
	if co == nil {
		return fail(errNoCustom)
	}
	switch co.form {
	case formScript:
		keys := make([]string, co.nkeys)
		for i := range keys {
			keys[i] = string(r.Parts[i])
		}
		args := make([]any, 0, len(r.Parts)-co.nkeys)
		for _, p := range r.Parts[co.nkeys:] {
			args = append(args, string(p))
		}
		return post{kind: postCustom, cmd: c.EvalSha(ctx, string(co.sha), keys, args...), miss: co.miss}
	case formMulti:
		parts := append([][]byte(nil), r.Parts...) // r's buffers are reused after Do
		return then(func(ctx context.Context) error {
			var last *goredis.Cmd
			_, err := t.c.TxPipelined(ctx, func(p goredis.Pipeliner) error {
				k := 0
				for _, n := range co.argc {
					last = p.Do(ctx, anyArgs(parts[k:k+n])...)
					k += n
				}
				return nil
			})
			if err != nil && !errors.Is(err, goredis.Nil) {
				return err
			}
			return post{kind: postCustom, cmd: last, miss: co.miss}.finish(ctx)
		})
	}
	return post{kind: postCustom, cmd: c.Do(ctx, anyArgs(r.Parts)...), miss: co.miss}
}

func anyArgs(parts [][]byte) []any {
	args := make([]any, len(parts))
	for i, p := range parts {
		args[i] = string(p)
	}
	return args
}

// finishCustom is the outcome of a custom op's go-redis command.
func finishCustom(cmd goredis.Cmder, m scenarios.MissRule) error {
	err := cmd.Err()
	if errors.Is(err, goredis.Nil) {
		if m == scenarios.MissNil || m == scenarios.MissEmpty {
			return targets.ErrMiss
		}
		return nil
	}
	if err != nil {
		return err
	}
	var v any
	if c, ok := cmd.(*goredis.Cmd); ok {
		v = c.Val()
	}
	switch m {
	case scenarios.MissZero:
		if n, ok := v.(int64); (ok && n == 0) || searchNoHits(v) {
			return targets.ErrMiss
		}
	case scenarios.MissEmpty:
		if searchNoHits(v) {
			return targets.ErrMiss
		}
		switch x := v.(type) {
		case []any:
			if len(x) == 0 {
				return targets.ErrMiss
			}
		case map[any]any:
			if len(x) == 0 {
				return targets.ErrMiss
			}
		case string:
			if x == "" {
				return targets.ErrMiss
			}
		}
	}
	return nil
}

// searchNoHits reports a search reply with no hits as go-redis gives
// it: [0] in RESP2, a map whose total_results is 0 in RESP3.
func searchNoHits(v any) bool {
	switch x := v.(type) {
	case []any:
		if len(x) == 1 {
			i, isInt := x[0].(int64)
			return isInt && i == 0
		}
	case map[any]any:
		if t, ok := x["total_results"]; ok {
			i, isInt := t.(int64)
			return isInt && i == 0
		}
	}
	return false
}

// customBatchable: a multi queued through go-redis runs as its own
// transaction after the pipeline, so it is sent alone there.
func (t *Target) customBatchable(op scenarios.Op) bool {
	co := t.customOf(op)
	return co != nil && (t.fast || co.form != formMulti)
}
