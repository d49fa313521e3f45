package cql

import (
	"context"
	"testing"
	"time"

	"github.com/soakd/soakd/internal/storetest"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// A custom op that only reads runs under the read timeout, any other
// under the write timeout, like the built-in ops.
func TestCustomReadsUseReadTimeout(t *testing.T) {
	sc := storetest.Parse(t, "s.yaml", `name: t
target: {kind: cql, url: "cql://127.0.0.1/ks"}
ops:
  look: {cql: {statement: "SELECT v FROM ks.t WHERE k = ?", args: ["{key}"]}}
  put: {cql: {statement: "INSERT INTO ks.t (k, v) VALUES (?, ?)", args: ["{key}", "1"]}}
phases:
  - {name: s, kind: steady, rate: 10, duration: 1s, mix: {look: 100}}
`)
	tg := &Target{timeouts: targets.Timeouts{Read: storetest.ReadTimeout, Write: storetest.WriteTimeout}}
	if err := tg.prepareCustom(sc); err != nil {
		t.Fatal(err)
	}
	deadline := func(op scenarios.Op) (time.Time, bool) {
		ctx, cancel := tg.timeouts.Context(context.Background(), tg.custom.Writes(op))
		defer cancel()
		return ctx.Deadline()
	}
	storetest.Timeouts(t, sc, deadline, []string{"look", "read"}, []string{"put", "update"})
}
