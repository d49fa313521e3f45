package engine

import (
	"testing"
	"time"

	"github.com/soakd/soakd/rundir"
)

// TestResumeSweep: a sweep killed in a point goes on in that point (a
// capacity point: in its search, as TestResumeCapacity), keeps the
// points finished before with their results, and lists the points and
// stages an unbroken sweep lists, each point with the unbroken one's
// rate held; killed between two points it starts the next afresh.
func TestResumeSweep(t *testing.T) {
	capacity := scenario(t, `
keyspace: {records: 1000}
phases:
  - name: sw
    kind: sweep
    concurrency: 2
    mix: {read: 100}
    capacity: {start: 50, factor: 2, max: 800, step_duration: 1s, precision: 0.3}
    sweep: {over: mix, measure: capacity, points: [{update: 0}, {update: 50}]}
`)
	rate := scenario(t, `
keyspace: {records: 1000}
phases:
  - name: sw
    kind: sweep
    concurrency: 2
    duration: 1s
    mix: {read: 100}
    sweep: {over: rate, points: [{rate: 100}, {rate: 200}, {rate: 150}]}
`)
	unbroken := map[string]*rundir.PhaseResult{}
	for _, c := range []struct {
		name      string
		sc        string
		at, down  time.Duration
		stage     string // the checkpoint's running stage ("": between two)
		seamStage string
	}{
		// Each capacity point searches for ~12.24 s (8 probes); the
		// second point's probe-3 runs 14.24-15.24 s, its checkpoint at
		// ~14.74 s.
		{"capacity-point-probe", "capacity", 14800 * time.Millisecond, 300 * time.Millisecond, "update-50-probe-3", "update-50-probe-3"},
		// The first point's end is checkpointed at ~12.24 s, the
		// second's first probe's first interval at ~12.49 s.
		{"between-capacity-points", "capacity", 12400 * time.Millisecond, time.Second, "", "update-50-probe-1"},
		// The rate points are 1 s each: the second's checkpoint at 1.5 s.
		{"rate-point", "rate", 1600 * time.Millisecond, 500 * time.Millisecond, "rate-200", "rate-200"},
	} {
		t.Run(c.name, func(t *testing.T) {
			sc := capacity
			if c.sc == "rate" {
				sc = rate
			}
			if unbroken[c.sc] == nil {
				unbroken[c.sc] = &unbrokenRun(t, sc, &recordingTarget{service: capacityService}).Phases[0]
			}
			u := *unbroken[c.sc]
			dir := killedRun(t, sc, &recordingTarget{service: capacityService}, c.at)
			sum, ck := resumed(t, sc, &recordingTarget{service: capacityService}, dir, c.down)
			if ck.Current == nil || ck.Current.Unsupported != "" || ck.Current.Stage != c.stage {
				t.Fatalf("checkpoint in %s, want a resumable one in stage %q", describeCurrent(ck.Current), c.stage)
			}
			p := sum.Phases[0]
			checkIdentity(t, "sw", &p.Result)
			checkStagesAsUnbroken(t, &p, &u)
			if len(p.Sweep.Points) != len(u.Sweep.Points) {
				t.Fatalf("%d points, unbroken %d", len(p.Sweep.Points), len(u.Sweep.Points))
			}
			for i, pt := range p.Sweep.Points {
				w := u.Sweep.Points[i]
				if pt.Label != w.Label || (w.HighestRateHeld != nil) != (pt.HighestRateHeld != nil) ||
					(w.HighestRateHeld != nil && *pt.HighestRateHeld != *w.HighestRateHeld) {
					t.Errorf("point %d: %s held %v, unbroken %s held %v", i+1, pt.Label, pt.HighestRateHeld, w.Label, w.HighestRateHeld)
				}
			}
			s := checkSeam(t, sum, ck, "sw", c.down, p.Lost)
			if s.Stage != c.seamStage {
				t.Errorf("seam in %q, want %q", s.Stage, c.seamStage)
			}
			if c.stage == "" && p.Lost != 0 {
				t.Errorf("lost %d, want none: a kill between points loses nothing", p.Lost)
			}
			if c.stage != "" && (p.Lost <= 0 || stageNamed(&p, c.stage).Lost != p.Lost) {
				t.Errorf("lost %d, want some, all in %s", p.Lost, c.stage)
			}
			if n := loggedOps(t, dir, "sw"); n != p.Completed {
				t.Errorf("latency.hlog holds %d sweep ops, completed %d", n, p.Completed)
			}
			if c.sc == "rate" {
				var done rundir.SweepPoint
				for _, pt := range p.Sweep.Points {
					if pt.Label == "rate-100" {
						done = pt
					}
				}
				if done.Completed != 100 {
					t.Errorf("point rate-100 completed %d, want its 100 kept as they were", done.Completed)
				}
			}
		})
	}
}
