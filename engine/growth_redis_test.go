package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/soakd/soakd/report"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
	redistarget "github.com/soakd/soakd/targets/redis"
	"github.com/soakd/soakd/verdict"

	"github.com/soakd/soakd/internal/testutil"
)

func needRedis(t *testing.T) {
	t.Helper()
	testutil.NeedTool(t, "redis-server")
}

func runOpts(t *testing.T, sc *scenarios.Scenario, reopen bool) (*rundir.Summary, string) {
	t.Helper()
	// A bound for a hung run only: 30 s cut growth runs short (status
	// interrupted after 3 stages) under a load of 15-20.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	tg, err := targets.Open(ctx, sc.Target, targets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	dir := t.TempDir()
	o := Options{Scenario: sc, Target: tg, TargetKind: sc.Target.Kind, OutDir: dir, Interval: 250 * time.Millisecond}
	if reopen {
		o.Reopen = targets.Reopener(ctx, sc.Target, targets.Options{})
	}
	sum, err := runWritten(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Status != rundir.StatusCompleted {
		t.Fatalf("run %s: %s", sum.Status, sum.StatusReason)
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
    growth: {batch: 2000, measure_rate: 200, measure_for: 1s, after_cliff: 1, max_stages: 10}
`)
	// 200 ops/s (4 workers, 20 ms each per op before falling behind) over
	// a 1 s window: a CPU-starved host still holds the rate, so the first
	// cliff is the OOM errors this test is about, not a rate cliff from
	// the host (at 1000 ops/s over 400 ms a load-10 machine achieved 83%).
	sum, _ := runOpts(t, sc, false)
	t.Log(report.Text(sum))
	p := sum.Phases[0]
	c := p.Cliff
	if c == nil {
		t.Fatalf("no cliff; stages:\n%s", report.Text(sum))
	}
	if c.Reason != rundir.CliffOOM || c.Op != "set" || c.StageIndex < 1 || c.StageIndex > 5 {
		t.Fatalf("cliff %+v, want an oom cliff of set at stage 2..6 (8 MB holds ~6k 1 KB values)", c)
	}
	if len(c.Evidence) < 2 || c.Evidence[1].Reason != rundir.CliffErrors || c.Evidence[1].Value < 0.05 {
		t.Errorf("evidence %+v: want the error ratio's jump kept next to the oom", c.Evidence)
	}
	// The stage before the cliff wrote without OOM; the cliff stage did not.
	before, at := p.Stages[c.StageIndex-1], p.Stages[c.StageIndex]
	if verdict.OOMErrors(&before) != 0 || verdict.OOMErrors(&at) == 0 {
		t.Errorf("oom errors before %d at %d", verdict.OOMErrors(&before), verdict.OOMErrors(&at))
	}
	sig := strings.Join(c.Signals, "|")
	if !strings.Contains(sig, "oom_errors") || !strings.Contains(sig, "at_maxmemory") {
		t.Errorf("signals %q lack oom_errors / at_maxmemory", sig)
	}
	if c.UsedMemoryBytes < 0.9*8*1024*1024 || at.Server["maxmemory_bytes"] != 8*1024*1024 {
		t.Errorf("used_memory %.0f maxmemory %.0f", c.UsedMemoryBytes, at.Server["maxmemory_bytes"])
	}
	// Records are the inserts that succeeded: every one before the
	// cliff, and at it those the OOM let through (a refused SET is not
	// a record).
	if ok := at.Load.Completed - at.Load.Errors - at.Load.Misses; before.Records != int64(2000*c.StageIndex) ||
		c.Records != before.Records+ok || at.Records != c.Records {
		t.Errorf("cliff records %d at stage index %d (before %d, %d inserts ok at the cliff)", c.Records, c.StageIndex, before.Records, ok)
	}
	// after_cliff: 1 — exactly one stage past the cliff.
	if len(p.Stages) != c.StageIndex+2 {
		t.Errorf("%d stages with the cliff at index %d and after_cliff 1", len(p.Stages), c.StageIndex)
	}
	if !strings.Contains(report.Text(sum), "CLIFF at "+c.Stage) {
		t.Errorf("text lacks the cliff:\n%s", report.Text(sum))
	}
}

// TestGrowthPersistenceMatrix runs the growth phase once per variant,
// each on its own server with that persistence.
func TestGrowthPersistenceMatrix(t *testing.T) {
	t.Parallel()
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
	// The cumulative per-phase histograms (shard merge) cover growth phases too.
	hh, _ := os.ReadFile(filepath.Join(dir, rundir.HistogramsFile))
	if !strings.Contains(string(hh), "Tag=grow[none].get.latency,") || !strings.Contains(string(hh), "Tag=grow[aof:everysec].set.service,") {
		t.Errorf("%s lacks the growth phases:\n%.400s", rundir.HistogramsFile, hh)
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
		if g := p.Stages[0].Ops["get"]; p.Variant == "" || g.Misses != 0 || g.Count == 0 {
			t.Errorf("%s: variant %q, %d gets, %d misses", p.Name, p.Variant, g.Count, g.Misses)
		}
	}
}

// TestGrowthCliffRedisEvict grows 1 KB values past an 8 MB maxmemory with
// allkeys-lru: the server evicts, gets of loaded records start to miss,
// and the cliff must be found within one stage of the first stage where
// used_memory reached maxmemory (the bench goal, at a small scale).
func TestGrowthCliffRedisEvict(t *testing.T) {
	needRedis(t)
	sc := scenario(t, `
name: growth-evict
target: {kind: redis, managed: {persistence: none, maxmemory: 8mb, maxmemory_policy: allkeys-lru}}
keyspace: {records: 100000}
record: {fields: 1, field_bytes: 1000}
phases:
  - name: grow
    kind: growth
    concurrency: 4
    mix: {get: 80, set: 20}
    # 400 gets a stage make a noisy p99 under go test -race on 2 cores:
    # a high factor leaves the miss ratio to find the cap.
    # after_cliff -1: every stage runs, so a rate cliff that a busy host
    # causes (a stall at a short stage's end) cannot stop the growth
    # before maxmemory; the misses cliff is then judged on the stages.
    growth: {batch: 2000, measure_rate: 1000, measure_for: 400ms, after_cliff: -1, max_stages: 6, cliff_factor: 50}
`)
	sum, _ := runOpts(t, sc, false)
	t.Log(report.Text(sum))
	p := sum.Phases[0]
	full := -1
	for i, s := range p.Stages {
		if mx := s.Server["maxmemory_bytes"]; mx > 0 && s.Server["used_memory_bytes"] >= 0.95*mx {
			full = i
			break
		}
	}
	if full < 0 {
		t.Fatalf("used_memory never reached maxmemory:\n%s", report.Text(sum))
	}
	if p.Cliff == nil {
		t.Fatalf("no cliff; maxmemory reached at stage %d:\n%s", full+1, report.Text(sum))
	}
	// The store's own signal: with the rate (which a busy test host can
	// spoil) left out, the first cliff is the get miss ratio jumping.
	stages := append([]rundir.StageResult(nil), p.Stages...)
	for i := range stages {
		stages[i].TargetRate = 0
	}
	c := verdict.DetectCliff(stages, 50)
	if c == nil {
		t.Fatalf("no cliff without the rate; maxmemory reached at stage %d:\n%s", full+1, report.Text(sum))
	}
	if c.Reason != "misses" || c.Op != "get" {
		t.Errorf("cliff %+v, want a get misses cliff", c)
	}
	if d := c.StageIndex - full; d < -1 || d > 1 {
		t.Errorf("cliff at stage %d, maxmemory reached at stage %d: more than one stage apart", c.StageIndex+1, full+1)
	}
	if p.Stages[0].Misses != 0 || p.Stages[c.StageIndex].Ops["get"].Misses == 0 {
		t.Errorf("misses: first stage %d, cliff stage %d", p.Stages[0].Misses, p.Stages[c.StageIndex].Ops["get"].Misses)
	}
	if sig := strings.Join(c.Signals, "|"); !strings.Contains(sig, "evictions") {
		t.Errorf("signals %q lack evictions", sig)
	}
	if p.Errors != 0 {
		t.Errorf("%d errors: misses must not count as errors", p.Errors)
	}
	if !strings.Contains(report.Text(sum), "get miss ratio") {
		t.Errorf("text lacks the miss ratio:\n%s", report.Text(sum))
	}
}

// TestPersistenceMatrixSteady: a scenario without a growth phase runs all
// its phases once per persistence variant (the redis-benchmark-aof
// scenario's promise), each variant on a fresh server it loads itself.
func TestPersistenceMatrixSteady(t *testing.T) {
	needRedis(t)
	sc := scenario(t, `
name: steady-matrix
target: {kind: redis, managed: {persistences: [none, "aof:everysec"]}}
keyspace: {records: 1500}
record: {fields: 1, field_bytes: 100}
phases:
  - {name: load, kind: load, concurrency: 4}
  - {name: steady, kind: steady, rate: 500, duration: 400ms, concurrency: 4, mix: {read: 80, update: 20}}
`)
	sum, _ := runOpts(t, sc, true)
	var names []string
	for _, p := range sum.Phases {
		names = append(names, p.Name)
	}
	if got := strings.Join(names, ","); got != "load[none],steady[none],load[aof:everysec],steady[aof:everysec]" {
		t.Fatalf("phases %s", got)
	}
	for i, p := range sum.Phases {
		want := map[bool]string{true: "none", false: "aof:everysec"}[i < 2]
		if p.Variant != want {
			t.Errorf("%s: variant %q, want %q", p.Name, p.Variant, want)
		}
		if p.Kind == scenarios.PhaseLoad {
			if p.Completed != 1500 {
				t.Errorf("%s: loaded %d records, want 1500 on each fresh server", p.Name, p.Completed)
			}
			continue
		}
		if p.Errors != 0 || p.Completed < 150 {
			t.Errorf("%s: %d ops, %d errors (reads of loaded records must not miss)", p.Name, p.Completed, p.Errors)
		}
		// 1500 records plus the adapter's soakd:index (redis.IndexKey).
		if p.Server["keys"] != 1501 || p.Server["aof_enabled"] != float64(i/2) {
			t.Errorf("%s: keys %v aof_enabled %v", p.Name, p.Server["keys"], p.Server["aof_enabled"])
		}
	}
}

// TestPersistenceMatrixVariantFailsToStart: when a later variant's
// server cannot start, the run keeps the earlier variant's results,
// ends interrupted and says why.
func TestPersistenceMatrixVariantFailsToStart(t *testing.T) {
	needRedis(t)
	sc := scenario(t, `
name: matrix-fail
target: {kind: redis, managed: {persistences: [none, "aof:everysec"]}}
keyspace: {records: 500}
record: {fields: 1, field_bytes: 10}
phases:
  - {name: load, kind: load, concurrency: 2}
`)
	ctx := context.Background()
	tg, err := targets.Open(ctx, sc.Target, targets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	dir := t.TempDir()
	sum, err := runWritten(ctx, Options{Scenario: sc, Target: tg, TargetKind: "redis", OutDir: dir,
		Reopen: func(p string) (targets.Target, error) { return nil, errors.New("no server for " + p) }})
	if err == nil || !strings.Contains(err.Error(), "persistence aof:everysec: no server for aof:everysec") {
		t.Fatalf("err %v", err)
	}
	if sum == nil || sum.Status != rundir.StatusInterrupted || len(sum.Phases) != 1 || sum.Phases[0].Name != "load[none]" || sum.Phases[0].Completed != 500 {
		t.Fatalf("summary %+v", sum)
	}
	if _, err := rundir.ReadSummary(dir); err != nil {
		t.Errorf("run directory: %v", err)
	}
}

// TestManagedServerDeathInterruptsRun: when the redis-server soakd
// started dies mid-run, the run stops there, is marked interrupted with
// the reason, and its files are complete.
func TestManagedServerDeathInterruptsRun(t *testing.T) {
	needRedis(t)
	sc := scenario(t, `
name: managed-dies
target: {kind: redis, managed: {persistence: none}}
keyspace: {records: 200}
record: {fields: 1, field_bytes: 10}
phases:
  - {name: load, kind: load, concurrency: 2}
  - {name: steady, kind: steady, rate: 500, duration: 20s, concurrency: 4, mix: {read: 100}}
`)
	ctx := context.Background()
	tg, err := targets.Open(ctx, sc.Target, targets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	srv := tg.(interface{ Managed() *redistarget.Server }).Managed()
	time.AfterFunc(1500*time.Millisecond, srv.Kill)
	dir := t.TempDir()
	t0 := time.Now()
	sum, err := runWritten(ctx, Options{Scenario: sc, Target: tg, TargetKind: "redis", OutDir: dir})
	if el := time.Since(t0); el > 8*time.Second {
		t.Errorf("run went on for %s after its server died", el)
	}
	if err == nil || !strings.Contains(err.Error(), "target down mid-run: managed redis-server (pid") || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("err %v", err)
	}
	if sum == nil || sum.Status != rundir.StatusInterrupted || !strings.Contains(sum.StatusReason, "managed redis-server") {
		t.Fatalf("summary %+v", sum)
	}
	got, err := rundir.ReadSummary(dir)
	if err != nil || got.Status != rundir.StatusInterrupted || len(got.Phases) != 2 || got.Phases[1].Completed == 0 {
		t.Fatalf("run directory: %v %+v", err, got)
	}
	if txt := report.Text(got); !strings.Contains(txt, "interrupted: target down mid-run") {
		t.Errorf("summary.txt lacks the reason:\n%s", txt)
	}
}

// TestGrowthPerOpRedisOOM grows 1 KB values past an 8 MB maxmemory
// (noeviction) on a managed redis-server, measuring get and set each
// alone, closed loop (measure: per_op, as the growth study does). It
// asserts what the server says, not how fast it was (closed-loop ops/s
// on a shared host are the host's as much as the server's; the
// throughput rule is tested against a store with fixed service times,
// TestGrowthCliffThroughputStep and TestGrowthCliffThroughputRefused):
// the server refuses writes for memory from one stage on, 4 or later (8
// MB holds ~6k 1 KB values, batches of 1500), none before; from the
// next stage it refuses nearly every new record, every refusal is
// classified oom, and on the stages' oom and server figures alone the
// cliff is that stage.
func TestGrowthPerOpRedisOOM(t *testing.T) {
	t.Parallel()
	needRedis(t)
	sc := scenario(t, `
name: growth-per-op-oom
target: {kind: redis, managed: {persistence: none, maxmemory: 8mb, maxmemory_policy: noeviction}}
keyspace: {records: 100000}
record: {fields: 1, field_bytes: 1000}
phases:
  - name: grow
    kind: growth
    concurrency: 4
    mix: {get: 80, set: 20}
    # after_cliff -1: every stage runs, so a throughput cliff a stalled
    # host makes before the cap cannot end the growth before it.
    growth: {batch: 1500, measure: per_op, measure_for: 200ms, after_cliff: -1, max_stages: 6}
`)
	sum, _ := runOpts(t, sc, false)
	txt := report.Text(sum)
	p := sum.Phases[0]
	full := -1 // the first stage with writes refused for memory
	for i := range p.Stages {
		if verdict.OOMErrors(&p.Stages[i]) > 0 {
			full = i
			break
		}
	}
	if full < 3 || full == len(p.Stages)-1 {
		t.Fatalf("first refused write at stage %d of %d, want stage 4 or 5:\n%s", full+1, len(p.Stages), txt)
	}
	// From the cap on, the server refuses the batches' new records for
	// memory (each one let through takes more). Overwrites of existing
	// records (the set slices) may still pass when used_memory dips under
	// maxmemory (all 40 of one slice did), so of them only the class of a
	// refusal is asserted.
	for i := full; i < len(p.Stages); i++ {
		st := p.Stages[i]
		if ld := st.Load; ld == nil || ld.Errors == 0 || ld.Ops["set"].Errors[targets.ClassOOM] != ld.Errors {
			t.Errorf("stage %d, at or past the cap: batch insert %+v, want writes refused for memory only", i+1, ld)
		} else if i > full && (ld.Errors < 1350 || st.Records-p.Stages[i-1].Records > 150) {
			t.Errorf("stage %d, past the cap: %d of 1500 new records refused, records %d -> %d", i+1, ld.Errors, p.Stages[i-1].Records, st.Records)
		}
		if set := st.PerOp["set"]; set == nil || set.Completed == 0 || set.Ops["set"].Errors[targets.ClassOOM] != set.Errors {
			t.Errorf("stage %d, at or past the cap: set alone %+v, want any refusal for memory", i+1, set)
		}
	}
	for i := 0; i < full; i++ {
		if set := p.Stages[i].PerOp["set"]; set == nil || set.Completed == 0 || set.Errors != 0 || p.Stages[i].Load.Errors != 0 || p.Stages[i].Records != 1500*int64(i+1) {
			t.Errorf("stage %d, before the cap: set alone %+v, load %+v, %d records", i+1, set, p.Stages[i].Load, p.Stages[i].Records)
		}
	}
	if at := p.Stages[full]; at.Server["maxmemory_bytes"] != 8*1024*1024 || at.Server["used_memory_bytes"] < 0.9*8*1024*1024 {
		t.Errorf("at the cap: used_memory %.0f maxmemory %.0f", at.Server["used_memory_bytes"], at.Server["maxmemory_bytes"])
	}
	// On what the server said alone (its figures, the ops' counts,
	// errors and misses; no latency or closed-loop throughput, which the
	// host can spoil), the cliff is the oom at the first refused write.
	stages := make([]rundir.StageResult, len(p.Stages))
	for i, st := range p.Stages {
		ops := map[string]rundir.OpResult{}
		for op, o := range st.Ops {
			ops[op] = rundir.OpResult{Count: o.Count, Errors: o.Errors, Misses: o.Misses}
		}
		stages[i] = rundir.StageResult{Name: st.Name, Records: st.Records, Server: st.Server, Load: st.Load}
		stages[i].Ops, stages[i].Completed, stages[i].Errors, stages[i].Misses = ops, st.Completed, st.Errors, st.Misses
	}
	c := verdict.DetectCliff(stages, 0)
	if c == nil || c.StageIndex != full || c.Reason != rundir.CliffOOM || c.Op != "set" {
		t.Fatalf("cliff %+v, want set's oom at stage %d:\n%s", c, full+1, txt)
	}
	if sig := strings.Join(c.Signals, "|"); !strings.Contains(sig, "oom_errors") || !strings.Contains(sig, "at_maxmemory") {
		t.Errorf("signals %q lack oom_errors / at_maxmemory", sig)
	}
}
