package engine

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// killedRun runs sc against tg in a synctest bubble, checkpointing, and
// returns a run directory as a SIGKILL at `at` after the start leaves
// it: the checkpoint as it was then, copied first, and the logs after
// it (they only grow, so they hold at least what it counts). The run
// itself goes on to its end in its own directory. more set further
// options, in the bubble.
func killedRun(t *testing.T, sc *scenarios.Scenario, tg targets.Target, at time.Duration, more ...func(*Options)) string {
	t.Helper()
	killed := t.TempDir()
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		copied := make(chan struct{})
		go func() {
			defer close(copied)
			time.Sleep(at)
			for _, name := range []string{rundir.CheckpointFile, rundir.RunInfoFile, rundir.PartialLog, rundir.CountsFile + rundir.PartialSuffix} {
				copyFile(t, filepath.Join(dir, name), filepath.Join(killed, name))
			}
		}()
		o := Options{Scenario: sc, Target: tg, TargetKind: "fake", OutDir: dir, Interval: 250 * time.Millisecond,
			time: bubbleTime{}, Checkpoint: &CheckpointConfig{}}
		for _, f := range more {
			f(&o)
		}
		if _, err := Run(context.Background(), o); err != nil {
			t.Error(err)
		}
		<-copied
	})
	return killed
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Error(err)
		return
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		t.Error(err)
		return
	}
	defer out.Close()
	if _, err := io.Copy(out, in); err != nil {
		t.Error(err)
	}
}

// resumed resumes the killed run in dir, down after its checkpoint, in a
// synctest bubble (whose clock starts where the killed run's did); more
// set further options, in the bubble.
func resumed(t *testing.T, sc *scenarios.Scenario, tg targets.Target, dir string, down time.Duration, more ...func(*Options)) (*rundir.Summary, *rundir.Checkpoint) {
	t.Helper()
	ck, err := rundir.ReadCheckpoint(dir)
	if err != nil {
		t.Fatal(err)
	}
	var sum *rundir.Summary
	synctest.Test(t, func(t *testing.T) {
		time.Sleep(time.Until(ck.Written.Add(down)))
		o := Options{Scenario: sc, Target: tg, TargetKind: "fake", OutDir: dir, Interval: 250 * time.Millisecond,
			time: bubbleTime{}, Checkpoint: &CheckpointConfig{}, Resume: ck}
		for _, f := range more {
			f(&o)
		}
		var err error
		if sum, err = runWritten(context.Background(), o); err != nil {
			t.Fatal(err)
		}
	})
	return sum, ck
}

// checkIdentity checks scheduled = completed + dropped + lost for r and
// each of its ops.
func checkIdentity(t *testing.T, what string, r *rundir.Result) {
	t.Helper()
	if int64(r.Scheduled) != r.Completed+r.Dropped+r.Lost {
		t.Errorf("%s: scheduled %d != completed %d + dropped %d + lost %d", what, r.Scheduled, r.Completed, r.Dropped, r.Lost)
	}
	var sched uint64
	var lost int64
	for name, o := range r.Ops {
		if int64(o.Scheduled) != o.Count+o.Dropped+o.Lost {
			t.Errorf("%s op %s: scheduled %d != count %d + dropped %d + lost %d", what, name, o.Scheduled, o.Count, o.Dropped, o.Lost)
		}
		sched += o.Scheduled
		lost += o.Lost
	}
	if sched != r.Scheduled || lost != r.Lost {
		t.Errorf("%s: the ops' scheduled %d and lost %d do not add up to the phase's %d and %d", what, sched, lost, r.Scheduled, r.Lost)
	}
}

// loggedOps counts the ops latency.hlog holds for phase (its
// <phase>.<op>.latency intervals).
func loggedOps(t *testing.T, dir, phase string) int64 {
	t.Helper()
	m, _, err := rundir.ReadRunIntervals(dir, func(tag string) bool {
		return strings.HasPrefix(tag, phase+".") && strings.HasSuffix(tag, ".latency")
	})
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, hs := range m {
		for _, h := range hs {
			n += h.TotalCount()
		}
	}
	return n
}

// checkSeam checks the run's one seam: in phase, from the checkpoint to
// down later, and that its lost ops are the phase's.
func checkSeam(t *testing.T, sum *rundir.Summary, ck *rundir.Checkpoint, phase string, down time.Duration, lost int64) rundir.Seam {
	t.Helper()
	if len(sum.Seams) != 1 {
		t.Fatalf("seams %+v, want one", sum.Seams)
	}
	s := sum.Seams[0]
	if s.Phase != phase || !s.Down.Equal(ck.Written) || s.Resumed.Sub(s.Down) != down {
		t.Errorf("seam %+v, want phase %s down at the checkpoint %s and resumed %s later", s, phase, ck.Written, down)
	}
	if s.Lost != lost {
		t.Errorf("seam lost %d, phase lost %d: a seam's lost ops are its phase's", s.Lost, lost)
	}
	return s
}

