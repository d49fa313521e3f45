package e2e

import (
	"bytes"
	"flag"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/soakd/soakd/rundir"
)

// resumeScenario is a 12 s open-loop soak at 200 ops/s on the embedded
// store: 2400 ops scheduled, killed or not.
const resumeScenario = `name: resume-e2e
keyspace: {records: 100}
phases:
  - {name: soak, kind: steady, rate: 200, duration: 12s, warmup: 0s, concurrency: 4, mix: {get: 80, set: 20}}
`

// longScenario is resumeScenario for a minute: the refusals have all
// the time they need on a busy host (the run is killed, never waited
// for).
var longScenario = strings.Replace(resumeScenario, "12s", "60s", 1)

// started is a soakd process and its output.
type started struct {
	cmd  *exec.Cmd
	out  bytes.Buffer
	done chan error
}

func startSoakd(t *testing.T, args ...string) *started {
	t.Helper()
	s := &started{cmd: exec.Command(buildSoakd(t), args...), done: make(chan error, 1)}
	s.cmd.Stdout, s.cmd.Stderr = &s.out, &s.out
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.done <- s.cmd.Wait() }()
	t.Cleanup(func() { s.cmd.Process.Kill() })
	return s
}

// wait waits for the process to end and returns its exit code (-1:
// killed by a signal).
func (s *started) wait(t *testing.T) int {
	t.Helper()
	select {
	case err := <-s.done:
		if s.cmd.ProcessState == nil {
			t.Fatal(err)
		}
		return s.cmd.ProcessState.ExitCode()
	case <-time.After(2 * time.Minute):
		t.Fatalf("soakd did not end\n%s", s.out.String())
	}
	return 0
}

