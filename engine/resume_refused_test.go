package engine

import (
	"strings"
	"testing"
	"time"

	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/targets"
)

// TestResumePerOpGrowthRefused: a growth stage measured per op cannot
// be resumed while it measures yet: a run killed there is refused by
// name (the CLI exits 2 on it).
func TestResumePerOpGrowthRefused(t *testing.T) {
	sc := scenario(t, `
keyspace: {records: 100000}
phases:
  - name: grow
    kind: growth
    concurrency: 2
    mix: {read: 50, update: 50}
    growth: {batch: 200, load_rate: 1000, measure: per_op, measure_for: 2s, max_stages: 2, after_cliff: -1}
`)
	// Stage 1: 0.2 s insert, then 2 s measuring, an op at a time.
	dir := killedRun(t, sc, &recordingTarget{service: 2 * time.Millisecond}, 1200*time.Millisecond)
	ck, err := rundir.ReadCheckpoint(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckResume(sc, ck); err == nil || !strings.Contains(err.Error(), "phase grow: growth stages measured per op cannot be resumed while measuring yet") {
		t.Errorf("checkpoint in %s: %v, want refused by name", describeCurrent(ck.Current), err)
	}
}

// TestResumeVariantsRefused: a run of several variants keeps being
// refused by name, between its phases too (its servers would start
// again empty).
func TestResumeVariantsRefused(t *testing.T) {
	sc := scenario(t, `
keyspace: {records: 1000}
phases:
  - {name: steady, kind: steady, rate: 100, duration: 2s, concurrency: 2, mix: {read: 100}}
`)
	for _, cur := range []*rundir.CheckpointCurrent{
		{Index: -1, Name: "steady[target-1]", Unsupported: "a run of several variants (targets or persistences) cannot be resumed yet"},
		{Index: 0, Name: "steady[target-2]", Unsupported: "a run of several variants (targets or persistences) cannot be resumed yet"},
	} {
		err := CheckResume(sc, &rundir.Checkpoint{Current: cur})
		if err == nil || !strings.Contains(err.Error(), "several variants") {
			t.Errorf("checkpoint in %s: %v, want refused by name", cur.Name, err)
		}
	}
	// What a run of two targets writes: refused in a phase and between
	// its phases (its last checkpoint is after its last phase).
	dir := t.TempDir()
	open := func() (targets.Target, error) { return &recordingTarget{}, nil }
	runInBubble(t, sc, &recordingTarget{}, Options{OutDir: dir, Interval: 250 * time.Millisecond, Checkpoint: &CheckpointConfig{},
		Targets: []TargetVariant{{Name: "target-1", Open: open}, {Name: "target-2", Open: open}}})
	ck, err := rundir.ReadCheckpoint(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckResume(sc, ck); err == nil || !strings.Contains(err.Error(), "phase steady[target-2]: a run of several variants") {
		t.Errorf("after its last phase: %v, want refused by name", err)
	}
}
