package engine

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/targets"
)

// TestResumeExportsLost: a resumed run's exporter counts the seam's
// lost ops in soakd_ops_lost_total, per op, as its summary does.
func TestResumeExportsLost(t *testing.T) {
	sc := scenario(t, `
keyspace: {records: 200}
phases:
  - {name: steady, kind: steady, rate: 200, duration: 3s, concurrency: 4, mix: {read: 50, update: 50}}
`)
	dir := killedRun(t, sc, &recordingTarget{service: 5 * time.Millisecond}, 1100*time.Millisecond)
	ck, err := rundir.ReadCheckpoint(dir)
	if err != nil {
		t.Fatal(err)
	}
	exp := metrics.NewExporter(sc.Name, "0", targets.Classes(), nil)
	var sum *rundir.Summary
	synctest.Test(t, func(t *testing.T) {
		time.Sleep(time.Until(ck.Written.Add(time.Second)))
		o := Options{Scenario: sc, Target: &recordingTarget{service: 5 * time.Millisecond}, TargetKind: "fake", OutDir: dir, Interval: 250 * time.Millisecond,
			time: bubbleTime{}, Checkpoint: &CheckpointConfig{}, Resume: ck, Exporter: exp}
		if sum, err = Run(context.Background(), o); err != nil {
			t.Fatal(err)
		}
	})
	p := sum.Phases[0]
	if p.Lost < 150 {
		t.Fatalf("lost %d, want the ~200 due in the 1 s down", p.Lost)
	}
	got := lostCounters(t, exp, "steady")
	for _, op := range []string{"read", "update"} {
		if want := p.Ops[op].Lost; got[op] != want || want == 0 {
			t.Errorf("soakd_ops_lost_total{op=%q} = %v, summary's lost %v", op, got[op], want)
		}
	}
}