// TestResumeOpenLoop: an open-loop steady phase killed at 2.1 s of 4 s
// (checkpoint at 2 s) and resumed 1 s after its checkpoint goes on on
// its absolute schedule: it schedules exactly what an unbroken run
// does (200/s for 4 s), the ops due in the downtime and those in flight
// at the checkpoint are lost, none is counted twice, and the phase
// before it (a load) is kept as it was.
func TestResumeOpenLoop(t *testing.T) {
	sc := scenario(t, `
keyspace: {records: 200}
phases:
  - {name: load, kind: load, rate: 1000, concurrency: 4}
  - {name: steady, kind: steady, rate: 200, duration: 4s, concurrency: 4, mix: {read: 50, update: 50}}
`)
	// The load takes 0.2 s: the kill is at 2.1 s of the steady phase.
	dir := killedRun(t, sc, &recordingTarget{service: 5 * time.Millisecond}, 2300*time.Millisecond)
	sum, ck := resumed(t, sc, &recordingTarget{service: 5 * time.Millisecond}, dir, time.Second)
	if ck.Current == nil || ck.Current.Name != "steady" || len(ck.Done) != 1 {
		t.Fatalf("checkpoint at phase %+v with %d done, want in steady after the load", ck.Current, len(ck.Done))
	}
	if len(sum.Phases) != 2 || sum.Phases[0].Completed != 200 || sum.Phases[0].Lost != 0 {
		t.Fatalf("phases %d, load completed %d lost %d: want the load kept as it was", len(sum.Phases), sum.Phases[0].Completed, sum.Phases[0].Lost)
	}
	p := sum.Phases[1]
	checkIdentity(t, "steady", &p.Result)
	if p.Scheduled != 800 {
		t.Errorf("scheduled %d, want 800: the schedule is absolute, downtime included", p.Scheduled)
	}
	// 1 s down at 200/s is 200 ops due; the ops in flight at the
	// checkpoint (5 ms service: one) are lost too.
	if p.Lost < 199 || p.Lost > 203 {
		t.Errorf("lost %d, want the 200 due in the 1 s down and the 0-2 in flight", p.Lost)
	}
	checkSeam(t, sum, ck, "steady", time.Second, p.Lost)
	if n := loggedOps(t, dir, "steady"); n != p.Completed {
		t.Errorf("latency.hlog holds %d steady ops, completed %d: an op counted twice or lost from the log", n, p.Completed)
	}
	if n := loggedOps(t, dir, "load"); n != 200 {
		t.Errorf("latency.hlog holds %d load ops, want 200", n)
	}
	if sum.Start != ck.Start || !sum.Phases[1].Start.Equal(ck.Current.Start) {
		t.Errorf("run start %s / phase start %s, want the killed run's %s / %s", sum.Start, sum.Phases[1].Start, ck.Start, ck.Current.Start)
	}
}

// TestResumeClosedLoop: a closed-loop phase has no schedule: resumed
// 1 s after its checkpoint it runs to the end of its duration on the
// absolute clock (the downtime counts against it), and only the ops in
// flight at the checkpoint are lost.
func TestResumeClosedLoop(t *testing.T) {
	sc := scenario(t, `
keyspace: {records: 1000}
phases:
  - {name: closed, kind: steady, rate: 0, duration: 4s, concurrency: 2, mix: {read: 100}}
`)
	dir := killedRun(t, sc, &recordingTarget{service: 10 * time.Millisecond}, 2100*time.Millisecond)
	sum, ck := resumed(t, sc, &recordingTarget{service: 10 * time.Millisecond}, dir, time.Second)
	p := sum.Phases[0]
	checkIdentity(t, "closed", &p.Result)
	// Lost: the ops in flight at the checkpoint, and those that
	// completed after its interval was drained (not in the log it
	// counts): at most two per worker.
	if p.Lost < 0 || p.Lost > 4 {
		t.Errorf("lost %d, want at most the 2 workers' ops in flight or unlogged at the checkpoint", p.Lost)
	}
	// 2 workers at 10 ms for 3 of the 4 s: 600 ops, give or take the
	// ops cut at the seam and the end.
	if p.Completed < 590 || p.Completed > 602 {
		t.Errorf("completed %d, want ~600 (2 workers x 100/s x 3 s up)", p.Completed)
	}
	checkSeam(t, sum, ck, "closed", time.Second, p.Lost)
	if n := loggedOps(t, dir, "closed"); n != p.Completed {
		t.Errorf("latency.hlog holds %d ops, completed %d", n, p.Completed)
	}
	if end := p.End.Sub(ck.Current.Start); end < 4*time.Second || end > 4100*time.Millisecond {
		t.Errorf("phase ran %s from its start, want its 4 s duration on the absolute clock", end)
	}
}

