package mongo

import (
	"context"
	"testing"
	"time"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// A custom op that only reads runs under the read timeout, any other
// under the write timeout, like the built-in ops.
func TestCustomReadsUseReadTimeout(t *testing.T) {
	sc, err := scenarios.Parse("s.yaml", []byte(`name: t
target: {kind: mongo, url: "mongodb://127.0.0.1:27017"}
ops:
  look: {mongo: {command: '{"find": "c", "filter": {"_id": "{key}"}}'}}
  tally: {mongo: {command: '{"count": "c"}'}}
  bump: {mongo: {command: '{"update": "c", "updates": [{"q": {"_id": "{key}"}, "u": {"$inc": {"n": 1}}}]}'}}
  copy: {mongo: {command: '{"aggregate": "c", "pipeline": [{"$out": "d"}], "cursor": {}}'}}
phases:
  - {name: s, kind: steady, rate: 10, duration: 1s, mix: {look: 100}}
`))
	if err != nil {
		t.Fatal(err)
	}
	tg := &Target{timeouts: targets.Timeouts{Read: time.Hour, Write: 3 * time.Hour}}
	if err := tg.prepareCustom(sc); err != nil {
		t.Fatal(err)
	}
	names, err := sc.OpTable()
	if err != nil {
		t.Fatal(err)
	}
	timeout := func(name string) time.Duration {
		op, ok := names.Lookup(name)
		if !ok {
			t.Fatalf("no op %s", name)
		}
		ctx, cancel := tg.timeouts.Context(context.Background(), tg.custom.Writes(op))
		defer cancel()
		dl, ok := ctx.Deadline()
		if !ok {
			t.Fatalf("%s: no deadline", name)
		}
		if time.Until(dl) > 2*time.Hour {
			return 3 * time.Hour
		}
		return time.Hour
	}
	for _, name := range []string{"look", "tally", "read"} {
		if d := timeout(name); d != time.Hour {
			t.Errorf("%s: the %v (write) timeout, want the read one", name, d)
		}
	}
	for _, name := range []string{"bump", "copy", "update"} {
		if d := timeout(name); d != 3*time.Hour {
			t.Errorf("%s: the %v (read) timeout, want the write one", name, d)
		}
	}
}
