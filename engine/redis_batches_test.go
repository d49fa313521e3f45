package engine

import (
	"testing"
)

// TestRedisBatchesCountMissesExactly: GET and SET batches against a real
// redis-server (pipelined batches on the fast RESP path) are
// counted op by op through engine.Run: every GET of an empty server is
// a miss and not an error, and after SETs have written every key no GET
// misses. requests: N makes the counts exact.
func TestRedisBatchesCountMissesExactly(t *testing.T) {
	t.Parallel()
	needRedis(t)
	sc := scenario(t, `
name: batch-misses
target: {kind: redis, managed: {persistence: none}}
keyspace: {records: 500}
phases:
  - {name: misses, kind: steady, rate: 20000, duration: 30s, requests: 4000, concurrency: 8, max_lag: 20s, mix: {get: 100}}
  - {name: fill, kind: steady, rate: 20000, duration: 30s, requests: 20000, concurrency: 8, max_lag: 20s, mix: {set: 100}}
  - {name: hits, kind: steady, rate: 20000, duration: 30s, requests: 4000, concurrency: 8, max_lag: 20s, mix: {get: 100}}
`)
	sum, _ := runOpts(t, sc, false)
	want := map[string]struct{ completed, misses int64 }{
		"misses": {4000, 4000},
		"fill":   {20000, 0},
		"hits":   {4000, 0},
	}
	if len(sum.Phases) != len(want) {
		t.Fatalf("%d phases ran, want %d (status %s %s)", len(sum.Phases), len(want), sum.Status, sum.StatusReason)
	}
	for _, p := range sum.Phases {
		w := want[p.Name]
		if p.Completed != w.completed || p.Dropped != 0 || p.Errors != 0 {
			t.Errorf("phase %s: completed %d dropped %d errors %d, want %d completed and none dropped or failed", p.Name, p.Completed, p.Dropped, p.Errors, w.completed)
		}
		if p.Misses != w.misses {
			t.Errorf("phase %s: %d misses, want %d", p.Name, p.Misses, w.misses)
		}
	}
}
