package e2e

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/soakd/soakd/rundir"
)

// closedScenario is a 12 s closed-loop soak of 2 workers on the
// embedded store, which stalls 18 ms in every 20: some 2,000 ops/s, so
// that the soak does not take a core of a busy host.
const closedScenario = `name: closed-resume-e2e
target: {kind: embedded, embedded: {stall_every: 20ms, stall_for: 18ms}}
keyspace: {records: 100}
phases:
  - {name: soak, kind: steady, rate: 0, duration: 12s, warmup: 0s, concurrency: 2, mix: {get: 80, set: 20}}
`

// growthScenario is a growth phase of 3 stages, each inserting 2500
// records at 1000/s (2.5 s, a checkpoint in it) and then measuring 2 s
// at 200 ops/s: some 13.5 s unbroken.
const growthScenario = `name: growth-resume-e2e
keyspace: {records: 100000}
phases:
  - name: grow
    kind: growth
    concurrency: 4
    mix: {get: 80, set: 20}
    growth: {batch: 2500, load_rate: 1000, measure_rate: 200, measure_for: 2s, max_stages: 3, after_cliff: -1}
`

// inInsert says whether a growth phase's checkpoint is in a stage's
// insert: its segment (the engine's) is a sequential one, with a limit.
func inInsert(t *testing.T, ck *rundir.Checkpoint) bool {
	t.Helper()
	var seg struct {
		Limit uint64 `json:"limit"`
	}
	if err := json.Unmarshal(ck.Current.Segment, &seg); err != nil {
		t.Fatalf("checkpoint segment: %v", err)
	}
	return seg.Limit > 0
}

// resumeFlags are the flags of the kill tests' runs and resumes:
// checkpoints each second (the default is 5 s), so that a seam can be
// held to the interval.
var resumeFlags = []string{"--listen", "", "--quiet", "--checkpoint-every", "1s"}

// TestClosedLoopResumeAfterSIGKILL kills a closed-loop soak with
// SIGKILL three times at random moments, resumes it each time with run
// --resume, and checks the summary: scheduled = completed + dropped +
// lost for the phase and each op, a seam per kill, the phase ending no
// sooner than its 12 s on the wall clock from its start (downtime
// included), and latency.hlog holding each completed op once.
//
// A closed loop schedules nothing while nothing runs: a seam loses the
// ops in flight at its checkpoint and those the workers claimed while
// the collector drained their stripes (the workers are not held then;
// the pacer of an open loop is), which on a busy host, the collector
// napping between stripes, can be hundreds. So a seam is held to one
// interval's ops (the busiest in latency.hlog) and the 2 workers' two
// each, not to its downtime.
func TestClosedLoopResumeAfterSIGKILL(t *testing.T) {
	dir := t.TempDir()
	sc := write(t, dir, "closed.yaml", closedScenario)
	out := filepath.Join(dir, "run")
	kills := killResumed(t, out, 3, killRand(t), append([]string{"run", sc, "--out", out}, resumeFlags...), resumeFlags)
	sum := completedSummary(t, out, 1)
	p := sum.Phases[0]
	logged, busiest := loggedOps(t, out)
	t.Logf("scheduled %d = completed %d + dropped %d + lost %d, over %s; seams %+v", p.Scheduled, p.Completed, p.Dropped, p.Lost, p.End.Sub(p.Start).Round(time.Millisecond), sum.Seams)
	if p.Completed == 0 {
		t.Fatal("the soak completed no op")
	}
	checkAccounting(t, "phase "+p.Name, &p.Result)
	checkSeams(t, sum.Seams, kills, p.Lost, func(killed, rundir.Seam) int64 { return busiest + 2*2 })
	if ran := p.End.Sub(p.Start); ran < 12*time.Second {
		t.Errorf("the phase ran %s from its start, want its 12 s on the wall clock, the downtime in them", ran)
	}
	if logged != p.Completed {
		t.Errorf("latency.hlog holds %d ops, the phase completed %d: an op counted twice or missing", logged, p.Completed)
	}
}

