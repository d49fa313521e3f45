package redis

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// RediSearch's query timeout: a query that runs longer than TIMEOUT ms
// either comes back with the hits found so far (ON_TIMEOUT RETURN, the
// default) or fails (ON_TIMEOUT FAIL). Under RETURN a timed-out search
// is a short, successful reply: nothing in a RESP2 reply tells it from a
// full one, so soakd counts it as done. The run's target line says which
// policy the server has, so a reader knows whether a slow search could
// have been cut short.
const (
	searchTimeoutDefaultMS = 500
	searchOnTimeoutDefault = "return"
)

// searchTimeout is the server's query timeout and its policy: FT.CONFIG
// GET where the module has it (2.x), otherwise the module's load
// arguments (1.x), otherwise RediSearch's defaults.
func (t *Target) searchTimeout(ctx context.Context, ft *Module) (ms int64, policy string) {
	setting := func(name string) (string, bool) {
		if v, ok := t.ftConfig(ctx, name); ok {
			return v, true
		}
		return moduleArg(ft.Args, name)
	}
	ms, policy = searchTimeoutDefaultMS, searchOnTimeoutDefault
	if v, ok := setting("TIMEOUT"); ok {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			ms = n
		}
	}
	if v, ok := setting("ON_TIMEOUT"); ok {
		policy = strings.ToLower(v)
	}
	return ms, policy
}

// ftConfig is one FT.CONFIG GET value: a list of [name, value] pairs
// under RESP2, a map under RESP3. False when the module has no
// FT.CONFIG (1.x) or does not know the name.
func (t *Target) ftConfig(ctx context.Context, name string) (string, bool) {
	v, err := t.adminClient().Do(ctx, "FT.CONFIG", "GET", name).Result()
	if err != nil {
		return "", false
	}
	var val any
	switch r := v.(type) {
	case []any:
		if len(r) > 0 {
			if pair, ok := r[0].([]any); ok && len(pair) >= 2 {
				val = pair[1]
			}
		}
	case map[any]any:
		for k, x := range r {
			if strings.EqualFold(fmt.Sprint(k), name) {
				val = x
			}
		}
	}
	if val == nil {
		return "", false
	}
	return fmt.Sprint(val), true
}

// moduleArg is the value after name in a module's load arguments.
func moduleArg(args []string, name string) (string, bool) {
	for i := 0; i+1 < len(args); i++ {
		if strings.EqualFold(args[i], name) {
			return args[i+1], true
		}
	}
	return "", false
}

// describeSearchTimeout is the target line's note on the timeout.
func describeSearchTimeout(ms int64, policy string) string {
	switch {
	case ms == 0:
		return "no query timeout"
	case policy == "fail":
		return fmt.Sprintf("query timeout %d ms fails the search", ms)
	default:
		return fmt.Sprintf("query timeout %d ms, ON_TIMEOUT %s: a search cut short counts as done", ms, policy)
	}
}
