package engine

import (
	"context"
	"strings"
	"testing"
)

// growth.insert is checked again at run time, for the kind the run
// really targets (validation saw the scenario's): here the scenario was
// validated for mongo, whose form inserts, but runs on a redis-protocol
// store, where the op only reads.
func TestGrowthInsertCheckedForRunKind(t *testing.T) {
	sc := scenario(t, `
target: {kind: mongo, url: "mongodb://127.0.0.1:1"}
keyspace: {records: 100}
ops:
  put:
    redis: [GET, "{key}"]
    mongo: {command: '{"insert": "c", "documents": [{"_id": "{key}"}]}'}
phases:
  - {name: g, kind: growth, mix: {get: 100}, growth: {insert: put, batch: 10, measure_for: 100ms}}
`)
	sc.Target.Kind = ""
	_, err := Run(context.Background(), Options{Scenario: sc, TargetKind: "redis", OutDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "phase g: growth.insert: op put only reads") {
		t.Fatalf("err %v", err)
	}
}
