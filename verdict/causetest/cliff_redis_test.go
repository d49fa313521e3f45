package causetest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/soakd/soakd/engine"
	"github.com/soakd/soakd/internal/testutil"
	"github.com/soakd/soakd/report"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
	"github.com/soakd/soakd/verdict"
)

// TestGrowthCliffExplainedMemory: a growth run against a real managed
// redis-server capped at 8 MB (allkeys-lru) grows 1 KB values past the
// cap; the server evicts, gets of loaded records miss, and the cliff
// found on the stages names memory as its cause, with the evictions as
// the evidence. The rate is left out of the cliff (the stages' target
// rates zeroed, as the engine's eviction test does): a busy host's
// stall can make a rate cliff, and no figure of this host's clock is
// asserted. The self record is idle (procRoot), so the label comes from
// the server's figures.
func TestGrowthCliffExplainedMemory(t *testing.T) {
	testutil.NeedTool(t, "redis-server")
	sc, err := scenarios.Parse("growth.yaml", []byte(`
name: growth-evict
target: {kind: redis, managed: {persistence: none, maxmemory: 8mb, maxmemory_policy: allkeys-lru}}
keyspace: {records: 100000}
record: {fields: 1, field_bytes: 1000}
phases:
  - name: grow
    kind: growth
    concurrency: 4
    mix: {get: 80, set: 20}
    growth: {batch: 2000, measure_rate: 1000, measure_for: 400ms, after_cliff: -1, max_stages: 5, cliff_factor: 50}
`))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tg, err := targets.Open(ctx, sc.Target, targets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	sum, err := engine.Run(ctx, engine.Options{Scenario: sc, Target: tg, TargetKind: "redis", OutDir: t.TempDir(),
		Interval: 250 * time.Millisecond, SelfHealthRoot: procRoot(t, false)})
	if err != nil {
		t.Fatal(err)
	}
	p := sum.Phases[0]
	stages := append([]rundir.StageResult(nil), p.Stages...)
	for i := range stages {
		stages[i].TargetRate = 0
	}
	c := verdict.DetectCliff(stages, 50)
	if c == nil || c.Explain == nil {
		t.Fatalf("no explained cliff without the rate:\n%s", report.Text(sum))
	}
	t.Logf("cliff at stage %d (%s %s): %s", c.StageIndex+1, c.Op, c.Reason, strings.TrimSpace(verdict.ExplainLine("the cliff", *c.Explain)))
	if c.Explain.Cause != rundir.CauseMemory || !strings.Contains(c.Explain.Why, "evicted") {
		t.Errorf("cliff %s %s at stage %d: cause %q (%s), want memory/swap from the evictions\n%s", c.Op, c.Reason, c.StageIndex+1, c.Explain.Cause, c.Explain.Why, report.Text(sum))
	}
	if ev := c.Explain.Events; ev == nil || !strings.Contains(strings.Join(ev, " "), "evicted") {
		t.Errorf("the cliff's overlapping events %v lack the evictions", ev)
	}
}
