package cql

import (
	"context"
	"testing"
	"time"

	"github.com/soakd/soakd/targets"
)

// A custom op that only reads runs under the read timeout, any other
// under the write timeout, like the built-in ops.
func TestCustomReadsUseReadTimeout(t *testing.T) {
	sc, err := targets.ParseScenario("s.yaml", []byte(`name: t
target: {kind: cql, url: "cql://127.0.0.1/ks"}
ops:
  look: {cql: {statement: "SELECT v FROM ks.t WHERE k = ?", args: ["{key}"]}}
  put: {cql: {statement: "INSERT INTO ks.t (k, v) VALUES (?, ?)", args: ["{key}", "1"]}}
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
	for _, name := range []string{"look", "read"} {
		if d := timeout(name); d != time.Hour {
			t.Errorf("%s: the %v (write) timeout, want the read one", name, d)
		}
	}
	for _, name := range []string{"put", "update"} {
		if d := timeout(name); d != 3*time.Hour {
			t.Errorf("%s: the %v (read) timeout, want the write one", name, d)
		}
	}
}
