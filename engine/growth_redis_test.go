package engine

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
	_ "github.com/soakd/soakd/targets/redis"
)

func needRedis(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server not on PATH")
	}
}

func runOpts(t *testing.T, sc *scenarios.Scenario, reopen bool) (*Summary, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tg, err := targets.Open(ctx, sc.Target, targets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	dir := t.TempDir()
	o := Options{Scenario: sc, Target: tg, TargetKind: sc.Target.Kind, OutDir: dir, Interval: 250 * time.Millisecond}
	if reopen {
		o.Reopen = func(p string) (targets.Target, error) {
			tt := sc.Target
			m := *tt.Managed
			m.Persistence = p
			tt.Managed = &m
			return targets.Open(ctx, tt, targets.Options{})
		}
	}
	sum, err := Run(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	return sum, dir
}

// TestGrowthCliffRedisOOM grows 1 KB values past an 8 MB maxmemory with
// noeviction: writes start failing with OOM and the cliff must be found
// at that stage, with the server signals that explain it.
func TestGrowthCliffRedisOOM(t *testing.T) {
	needRedis(t)
	sc := scenario(t, `
name: growth-oom
target: {kind: redis, managed: {persistence: none, maxmemory: 8mb, maxmemory_policy: noeviction}}
keyspace: {records: 100000}
record: {fields: 1, field_bytes: 1000}
phases:
  - name: grow
    kind: growth
    concurrency: 4
    mix: {get: 80, set: 20}
    growth: {batch: 2000, measure_rate: 1000, measure_for: 400ms, after_cliff: 1, max_stages: 10}
`)
	sum, _ := runOpts(t, sc, false)
	t.Log(sum.Text())
	p := sum.Phases[0]
	c := p.Cliff
	if c == nil {
		t.Fatalf("no cliff; stages:\n%s", sum.Text())
	}
	if c.Reason != "errors" || c.StageIndex < 1 || c.StageIndex > 5 {
		t.Errorf("cliff %+v, want an errors cliff at stage 2..6 (8 MB holds ~6k 1 KB values)", c)
	}
	// The stage before the cliff wrote without OOM; the cliff stage did not.
	before, at := p.Stages[c.StageIndex-1], p.Stages[c.StageIndex]
	if oomErrors(&before) != 0 || oomErrors(&at) == 0 {
		t.Errorf("oom errors before %d at %d", oomErrors(&before), oomErrors(&at))
	}
	sig := strings.Join(c.Signals, "|")
	if !strings.Contains(sig, "oom_errors") || !strings.Contains(sig, "at_maxmemory") {
		t.Errorf("signals %q lack oom_errors / at_maxmemory", sig)
	}
	if c.UsedMemoryBytes < 0.9*8*1024*1024 || at.Server["maxmemory_bytes"] != 8*1024*1024 {
		t.Errorf("used_memory %.0f maxmemory %.0f", c.UsedMemoryBytes, at.Server["maxmemory_bytes"])
	}
	if c.Records != int64(2000*(c.StageIndex+1)) {
		t.Errorf("cliff records %d at stage index %d", c.Records, c.StageIndex)
	}
	// after_cliff: 1 — exactly one stage past the cliff.
	if len(p.Stages) != c.StageIndex+2 {
		t.Errorf("%d stages with the cliff at index %d and after_cliff 1", len(p.Stages), c.StageIndex)
	}
	if !strings.Contains(sum.Text(), "CLIFF at "+c.Stage) {
		t.Errorf("text lacks the cliff:\n%s", sum.Text())
	}
}

// TestGrowthPersistenceMatrix runs the growth phase once per variant,
// each on its own server with that persistence.
func TestGrowthPersistenceMatrix(t *testing.T) {
	needRedis(t)
	sc := scenario(t, `
name: growth-matrix
target: {kind: redis, managed: {persistences: [none, "aof:everysec"]}}
keyspace: {records: 100000}
record: {fields: 1, field_bytes: 100}
phases:
  - name: grow
    kind: growth
    concurrency: 2
    mix: {get: 90, set: 10}
    growth: {batch: 1000, measure_rate: 500, measure_for: 300ms, stop_records: 2000}
`)
	sum, dir := runOpts(t, sc, true)
	hl, _ := os.ReadFile(filepath.Join(dir, "latency.hlog"))
	if !strings.Contains(string(hl), "Tag=grow[aof:everysec].get.latency,") || !strings.Contains(string(hl), "Tag=grow[none].set.service,") {
		t.Errorf("hlog lacks per-variant tags:\n%.400s", hl)
	}
	if len(sum.Phases) != 2 || sum.Phases[0].Name != "grow[none]" || sum.Phases[1].Name != "grow[aof:everysec]" {
		t.Fatalf("phases %+v", sum.Phases)
	}
	for i, p := range sum.Phases {
		if len(p.Stages) != 2 || p.Stages[1].Records != 2000 {
			t.Fatalf("%s: %d stages", p.Name, len(p.Stages))
		}
		last := p.Stages[1].Server
		if last["keys"] != 2000 {
			t.Errorf("%s: server holds %v keys, want 2000 (each variant starts empty)", p.Name, last["keys"])
		}
		if want := float64(i); last["aof_enabled"] != want {
			t.Errorf("%s: aof_enabled %v, want %v", p.Name, last["aof_enabled"], want)
		}
		if p.Variant == "" || p.Stages[0].Ops["get"].Errors["not_found"] != 0 {
			t.Errorf("%s: variant %q, misses %d", p.Name, p.Variant, p.Stages[0].Ops["get"].Errors["not_found"])
		}
	}
}