// waitCheckpoint waits until dir holds a checkpoint in the middle of a
// phase written after after (the zero time: any) by the running process
// s, for which ok (nil: any) holds; nil when s ended first with exit 0
// (its phase was over).
func waitCheckpoint(t *testing.T, s *started, dir string, after time.Time, ok func(*rundir.Checkpoint) bool) *rundir.Checkpoint {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		if ck, err := rundir.ReadCheckpoint(dir); err == nil && ck.Current != nil && ck.Written.After(after) && (ok == nil || ok(ck)) {
			return ck
		}
		select {
		case err := <-s.done:
			s.done <- err
			if err == nil {
				return nil
			}
			t.Fatalf("soakd ended (%v) before a checkpoint\n%s", err, s.out.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("no checkpoint in %s\n%s", dir, s.out.String())
	return nil
}

// kill SIGKILLs s after a random moment of up to 1.5 s and returns when
// (the zero time: s had ended by itself, exit 0).
func (s *started) kill(t *testing.T, rng *rand.Rand) time.Time {
	t.Helper()
	time.Sleep(time.Duration(rng.Int64N(int64(1500 * time.Millisecond))))
	at := time.Now()
	_ = s.cmd.Process.Kill()
	switch code := s.wait(t); code {
	case -1:
		return at
	case exitOK:
		return time.Time{}
	default:
		t.Fatalf("exit %d, want killed\n%s", code, s.out.String())
	}
	return at
}

// killSeed replays a run of the kill tests: their random kill moments
// come from it (each test logs the seed it used).
var killSeed = flag.Uint64("kill-seed", 0, "seed of the resume tests' random kill moments (0: from the clock)")

// killRand is a test's source of random kill moments, its seed logged.
func killRand(t *testing.T) *rand.Rand {
	t.Helper()
	seed := *killSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("kill moments from -kill-seed %d", seed)
	return rand.New(rand.NewPCG(seed, 45))
}

// killed is one kill of killResumed: when, and the checkpoint the
// resume went on from.
type killed struct {
	At   time.Time
	From *rundir.Checkpoint
}

// killResumed starts `soakd run` with run (its --out out), SIGKILLs it
// up to kills times at random moments and resumes it each time with
// `soakd run --resume out` and resume, and waits for the last resume to
// end with exit 0. Each kill is after a checkpoint of the process it
// kills (the one before is older), so that it is a seam of its own,
// and for which where[i] holds if given for kill i. It returns the
// kills that made a seam: fewer when the soak ended first on a slow
// host, or had checkpointed its phase's end when killed; none fails the
// test.
func killResumed(t *testing.T, out string, kills int, rng *rand.Rand, run, resume []string, where ...func(*rundir.Checkpoint) bool) []killed {
	t.Helper()
	s := startSoakd(t, run...)
	var done []killed
	var last time.Time
	for i := range kills {
		var ok func(*rundir.Checkpoint) bool
		if i < len(where) {
			ok = where[i]
		}
		if waitCheckpoint(t, s, out, last, ok) == nil {
			break
		}
		when := s.kill(t, rng)
		if when.IsZero() {
			break
		}
		ck, err := rundir.ReadCheckpoint(out)
		if err != nil {
			t.Fatal(err)
		}
		last = ck.Written
		if ck.Current == nil {
			// The phase's end was checkpointed before the kill: the
			// resume only finishes the run, with no seam.
			t.Logf("kill at %s, %s after the checkpoint of the phase's end: no seam", when.Format("15:04:05.000"), when.Sub(last).Round(time.Millisecond))
		} else {
			done = append(done, killed{when, ck})
			in := "in phase " + ck.Current.Name
			if ck.Current.Stage != "" {
				in += ", stage " + ck.Current.Stage
			}
			t.Logf("kill %d at %s, %s after its checkpoint %s", len(done), when.Format("15:04:05.000"), when.Sub(last).Round(time.Millisecond), in)
		}
		s = startSoakd(t, append([]string{"run", "--resume", out}, resume...)...)
	}
	if code := s.wait(t); code != exitOK {
		t.Fatalf("the last resume: exit %d\n%s", code, s.out.String())
	}
	if len(done) == 0 {
		t.Fatal("the soak ended before its first kill")
	}
	return done
}

// checkAccounting checks scheduled = completed + dropped + lost for r
// and for each of its ops, and that its ops add up to its scheduled and
// lost.
func checkAccounting(t *testing.T, what string, r *rundir.Result) {
	t.Helper()
	if int64(r.Scheduled) != r.Completed+r.Dropped+r.Lost {
		t.Errorf("%s: scheduled %d != completed %d + dropped %d + lost %d", what, r.Scheduled, r.Completed, r.Dropped, r.Lost)
	}
	var sched uint64
	var lost int64
	for name, o := range r.Ops {
		if int64(o.Scheduled) != o.Count+o.Dropped+o.Lost {
			t.Errorf("%s, op %s: scheduled %d != count %d + dropped %d + lost %d", what, name, o.Scheduled, o.Count, o.Dropped, o.Lost)
		}
		sched += o.Scheduled
		lost += o.Lost
	}
	if sched != r.Scheduled || lost != r.Lost {
		t.Errorf("%s: the ops' scheduled %d and lost %d do not add up to its %d and %d", what, sched, lost, r.Scheduled, r.Lost)
	}
}

// checkSeams checks a resumed run's seams: one per kill, each down at
// the checkpoint its resume went on from, taken within 3 s before the
// kill (the 1 s interval, longer when the collector runs late on a busy
// host), and losing from 0 to maxLost(kill, seam) ops, all of them
// adding up to the run's lost.
func checkSeams(t *testing.T, seams []rundir.Seam, kills []killed, lost int64, maxLost func(killed, rundir.Seam) int64) {
	t.Helper()
	if len(seams) != len(kills) {
		t.Fatalf("%d seams, want one per kill (%d): %+v", len(seams), len(kills), seams)
	}
	var sum int64
	for i, sm := range seams {
		k := kills[i]
		sum += sm.Lost
		if !sm.Down.Equal(k.From.Written) {
			t.Errorf("seam %d: down at %s, its resume went on from the checkpoint of %s", i+1, sm.Down, k.From.Written)
		}
		if before := k.At.Sub(sm.Down); before > 3*time.Second || before < 0 {
			t.Errorf("seam %d: checkpoint %s before the kill, want within the 1 s checkpoint interval (3 s on a busy host)", i+1, before)
		}
		if max := maxLost(k, sm); sm.Lost > max || sm.Lost < 0 {
			t.Errorf("seam %d: lost %d over %s down, want 0 to %d", i+1, sm.Lost, sm.Resumed.Sub(sm.Down), max)
		}
	}
	if sum != lost {
		t.Errorf("the seams lost %d, the run %d", sum, lost)
	}
}

// loggedOps is how many ops latency.hlog holds in dir (its .latency
// intervals: once each, the completed ops), and the most one interval
// holds.
func loggedOps(t *testing.T, dir string) (total, busiest int64) {
	t.Helper()
	m, _, err := rundir.ReadRunIntervals(dir, func(tag string) bool { return strings.HasSuffix(tag, ".latency") })
	if err != nil {
		t.Fatal(err)
	}
	per := map[int64]int64{}
	for _, hs := range m {
		for _, h := range hs {
			total += h.TotalCount()
			per[h.StartTimeMs()] += h.TotalCount()
		}
	}
	for _, n := range per {
		busiest = max(busiest, n)
	}
	return total, busiest
}

// completedSummary reads dir's summary.json, which must say completed
// with phases phases.
func completedSummary(t *testing.T, dir string, phases int) *rundir.Summary {
	t.Helper()
	sum, err := rundir.ReadSummary(dir)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Status != rundir.StatusCompleted || len(sum.Phases) != phases {
		t.Fatalf("%s: status %s, %d phases, want completed with %d", dir, sum.Status, len(sum.Phases), phases)
	}
	return sum
}

// TestResumeAfterSIGKILL kills an open-loop soak with SIGKILL three
// times at random moments after a checkpoint, resumes it each time with
// run --resume, and checks the summary: the 2400 ops of the absolute
// schedule, scheduled = completed + dropped + lost for the phase and
// each op, a seam per kill, each losing no more than the ops due from
// its checkpoint (at most a checkpoint interval before the kill, on a
// busy host a little more) to its resume, and latency.hlog holding each
// completed op once.
func TestResumeAfterSIGKILL(t *testing.T) {
	dir := t.TempDir()
	sc := write(t, dir, "soak.yaml", resumeScenario)
	out := filepath.Join(dir, "run")
	// Checkpoints each second (the default is 5 s), so that the test
	// can hold each seam to the interval; a resume takes the flag too.
	flags := []string{"--listen", "", "--quiet", "--checkpoint-every", "1s"}
	kills := killResumed(t, out, 3, killRand(t), append([]string{"run", sc, "--out", out}, flags...), flags)
	sum := completedSummary(t, out, 1)
	p := sum.Phases[0]
	if p.Scheduled != 2400 {
		t.Errorf("scheduled %d, want 2400: 12 s at 200/s on the absolute schedule, downtime included", p.Scheduled)
	}
	checkAccounting(t, "phase "+p.Name, &p.Result)
	// Lost: the ops due from the checkpoint to the resume, and those in
	// flight or unlogged at it: the 4 workers' (two each) and what the
	// schedule sent while the collector drained their stripes (pausing
	// for the pacer: 0.5 s allowed; at load 12 a drain took 0.3 s).
	checkSeams(t, sum.Seams, kills, p.Lost, func(_ killed, sm rundir.Seam) int64 {
		return int64((sm.Resumed.Sub(sm.Down).Seconds()+0.5)*200) + 1 + 8
	})
	if logged, _ := loggedOps(t, out); logged != p.Completed {
		t.Errorf("latency.hlog holds %d ops, the phase completed %d: an op counted twice or missing", logged, p.Completed)
	}
}

// TestResumeRefused: run --resume refuses, exit 2 with one line naming
// the directory and why, a directory without a checkpoint, a finished
// run, a flag that would change the run, a run whose scenario file
// changed, and a run another soakd process is resuming (naming its pid).
func TestResumeRefused(t *testing.T) {
	dir := t.TempDir()
	refused := func(want string, args ...string) {
		t.Helper()
		code, _, errb := runSoakd(t, append([]string{"run", "--listen", ""}, args...)...)
		msg := errb.String()
		if code != 2 || !strings.Contains(msg, want) || strings.Count(strings.TrimSpace(msg), "\n") != 0 {
			t.Errorf("soakd run %s: exit %d, stderr %q: want exit 2 and one line saying %q", strings.Join(args, " "), code, msg, want)
		}
	}
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	refused("resume "+empty+": no checkpoint.json", "--resume", empty)

	short := write(t, dir, "short.yaml", "name: short\nkeyspace: {records: 100}\nphases: [{name: s, kind: steady, rate: 100, duration: 500ms, mix: {get: 100}}]\n")
	done := filepath.Join(dir, "done")
	if code, _, errb := runSoakd(t, "run", short, "--listen", "", "--quiet", "--out", done); code != exitOK {
		t.Fatalf("exit %d\n%s", code, errb)
	}
	refused("resume "+done+": the run finished", "--resume", done)

	sc := write(t, dir, "soak.yaml", longScenario)
	out := filepath.Join(dir, "killed")
	s := startSoakd(t, "run", sc, "--listen", "", "--quiet", "--out", out)
	waitCheckpoint(t, s, out, time.Time{}, nil)
	s.kill(t, rand.New(rand.NewPCG(1, 2)))
	refused("resume "+out+": --rate cannot change it", "--resume", out, "--rate", "10")
	write(t, dir, "soak.yaml", strings.Replace(longScenario, "rate: 200", "rate: 300", 1))
	refused("the scenario changed ("+sc, "--resume", out)
	write(t, dir, "soak.yaml", longScenario)

	// One resumer at a time: the second names the first's pid.
	old, err := rundir.ReadCheckpoint(out)
	if err != nil {
		t.Fatal(err)
	}
	first := startSoakd(t, "run", "--resume", out, "--listen", "", "--quiet")
	waitCheckpoint(t, first, out, old.Written, nil)
	refused("resume "+out+": soakd pid "+strconv.Itoa(first.cmd.Process.Pid)+" is running it", "--resume", out)
	if first.kill(t, rand.New(rand.NewPCG(3, 4))).IsZero() {
		t.Fatal("the resumed minute-long soak ended by itself")
	}
}
