package engine

import (
	"fmt"
	"testing"
	"time"

	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// unbrokenRun runs sc to its end in a bubble with the same options as
// killedRun, for the shape a resumed run must have.
func unbrokenRun(t *testing.T, sc *scenarios.Scenario, tg targets.Target) *rundir.Summary {
	t.Helper()
	return runInBubble(t, sc, tg, Options{Interval: 250 * time.Millisecond, Checkpoint: &CheckpointConfig{}})
}

// checkStagesAsUnbroken checks that phase p of a resumed run lists the
// stages the unbroken run's phase u lists, each scheduling what it did
// (the schedule is absolute), and each stage's identity.
func checkStagesAsUnbroken(t *testing.T, p, u *rundir.PhaseResult) {
	t.Helper()
	if len(p.Stages) != len(u.Stages) {
		t.Fatalf("resumed run: %d stages, unbroken: %d", len(p.Stages), len(u.Stages))
	}
	for i, st := range p.Stages {
		if st.Name != u.Stages[i].Name || st.Scheduled != u.Stages[i].Scheduled || st.TargetRate != u.Stages[i].TargetRate {
			t.Errorf("stage %d: %s scheduled %d at %g, unbroken %s scheduled %d at %g", i+1, st.Name, st.Scheduled, st.TargetRate,
				u.Stages[i].Name, u.Stages[i].Scheduled, u.Stages[i].TargetRate)
		}
		checkIdentity(t, st.Name, &st.Result)
	}
	if p.Scheduled != u.Scheduled {
		t.Errorf("phase scheduled %d, unbroken %d", p.Scheduled, u.Scheduled)
	}
}

// TestResumeRampMidStep: a ramp killed in its second step goes on in
// that step on its absolute schedule (the ops due while down are lost,
// in that step only), keeps the step before as it was and runs the
// third: the same steps, scheduling the same ops, as an unbroken run.
// Killed between two steps (the first step's end is checkpointed at
// once), it starts the next step afresh and loses nothing.
func TestResumeRampMidStep(t *testing.T) {
	sc := scenario(t, `
keyspace: {records: 1000}
phases:
  - name: ramp
    kind: ramp
    concurrency: 4
    mix: {read: 50, update: 50}
    steps: [{rate: 200, duration: 1s}, {rate: 400, duration: 1s}, {rate: 300, duration: 1s}]
`)
	svc := 5 * time.Millisecond
	u := unbrokenRun(t, sc, &recordingTarget{service: svc}).Phases[0]
	for _, c := range []struct {
		name    string
		at      time.Duration
		mid     bool
		minLost int64
		maxLost int64
	}{
		// Step 2 runs from ~1.01 s; its checkpoint at ~1.51 s.
		{"mid-step", 1600 * time.Millisecond, true, 200, 204},
		// Step 1's end is checkpointed at ~1.01 s, step 2's first
		// interval at ~1.26 s.
		{"between-steps", 1100 * time.Millisecond, false, 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := killedRun(t, sc, &recordingTarget{service: svc}, c.at)
			sum, ck := resumed(t, sc, &recordingTarget{service: svc}, dir, 500*time.Millisecond)
			if ck.Current == nil || ck.Current.Name != "ramp" || ck.Current.Unsupported != "" {
				t.Fatalf("checkpoint in %s, want a resumable one in the ramp", describeCurrent(ck.Current))
			}
			if c.mid != (ck.Current.Stage == "step-2") || c.mid == (len(ck.Current.Segment) == 0) {
				t.Fatalf("checkpoint in stage %q (segment %d bytes), want mid-step %v", ck.Current.Stage, len(ck.Current.Segment), c.mid)
			}
			p := sum.Phases[0]
			checkIdentity(t, "ramp", &p.Result)
			checkStagesAsUnbroken(t, &p, &u)
			if p.Lost < c.minLost || p.Lost > c.maxLost || p.Stages[1].Lost != p.Lost {
				t.Errorf("lost %d (step-2: %d), want %d-%d, all in step-2", p.Lost, p.Stages[1].Lost, c.minLost, c.maxLost)
			}
			if st := p.Stages[0]; st.Lost != 0 || st.Completed != 200 {
				t.Errorf("step-1 completed %d lost %d: want it kept as it was (200, 0)", st.Completed, st.Lost)
			}
			s := checkSeam(t, sum, ck, "ramp", 500*time.Millisecond, p.Lost)
			if s.Stage != "step-2" {
				t.Errorf("seam in stage %q, want step-2", s.Stage)
			}
			if n := loggedOps(t, dir, "ramp"); n != p.Completed {
				t.Errorf("latency.hlog holds %d ramp ops, completed %d: an op counted twice or lost from the log", n, p.Completed)
			}
		})
	}
}

