package elastic

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
target: {kind: elastic, url: "http://127.0.0.1:9200"}
ops:
  look: {elastic: {path: "/i/_doc/{key}"}}
  find: {elastic: {path: "/i/_search", body: '{"size": 1}'}}
  put: {elastic: {method: PUT, path: "/i/_doc/{key}", body: '{"n": 1}'}}
  bulk: {elastic: {path: "/_bulk", body: "{\"index\": {\"_index\": \"i\"}}\n{\"n\": 1}\n"}}
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
	storetest.Timeouts(t, sc, deadline, []string{"look", "find", "read"}, []string{"put", "bulk", "update"})
}
