package resp

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/soakd/soakd/capture"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// Family is the RESP family: the redis form of a custom op and the
// replay of MONITOR captures (and op logs of Redis commands). The redis
// and embedded adapters both register it.
var Family = &targets.Family{Name: "redis", Custom: format{}, Replay: replay{}}

// replay is the RESP replay dialect: an op is a command and its
// arguments (capture.CommandDialect); the blocking and connection-state
// commands a custom op may not send are skipped, not sent.
type replay struct{}

// Skips reports whether a replay skips command cmd (upper case): the
// blocking and connection-state commands a custom op may not send (they
// would stall the ops pipelined with them or change the connection
// under them).
func Skips(cmd string) bool { return slices.Contains(blocking, cmd) }

func (replay) Dialect() capture.Dialect { return capture.CommandDialect(Skips) }

// KeepsDBs: a RESP replay keeps a capture's dbs apart (each db's keys
// under a prefix of their own).
func (replay) KeepsDBs() bool { return true }

// CheckReplay: a RESP store replays either format, with any key_prefix
// and scripts: list.
func (replay) CheckReplay(*scenarios.Scenario, *scenarios.ReplaySpec) []scenarios.FieldError {
	return nil
}

// Refusal: a script or function command (unless its script is on the
// phase's scripts: list), and the commands a custom op may not run
// without allow_destructive.
func (replay) Refusal(sc *scenarios.Scenario, r *scenarios.ReplaySpec, args []string) string {
	if why := scriptRefusal(r, args, sc.Target.Kind); why != "" {
		return why
	}
	if d := destructive(args); d != "" {
		return sc.DestructiveRefusal(d)
	}
	return ""
}

// replayScripting are the commands a redis replay refuses without
// allow_destructive (unless the script is on the phase's scripts: list):
// what they run is not in the captured line.
var replayScripting = []string{"EVAL", "EVALSHA", "EVAL_RO", "EVALSHA_RO", "FCALL", "FCALL_RO", "FUNCTION", "SCRIPT"}

// scriptRefusal says why a redis replay may not send the script
// or function command args, "" when it may (not one, or an EVAL or
// EVALSHA of a script on r's scripts: list).
func scriptRefusal(r *scenarios.ReplaySpec, args []string, kind scenarios.TargetKind) string {
	cmd := strings.ToUpper(args[0])
	if !slices.Contains(replayScripting, cmd) {
		return ""
	}
	sha := ""
	switch {
	case len(args) > 1 && (cmd == "EVAL" || cmd == "EVAL_RO"):
		sum := sha1.Sum([]byte(args[1]))
		sha = hex.EncodeToString(sum[:])
	case len(args) > 1 && (cmd == "EVALSHA" || cmd == "EVALSHA_RO"):
		sha = strings.ToLower(args[1])
	case len(args) == 3 && cmd == "SCRIPT" && strings.EqualFold(args[1], "LOAD"):
		sum := sha1.Sum([]byte(args[2]))
		sha = hex.EncodeToString(sum[:])
	}
	if sha != "" && r != nil && slices.ContainsFunc(r.Scripts, func(s string) bool { return strings.EqualFold(s, sha) }) {
		return ""
	}
	what := "runs a function, whose commands a replay cannot see"
	switch {
	case sha != "" && cmd == "SCRIPT":
		what = fmt.Sprintf("LOAD loads a Lua script (SHA1 %s), whose commands a replay cannot see", sha)
	case sha != "":
		what = fmt.Sprintf("runs a Lua script (SHA1 %s), whose commands a replay cannot see", sha)
	case cmd == "FUNCTION" || cmd == "SCRIPT":
		what = "loads, deletes or flushes scripts or functions"
	}
	msg := fmt.Sprintf("%s %s (a script can run FLUSHALL); refused against a %s target unless the scenario says allow_destructive: true", cmd, what, kind)
	if sha != "" {
		msg += " or the phase lists the script's SHA1 in scripts:"
	}
	return msg
}
