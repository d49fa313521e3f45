package engine

import (
	"strings"
	"testing"
	"time"

	"github.com/soakd/soakd/rundir"
)

// capacityScenario is a search against a store that holds ~230 ops/s
// (two workers, 8.7 ms an op): 50, 100, 200 pass; 400, 300, 250 fail;
// 200 and 250 again to confirm; held 200. Each probe is 1 s, each
// settling after a failed one 1 s.
const capacityScenario = `
keyspace: {records: 1000}
phases:
  - {name: cap, kind: capacity, concurrency: 2, mix: {read: 100}, capacity: {start: 50, factor: 2, max: 800, step_duration: 1s, precision: 0.3}}
`

const capacityService = 8700 * time.Microsecond

// TestResumeCapacity: a capacity search killed in a probe, in the
// settling after a failed one, or so early in a probe that the resume
// leaves too few of its ops to call it, goes on: the probes finished
// before are kept with their verdicts (the search replays them), the
// probe it was killed in goes on on its absolute schedule and is judged
// on the ops it ran, its lost ops reported (never latency); a kill in a
// settling starts it again; a probe with too little evidence is not
// called but named, and its rate probed again. The verdict is the
// unbroken search's, from the same probes.
func TestResumeCapacity(t *testing.T) {
	sc := scenario(t, capacityScenario)
	u := unbrokenRun(t, sc, &recordingTarget{service: capacityService}).Phases[0]
	if u.Capacity == nil || u.Capacity.HighestRateHeld != 200 || len(u.Stages) != 8 {
		t.Fatalf("unbroken search: %+v, %d probes; want 200 held in 8 probes", u.Capacity, len(u.Stages))
	}
	for _, c := range []struct {
		name      string
		at, down  time.Duration
		stage     string // the checkpoint's running probe ("": between two)
		seamStage string
		uncalled  bool
	}{
		// probe-3 (200/s, passes) runs 2-3 s: checkpoint at 2.5 s,
		// 60 of its 200 ops due in the 0.3 s down.
		{"passing-probe", 2600 * time.Millisecond, 300 * time.Millisecond, "probe-3", "probe-3", false},
		// probe-5 (300/s, fails) runs 5.75-7.05 s.
		{"failing-probe", 6300 * time.Millisecond, 200 * time.Millisecond, "probe-5", "probe-5", false},
		// The settling after probe-5 runs 7.05-8.05 s: the checkpoint
		// is probe-5's end.
		{"settling", 7500 * time.Millisecond, 500 * time.Millisecond, "", "probe-6", false},
		// probe-3 at 2.3 s (checkpoint 2.25 s), 0.6 s down: 120+ of its
		// 200 ops lost, fewer than half ran.
		{"too-little-evidence", 2300 * time.Millisecond, 600 * time.Millisecond, "probe-3", "probe-3", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := killedRun(t, sc, &recordingTarget{service: capacityService}, c.at)
			sum, ck := resumed(t, sc, &recordingTarget{service: capacityService}, dir, c.down)
			if ck.Current == nil || ck.Current.Unsupported != "" || ck.Current.Stage != c.stage {
				t.Fatalf("checkpoint in %s, want a resumable one in stage %q", describeCurrent(ck.Current), c.stage)
			}
			p := sum.Phases[0]
			checkIdentity(t, "cap", &p.Result)
			if p.Capacity == nil || p.Capacity.HighestRateHeld != u.Capacity.HighestRateHeld {
				t.Fatalf("capacity %+v, want the unbroken search's %v held", p.Capacity, u.Capacity.HighestRateHeld)
			}
			if p.SLO == nil || !p.SLO.Passed {
				t.Errorf("verdict %+v, want the unbroken run's pass", p.SLO)
			}
			curve := p.Capacity.Curve
			if len(curve) != len(p.Stages) {
				t.Fatalf("%d probes in the curve, %d stages", len(curve), len(p.Stages))
			}
			for i, st := range p.Stages {
				checkIdentity(t, st.Name, &st.Result)
				if curve[i].Lost != st.Lost {
					t.Errorf("%s: the curve says %d lost, the stage %d", st.Name, curve[i].Lost, st.Lost)
				}
			}
			s := checkSeam(t, sum, ck, "cap", c.down, p.Lost)
			if s.Stage != c.seamStage {
				t.Errorf("seam in %q, want %q", s.Stage, c.seamStage)
			}
			if n := loggedOps(t, dir, "cap"); n != p.Completed {
				t.Errorf("latency.hlog holds %d probe ops, completed %d", n, p.Completed)
			}
			called := calledProbes(curve)
			if len(called) != len(u.Capacity.Curve) {
				t.Fatalf("%d probes called, unbroken %d", len(called), len(u.Capacity.Curve))
			}
			for i, pt := range called {
				if w := u.Capacity.Curve[i]; pt.Rate != w.Rate || pt.Passed != w.Passed || pt.Recheck != w.Recheck {
					t.Errorf("probe %d: %g passed %v recheck %v, unbroken %g passed %v recheck %v", i+1, pt.Rate, pt.Passed, pt.Recheck, w.Rate, w.Passed, w.Recheck)
				}
			}
			if !c.uncalled {
				checkStagesAsUnbroken(t, &p, &u)
				if c.stage == "" && p.Lost != 0 {
					t.Errorf("lost %d, want none: a kill between probes loses nothing", p.Lost)
				}
				if c.stage != "" && (p.Lost <= 0 || stageNamed(&p, c.stage).Lost != p.Lost) {
					t.Errorf("lost %d, want some, all in %s", p.Lost, c.stage)
				}
				return
			}
			// The probe the seam cut is listed, not called, its rate
			// probed again at once.
			if len(curve) != len(u.Capacity.Curve)+1 {
				t.Fatalf("%d probes, want the unbroken %d and the one not called", len(curve), len(u.Capacity.Curve))
			}
			pt := curve[2]
			if !pt.Uncalled || pt.Passed || pt.Lost < 100 || len(pt.Failed) != 1 || !strings.Contains(pt.Failed[0], "too few ran to call it") {
				t.Errorf("probe-3 %+v, want it not called, with its lost ops and why", pt)
			}
			if curve[3].Rate != pt.Rate || curve[3].Uncalled || !curve[3].Passed {
				t.Errorf("probe-4 %+v, want %g probed again and called", curve[3], pt.Rate)
			}
		})
	}
}

func stageNamed(p *rundir.PhaseResult, name string) *rundir.StageResult {
	for i := range p.Stages {
		if p.Stages[i].Name == name {
			return &p.Stages[i]
		}
	}
	return &rundir.StageResult{}
}
