// Package resp is the RESP family of stores (redis and the embedded
// store): the redis form of a custom op (ops.<name>.redis), what it may
// run, and the replay rules of a MONITOR capture, registered once as
// Family and referenced by both stores' adapters.
package resp

import (
	"fmt"
	"slices"
	"strings"

	"github.com/soakd/soakd/scenarios"
)

// scripting are the commands that run a script or a function; a
// custom op writes a script as {script: ...} instead, which validate can
// check (soakd loads it and runs it with EVALSHA).
var scripting = []string{"EVAL", "EVALSHA", "EVAL_RO", "EVALSHA_RO", "FCALL", "FCALL_RO"}

// Redis commands a custom op may not send. Blocking commands hold their
// connection until the server answers, so they would stall every op
// pipelined behind them and measure the wait, not the server; they are
// refused rather than sent alone.
var blocking = []string{
	"BLPOP", "BRPOP", "BRPOPLPUSH", "BLMOVE", "BLMPOP", "BZPOPMIN", "BZPOPMAX", "BZMPOP",
	"WAIT", "WAITAOF", "SUBSCRIBE", "PSUBSCRIBE", "SSUBSCRIBE", "UNSUBSCRIBE", "PUNSUBSCRIBE",
	"SUNSUBSCRIBE", "MONITOR", "SYNC", "PSYNC", "XREAD", "XREADGROUP", "MULTI", "EXEC", "DISCARD",
	"WATCH", "UNWATCH", "QUIT", "RESET", "HELLO", "AUTH", "SELECT", "CLIENT",
}

// Redis commands (or command and subcommand) that destroy data or stop
// or reconfigure a server: refused against any target but the embedded
// store unless the scenario says allow_destructive: true.
var destructiveCommands = []string{
	"FLUSHALL", "FLUSHDB", "SHUTDOWN", "CONFIG SET", "CONFIG RESETSTAT", "CONFIG REWRITE", "DEBUG",
	"SCRIPT FLUSH", "SCRIPT KILL", "FUNCTION FLUSH", "FUNCTION DELETE", "FUNCTION RESTORE", "FUNCTION LOAD",
	"FUNCTION KILL", "SWAPDB",
	"REPLICAOF", "SLAVEOF", "FAILOVER", "CLUSTER", "MODULE", "ACL", "BGREWRITEAOF", "BGSAVE", "SAVE",
	"MIGRATE", "RESTORE", "KEYS",
}

// BlockingCommands lists the commands a redis custom op may not
// send (for documentation and messages).
func BlockingCommands() []string { return append([]string(nil), blocking...) }

// DestructiveCommands lists the commands refused without
// allow_destructive.
func DestructiveCommands() []string { return append([]string(nil), destructiveCommands...) }

// destructive returns the destructive command cmd starts with, "".
func destructive(cmd []string) string {
	if len(cmd) == 0 {
		return ""
	}
	name := strings.ToUpper(cmd[0])
	sub := ""
	if len(cmd) > 1 {
		sub = name + " " + strings.ToUpper(cmd[1])
	}
	for _, d := range destructiveCommands {
		if d == name || d == sub {
			return d
		}
	}
	return ""
}

// bindingSegment is named binding name's generator, parsed (false for
// a key binding or an unknown name).
func bindingSegment(s *scenarios.Scenario, name string) (scenarios.Segment, bool) {
	b, ok := s.Bindings[name]
	if !ok || b.Gen == "" {
		return scenarios.Segment{}, false
	}
	g, err := scenarios.ParseGenerator(b.Gen)
	return g, err == nil
}

// Check checks one op's redis form: its shape, its commands and every
// template string.
func (t *Template) Check(c scenarios.CustomCheck) []scenarios.FieldError {
	var errs []scenarios.FieldError
	add := func(path, format string, args ...any) { scenarios.Add(&errs, path, format, args...) }
	s, name, pp, isBinding := c.Scenario, c.Name, c.Path, c.IsBinding
	forms := 0
	for _, set := range []bool{len(t.Command) > 0, t.Script != "", len(t.Multi) > 0} {
		if set {
			forms++
		}
	}
	switch {
	case forms == 0:
		add(pp, "op %s: a redis template needs a command list, script: or multi:", name)
		return errs
	case forms > 1:
		add(pp, "op %s: give one of a command list, script: or multi:", name)
		return errs
	}
	if t.Script == "" && (t.Keys != nil || t.Args != nil) {
		add(pp, "op %s: keys: and args: go with script:", name)
	}
	if t.Script != "" && !c.AllowDestructive {
		if p := checkScript(t.Script); p != nil {
			add(pp+".script", "op %s: script line %d: %s; refused against a %s target unless the scenario says allow_destructive: true", name, p.Line, p.Msg, s.Target.Kind)
		}
	}
	for i, cmd := range t.Commands() {
		cp := pp
		if len(t.Multi) > 0 {
			cp = fmt.Sprintf("%s.multi[%d]", pp, i)
		}
		if len(cmd) == 0 {
			add(cp, "op %s: an empty command", name)
			continue
		}
		segs, err := scenarios.ParseTemplate(cmd[0], isBinding)
		lit, ok := scenarios.Literal(segs)
		if err != nil || !ok || lit == "" {
			add(cp, "op %s: the command name %q must be plain text, not a placeholder", name, cmd[0])
			continue
		}
		up := strings.ToUpper(lit)
		for _, b := range blocking {
			if up == b {
				add(cp, "op %s: %s is refused: it blocks or changes the connection's state, which would stall the ops pipelined with it (refused: %s)", name, up, strings.Join(blocking, ", "))
			}
		}
		if up == "XREAD" || up == "XREADGROUP" {
			continue
		}
		if !c.AllowDestructive {
			d, why := destructive([]string{up}), ""
			if d == "" && len(cmd) > 1 && subcommanded(up) {
				d, why = destructiveSubcommand(up, cmd[1], isBinding, func(n string) (scenarios.Segment, bool) { return bindingSegment(s, n) })
			}
			sp := cp + "[1]"
			switch {
			case d != "":
				add(cp, "op %s: %s destroys data or stops or reconfigures the server; refused against a %s target unless the scenario says allow_destructive: true", name, d, s.Target.Kind)
			case why != "":
				add(sp, "op %s: %s; refused against a %s target unless the scenario says allow_destructive: true", name, why, s.Target.Kind)
			}
		}
		if slices.Contains(scripting, up) {
			add(cp, "op %s: write a script as {script: ..., keys: [...], args: [...]}; soakd loads it and runs it with EVALSHA", name)
		}
	}
	paths := t.templatePaths(pp)
	for i, tpl := range t.Templates() {
		segs, err := scenarios.ParseTemplate(tpl, isBinding)
		if err != nil {
			add(paths[i], "op %s: %v", name, err)
			continue
		}
		if n := c.MaxLen(segs); n > int64(c.Op.MaxBytes) {
			add(paths[i], "op %s: %q can render %d bytes, more than max_bytes (%d)", name, tpl, n, int64(c.Op.MaxBytes))
		}
	}
	return errs
}