// TestResumeReplay: a replay (its op of index i is a pure function of
// i) killed half-way goes on from the index due at the resume on the
// capture's own timing: the ops due while down are lost, every other
// capture entry is sent once, and the phase schedules the whole
// capture as an unbroken replay does.
func TestResumeReplay(t *testing.T) {
	src := ndjsonCapture(t, 400, 10*time.Millisecond) // 4 s captured
	sc := scenario(t, "phases:\n  - {name: replay, kind: replay, source: "+src+", format: ndjson, concurrency: 2}\n")
	svc := 2 * time.Millisecond
	u := unbrokenRun(t, sc, &cmdTarget{svc: svc}).Phases[0]
	dir := killedRun(t, sc, &cmdTarget{svc: svc}, 2100*time.Millisecond)
	tg := &cmdTarget{svc: svc}
	sum, ck := resumed(t, sc, tg, dir, time.Second)
	if ck.Current == nil || ck.Current.Name != "replay" || len(ck.Current.Segment) == 0 {
		t.Fatalf("checkpoint in %s, want one in the replay's segment", describeCurrent(ck.Current))
	}
	p := sum.Phases[0]
	checkIdentity(t, "replay", &p.Result)
	if p.Scheduled != 400 || u.Scheduled != 400 {
		t.Errorf("scheduled %d (unbroken %d), want the capture's 400", p.Scheduled, u.Scheduled)
	}
	// 1 s down at 100 ops/s: 100 due, and 0-2 in flight.
	if p.Lost < 100 || p.Lost > 102 {
		t.Errorf("lost %d, want the 100 due in the 1 s down and 0-2 in flight", p.Lost)
	}
	checkSeam(t, sum, ck, "replay", time.Second, p.Lost)
	if n := loggedOps(t, dir, "replay"); n != p.Completed {
		t.Errorf("latency.hlog holds %d replay ops, completed %d", n, p.Completed)
	}
	if p.Replay == nil || p.Replay.Ops != 400 {
		t.Errorf("replay result %+v, want the capture's", p.Replay)
	}
	// The resumed run sends the capture's entries from the one due at
	// the resume, each once.
	seen := map[string]int{}
	for _, c := range tg.sent() {
		seen[c]++
	}
	for c, n := range seen {
		if n != 1 {
			t.Errorf("%q sent %d times by the resumed run", c, n)
		}
	}
	if seen["SET k399 v"] != 1 || seen["SET k0 v"] != 0 {
		t.Errorf("the resumed run did not send the capture's last entry, or sent its first again")
	}
	if len(seen) == 0 || len(seen) > 400-200 {
		t.Errorf("the resumed run sent %d entries, want those after the downtime (at most 200)", len(seen))
	}
}

// describeCurrent names a checkpoint's running phase and stage.
func describeCurrent(cur *rundir.CheckpointCurrent) string {
	if cur == nil {
		return "no phase"
	}
	return fmt.Sprintf("phase %s stage %q (unsupported %q, segment %d bytes, state %d bytes)", cur.Name, cur.Stage, cur.Unsupported, len(cur.Segment), len(cur.Phase))
}