// TestResumeGrowthMidStage: a growth phase killed in a stage's
// measuring, and another killed in a stage's insert, go on in that
// stage: every record is inserted once the phase is over (the batch
// resumes from its next record), the stages before are kept, and the
// measuring's schedule is absolute.
func TestResumeGrowthMidStage(t *testing.T) {
	sc := scenario(t, `
keyspace: {records: 100000}
phases:
  - name: grow
    kind: growth
    concurrency: 4
    mix: {read: 100}
    growth: {batch: 400, load_rate: 1000, measure_rate: 200, measure_for: 1s, max_stages: 3, after_cliff: -1}
`)
	// Each stage: 0.4 s insert, then 1 s measuring. 1.7 s: stage 2's
	// insert (from 1.4 s, checkpoint at 1.65 s); 2.15 s: its measuring
	// (from 1.8 s).
	for _, c := range []struct {
		name      string
		at        time.Duration
		measuring bool
	}{{"insert", 1700 * time.Millisecond, false}, {"measure", 2150 * time.Millisecond, true}} {
		t.Run(c.name, func(t *testing.T) {
			dir := killedRun(t, sc, &recordingTarget{service: 2 * time.Millisecond}, c.at)
			tg := &recordingTarget{service: 2 * time.Millisecond}
			sum, ck := resumed(t, sc, tg, dir, 500*time.Millisecond)
			if ck.Current == nil || ck.Current.Stage != "stage-2" {
				t.Fatalf("checkpoint %+v, want in stage-2", ck.Current)
			}
			p := sum.Phases[0]
			checkIdentity(t, "grow", &p.Result)
			if len(p.Stages) != 3 {
				t.Fatalf("%d stages, want 3", len(p.Stages))
			}
			for i, st := range p.Stages {
				if st.Records != int64(400*(i+1)) {
					t.Errorf("stage %d: %d records, want %d", i+1, st.Records, 400*(i+1))
				}
				checkIdentity(t, st.Name, &st.Result)
				if st.Scheduled != 200 {
					t.Errorf("stage %d scheduled %d, want 200 (1 s at 200/s)", i+1, st.Scheduled)
				}
			}
			s := checkSeam(t, sum, ck, "grow", 500*time.Millisecond, p.Lost)
			if s.Stage != "stage-2" {
				t.Errorf("seam in stage %q, want stage-2", s.Stage)
			}
			if c.measuring {
				if p.Lost < 100 || p.Lost > 102 || p.Stages[1].Lost != p.Lost {
					t.Errorf("lost %d (stage 2: %d), want the 100 due in the 0.5 s down and 0-2 in flight, all in stage 2", p.Lost, p.Stages[1].Lost)
				}
			} else {
				if p.Lost != 0 {
					t.Errorf("lost %d, want 0: an insert goes on from its next record", p.Lost)
				}
				// The resumed run inserted the rest of stage 2's batch
				// from the first record the checkpoint did not count
				// done (and a few before it again), and all of stage 3.
				keys := map[string]bool{}
				for _, r := range tg.seen() {
					if r.Op == scenarios.OpInsert {
						keys[r.Key] = true
					}
				}
				var st segState
				if err := json.Unmarshal(ck.Current.Segment, &st); err != nil {
					t.Fatal(err)
				}
				from := 400 + int64(st.Completed)
				if st.Completed <= 0 || st.Completed >= 400 {
					t.Fatalf("checkpoint counts %d of stage 2's 400 inserts done, want some", st.Completed)
				}
				for k := from; k < 1200; k++ {
					if key := string(scenarios.AppendKey(nil, sc.Keyspace.Prefix, k, sc.Keyspace.Ordered)); !keys[key] {
						t.Fatalf("record %d (%s) was not inserted by the resumed run", k, key)
					}
				}
			}
			if n := loggedOps(t, dir, "grow"); n < p.Completed {
				t.Errorf("latency.hlog holds %d grow ops, fewer than the %d measured", n, p.Completed)
			}
		})
	}
}

