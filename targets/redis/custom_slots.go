package redis

import (
	"context"
	"slices"
	"strings"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets/resp"
)

// In cluster mode a custom op whose keys can hash to different slots is
// refused at Prepare, with its line (resp.SlotConflict), rather
// than failing every time it runs with CROSSSLOT. A command's keys are
// the arguments at the key positions COMMAND INFO gives; a script's are
// its keys:; a multi:'s are those of all its commands, since one
// transaction runs on one node. A command whose keys move with its
// arguments (movablekeys) is judged when it takes a literal numkeys
// (ZUNIONSTORE, ZINTER, LMPOP ...: keypos.go); the others (SORT ... STORE,
// XREAD ...) are left to the server, which answers CROSSSLOT: an error,
// counted in its own class (crossslot), never a success. validate makes
// the same check with keypos.go's table of key positions.

// checkSlots refuses op name's redis form rt if its keys can land in two
// slots.
func (t *Target) checkSlots(sc *scenarios.Scenario, name string, rt *resp.Template, infos map[string]commandKeys) error {
	if a, b, bad := resp.SlotConflict(sc, templateKeys(infos, rt)); bad {
		return sc.ProblemAt("ops."+name+".redis", resp.CrossSlotError(name, a, b))
	}
	return nil
}

// templateKeys lists the key templates of rt: a script's keys:, the
// keys of every command of a multi: (one transaction runs on one node),
// or the command's.
func templateKeys(infos map[string]commandKeys, rt *resp.Template) []string {
	switch {
	case rt.Script != "":
		return rt.Keys
	case len(rt.Multi) > 0:
		var keys []string
		for _, cmd := range rt.Multi {
			keys = append(keys, keysOf(infos, cmd)...)
		}
		return keys
	}
	return keysOf(infos, rt.Command)
}

// commandKeys is where a command's keys are (COMMAND INFO).
type commandKeys struct {
	first, last, step int
	movable           bool
}

// keyPositions asks the server where each command's keys are.
func (t *Target) keyPositions(ctx context.Context) (map[string]commandKeys, error) {
	infos, err := t.c.Command(ctx).Result()
	if err != nil {
		return nil, err
	}
	out := make(map[string]commandKeys, len(infos))
	for name, ci := range infos {
		out[strings.ToLower(name)] = commandKeys{first: int(ci.FirstKeyPos), last: int(ci.LastKeyPos), step: int(ci.StepCount),
			movable: slices.Contains(ci.Flags, "movablekeys")}
	}
	return out, nil
}

// of lists the key arguments of cmd (none for a command without keys,
// an unknown one, or one whose keys move).
func (k commandKeys) of(cmd []string) []string {
	if k.first <= 0 || k.movable {
		return nil
	}
	last := k.last
	if last < 0 {
		last += len(cmd)
	}
	step := max(k.step, 1)
	var keys []string
	for i := k.first; i <= last && i < len(cmd); i += step {
		keys = append(keys, cmd[i])
	}
	return keys
}
