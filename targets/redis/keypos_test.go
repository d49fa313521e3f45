package redis

import (
	"strings"
	"testing"

	"github.com/soakd/soakd/targets"
)

// validate (no server) refuses, in cluster mode, every custom op whose
// keys can hash to different slots, each at its line: plain multi-key
// commands, the numkeys commands (ZUNIONSTORE), a script, a multi. Ops
// whose keys share a hash tag, and the same ops in standalone mode, pass.
func TestValidateRefusesCrossSlotInCluster(t *testing.T) {
	src := func(mode string) string {
		return `name: cross
target: {kind: redis, url: "redis://127.0.0.1:7000", client: {mode: ` + mode + `}}
keyspace: {records: 1000}
bindings: {user: {key: uniform, records: 200}}
ops:
  pair: {redis: [MSET, "a:{key}", "1", "b:{key}", "2"]}
  zu: {redis: [ZUNIONSTORE, "dst:{key}", "2", "z1:{key}", "z2:{key}"]}
  lua: {redis: {script: "return 1", keys: ["x:{{{user}}", "y:{{{key}}"]}}
  tx: {redis: {multi: [[SET, "s:{{{user}}", "v"], [INCR, "n:{{{key}}"]]}}
  good: {redis: [ZINTERSTORE, "d:{{{user}}", "2", "a:{{{user}}", "b:{{{user}}"]}
  single: {redis: [GET, "{key}"]}
phases:
  - {name: s, kind: steady, requests: 10, mix: {pair: 20, zu: 20, lua: 20, tx: 20, good: 10, single: 10}}
`
	}
	_, err := targets.ParseScenario("cross.yaml", []byte(src("cluster")))
	if err == nil {
		t.Fatal("validate passed cross-slot ops in cluster mode")
	}
	for _, want := range []string{"cross.yaml:6", "cross.yaml:7", "cross.yaml:8", "cross.yaml:9", "op pair", "op zu", "op lua", "op tx", "CROSSSLOT"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not name %q:\n%v", want, err)
		}
	}
	for _, ok := range []string{"op good", "op single"} {
		if strings.Contains(err.Error(), ok) {
			t.Errorf("%s refused:\n%v", ok, err)
		}
	}
	if _, err := targets.ParseScenario("cross.yaml", []byte(src("standalone"))); err != nil {
		t.Errorf("standalone: %v", err)
	}
}

// A CROSSSLOT reply is its own error class, wherever the word is.
func TestClassifyCrossSlot(t *testing.T) {
	var tg Target
	for _, msg := range []string{"CROSSSLOT Keys in request don't hash to the same slot", "EXECABORT Transaction discarded because of: CROSSSLOT Keys in request don't hash to the same slot"} {
		if c := tg.Classify(replyError(msg)); c != targets.ClassCrossSlot {
			t.Errorf("%q: class %q", msg, c)
		}
	}
}