// TestResumeRefusals: a checkpoint of a phase kind that keeps no
// resumable state, or of another scenario, is refused by name.
func TestResumeRefusals(t *testing.T) {
	sc := scenario(t, `
keyspace: {records: 1000}
phases:
  - {name: steady, kind: steady, rate: 100, duration: 2s, concurrency: 2, mix: {read: 100}}
`)
	ck := &rundir.Checkpoint{Current: &rundir.CheckpointCurrent{Index: 0, Name: "probe", Unsupported: "phase kind capacity cannot be resumed yet"}}
	if err := CheckResume(sc, ck); err == nil || !strings.Contains(err.Error(), "capacity cannot be resumed") {
		t.Errorf("got %v, want the kind named", err)
	}
	ck = &rundir.Checkpoint{Current: &rundir.CheckpointCurrent{Index: 0, Name: "other"}}
	if err := CheckResume(sc, ck); err == nil || !strings.Contains(err.Error(), "phase other") {
		t.Errorf("got %v, want the missing phase named", err)
	}
}

// TestResumeLoad: a load killed half-way goes on from the next record:
// every record is inserted, each counted once, none lost, and the phase
// after it reads the whole dataset.
func TestResumeLoad(t *testing.T) {
	sc := scenario(t, `
keyspace: {records: 1000}
phases:
  - {name: load, kind: load, rate: 500, concurrency: 4}
  - {name: read, kind: steady, rate: 100, duration: 1s, concurrency: 2, mix: {read: 100}}
`)
	dir := killedRun(t, sc, &recordingTarget{service: 5 * time.Millisecond}, 1100*time.Millisecond)
	tg := &recordingTarget{service: 5 * time.Millisecond}
	sum, ck := resumed(t, sc, tg, dir, 2*time.Second)
	if ck.Current == nil || ck.Current.Name != "load" {
		t.Fatalf("checkpoint at %+v, want in the load", ck.Current)
	}
	p := sum.Phases[0]
	checkIdentity(t, "load", &p.Result)
	if p.Scheduled != 1000 || p.Completed != 1000 || p.Lost != 0 {
		t.Errorf("load scheduled %d completed %d lost %d, want 1000, 1000, 0", p.Scheduled, p.Completed, p.Lost)
	}
	checkSeam(t, sum, ck, "load", 2*time.Second, 0)
	if n := loggedOps(t, dir, "load"); n != 1000 {
		t.Errorf("latency.hlog holds %d load ops, want 1000", n)
	}
	var st segState
	if err := json.Unmarshal(ck.Current.Segment, &st); err != nil {
		t.Fatal(err)
	}
	keys, reads := map[string]bool{}, map[string]bool{}
	for _, r := range tg.seen() {
		switch r.Op {
		case scenarios.OpInsert:
			keys[r.Key] = true
		case scenarios.OpRead:
			reads[r.Key] = true
		}
	}
	// The read phase reads the 1000 records the load left (the record
	// count goes on from the checkpoint's).
	if len(reads) < 50 {
		t.Errorf("the read phase read %d distinct keys of the 1000 records", len(reads))
	}
	for k := st.Completed; k < 1000; k++ {
		if key := string(scenarios.AppendKey(nil, sc.Keyspace.Prefix, k, sc.Keyspace.Ordered)); !keys[key] {
			t.Fatalf("record %d was not inserted by the resumed load", k)
		}
	}
	if sum.Phases[1].Completed != 100 {
		t.Errorf("the read phase completed %d, want 100", sum.Phases[1].Completed)
	}
}

// countBarrier is a barrier counter in memory.
type countBarrier struct{ n int }

func (b *countBarrier) Arrive(context.Context, string) (int, error)  { b.n++; return b.n, nil }
func (b *countBarrier) Arrived(context.Context, string) (int, error) { return b.n, nil }

// TestBarrierRejoin: a shard resumed after a kill at a barrier it had
// arrived at waits there again without arriving twice (which the
// barrier refuses as a shard that ran twice); OnArrive tells the run it
// arrived, for its checkpoint.
func TestBarrierRejoin(t *testing.T) {
	b := &countBarrier{n: 2} // both shards arrived, this one before its kill
	if err := targets.WaitBarrier(context.Background(), b, "k", targets.BarrierWait{N: 2, Rejoin: true}); err != nil || b.n != 2 {
		t.Errorf("rejoin: %v, counter %d, want nil and 2", err, b.n)
	}
	if err := targets.WaitBarrier(context.Background(), b, "k", targets.BarrierWait{N: 2}); err == nil || !strings.Contains(err.Error(), "ran twice") {
		t.Errorf("arriving twice: %v, want refused", err)
	}
	b.n = 1
	noted := false
	if err := targets.WaitBarrier(context.Background(), b, "k", targets.BarrierWait{N: 2, OnArrive: func() { noted = true }}); err != nil || !noted {
		t.Errorf("arrive: %v, noted %v", err, noted)
	}
}
