package engine

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/targets"
)

// countingTarget counts the ops the engine sends it.
type countingTarget struct{ n atomic.Int64 }

func (c *countingTarget) Do(context.Context, *targets.Request) error {
	c.n.Add(1)
	return nil
}
func (c *countingTarget) Close() error { return nil }

func runCounting(t *testing.T, src string, sh rundir.Shard) (*rundir.Summary, int64) {
	t.Helper()
	sc := scenario(t, src)
	tg := &countingTarget{}
	sum, err := Run(context.Background(), Options{Scenario: sc, Target: tg, TargetKind: "fake", OutDir: t.TempDir(), Shard: sh})
	if err != nil {
		t.Fatal(err)
	}
	return sum, tg.n.Load()
}

// TestRequestsBoundSteadyPhase: requests: N runs exactly N ops, closed
// loop and open loop, and ends the phase before its duration does.
func TestRequestsBoundSteadyPhase(t *testing.T) {
	for _, c := range []struct {
		name, phase string
		want        int64
	}{
		{"closed loop", "{name: p, kind: steady, rate: 0, concurrency: 50, requests: 1000, mix: {get: 100}}", 1000},
		{"open loop", "{name: p, kind: steady, rate: 5000, concurrency: 4, requests: 700, mix: {get: 100}}", 700},
		// Both bounds: the count comes first; the 1h duration would
		// time the test out if it did not end the phase.
		{"closed loop, count before duration", "{name: p, kind: steady, rate: 0, concurrency: 8, duration: 1h, requests: 333, mix: {set: 50, get: 50}}", 333},
		{"open loop, count before duration", "{name: p, kind: steady, rate: 5000, concurrency: 8, duration: 1h, requests: 250, mix: {get: 100}}", 250},
		// The duration comes first: 20 ops/s for 1s schedules 20 of the 1000.
		{"open loop, duration before count", "{name: p, kind: steady, rate: 20, concurrency: 2, duration: 1s, requests: 1000, mix: {get: 100}}", 20},
	} {
		t.Run(c.name, func(t *testing.T) {
			sum, sent := runCounting(t, "keyspace: {records: 100}\nphases:\n  - "+c.phase+"\n", rundir.Shard{})
			p := sum.Phases[0]
			if sent != c.want || p.Completed != c.want || p.Dropped != 0 {
				t.Errorf("target saw %d ops, summary completed %d dropped %d; want exactly %d", sent, p.Completed, p.Dropped, c.want)
			}
		})
	}
}

// TestRequestsSplitOverShards: requests is the total over all shards.
func TestRequestsSplitOverShards(t *testing.T) {
	src := "keyspace: {records: 100}\nphases:\n  - {name: p, kind: steady, concurrency: 4, requests: 1001, mix: {get: 100}}\n"
	var total int64
	for i := 0; i < 3; i++ {
		sum, sent := runCounting(t, src, rundir.Shard{Index: i, Count: 3})
		if sent != sum.Phases[0].Completed {
			t.Errorf("shard %d: target saw %d, summary %d", i, sent, sum.Phases[0].Completed)
		}
		total += sent
	}
	if total != 1001 {
		t.Errorf("3 shards ran %d requests together, want 1001", total)
	}
	sc := scenario(t, "keyspace: {records: 100}\nphases:\n  - {name: p, kind: steady, requests: 2, mix: {get: 100}}\n")
	if err := CheckShard(sc, rundir.Shard{Index: 0, Count: 3}); err == nil {
		t.Error("2 requests over 3 shards: want an error")
	}
}