// TestGrowthResumeAfterSIGKILL kills a growth phase with SIGKILL three
// times at random moments: after a checkpoint in a stage's insert, then
// after one in a stage's measuring, then after any. It resumes it each
// time with run --resume and checks it against an unbroken run of the
// same scenario beside it: the same stages (names, records, scheduled
// ops, the insert's scheduled records); scheduled = completed + dropped
// + lost for the phase, each stage and each stage's insert, per op too;
// a seam per kill in a stage, its lost ops its stage's: none when it
// went on from an insert (an insert goes on from its next record, and
// the measuring after it starts afresh), else no more than the
// measuring ops due from its checkpoint to its resume; and latency.hlog
// holding each op measured or inserted once.
func TestGrowthResumeAfterSIGKILL(t *testing.T) {
	dir := t.TempDir()
	sc := write(t, dir, "grow.yaml", growthScenario)
	whole := filepath.Join(dir, "unbroken")
	unbroken := startSoakd(t, append([]string{"run", sc, "--out", whole}, resumeFlags...)...)
	out := filepath.Join(dir, "run")
	kills := killResumed(t, out, 3, killRand(t), append([]string{"run", sc, "--out", out}, resumeFlags...), resumeFlags,
		func(ck *rundir.Checkpoint) bool { return inInsert(t, ck) },
		func(ck *rundir.Checkpoint) bool { return !inInsert(t, ck) })
	if code := unbroken.wait(t); code != exitOK {
		t.Fatalf("the unbroken run: exit %d\n%s", code, unbroken.out.String())
	}
	if len(kills) < 2 {
		t.Fatalf("%d kills, want one from an insert and one from a measuring at least", len(kills))
	}
	want := completedSummary(t, whole, 1).Phases[0]
	sum := completedSummary(t, out, 1)
	p := sum.Phases[0]
	t.Logf("seams %+v", sum.Seams)
	checkAccounting(t, "phase "+p.Name, &p.Result)

	if len(p.Stages) != len(want.Stages) || len(p.Stages) != 3 {
		t.Fatalf("%d stages, the unbroken run %d, want 3", len(p.Stages), len(want.Stages))
	}
	stageLost := map[string]int64{}
	var scheduled uint64
	var completed int64
	for i, st := range p.Stages {
		w := want.Stages[i]
		if st.Name != w.Name || st.Records != w.Records || st.Scheduled != w.Scheduled || st.TargetRate != w.TargetRate ||
			st.Load == nil || w.Load == nil || st.Load.Scheduled != w.Load.Scheduled {
			t.Errorf("stage %d: %s, %d records, %d scheduled at %g/s; the unbroken run's: %s, %d records, %d scheduled at %g/s (or an insert missing)",
				i+1, st.Name, st.Records, st.Scheduled, st.TargetRate, w.Name, w.Records, w.Scheduled, w.TargetRate)
			continue
		}
		checkAccounting(t, "stage "+st.Name, &st.Result)
		checkAccounting(t, "stage "+st.Name+"'s insert", st.Load)
		if st.Load.Lost != 0 {
			t.Errorf("stage %s's insert lost %d, want 0: an insert goes on from its next record", st.Name, st.Load.Lost)
		}
		stageLost[st.Name] = st.Lost
		scheduled += st.Scheduled
		completed += st.Completed + st.Load.Completed
	}
	if scheduled != p.Scheduled {
		t.Errorf("the stages scheduled %d, the phase %d", scheduled, p.Scheduled)
	}
	for i, k := range kills {
		part := "measuring"
		if inInsert(t, k.From) {
			part = "insert"
		}
		t.Logf("kill %d: resumed from a checkpoint in %s's %s", i+1, k.From.Current.Stage, part)
	}
	checkSeams(t, sum.Seams, kills, p.Lost, func(k killed, sm rundir.Seam) int64 {
		if inInsert(t, k.From) {
			return 0
		}
		return int64((sm.Resumed.Sub(sm.Down).Seconds()+0.5)*200) + 1 + 8 // as TestResumeAfterSIGKILL: 0.5 s for the drain
	})
	for _, sm := range sum.Seams {
		if _, ok := stageLost[sm.Stage]; !ok {
			t.Errorf("seam %+v in no stage of the phase", sm)
		}
		stageLost[sm.Stage] -= sm.Lost
	}
	for name, n := range stageLost {
		if n != 0 {
			t.Errorf("stage %s lost %d more than its seams", name, n)
		}
	}
	if logged, _ := loggedOps(t, out); logged != completed {
		t.Errorf("latency.hlog holds %d ops, the stages measured and inserted %d: an op counted twice or missing", logged, completed)
	}
}
