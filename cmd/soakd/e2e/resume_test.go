package e2e

import (
	"bytes"
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
// phase written after after (the zero time: any), by the running
// process s; nil when s ended first with exit 0 (its phase was over).
func waitCheckpoint(t *testing.T, s *started, dir string, after time.Time) *rundir.Checkpoint {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		if ck, err := rundir.ReadCheckpoint(dir); err == nil && ck.Current != nil && ck.Written.After(after) {
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

// TestResumeAfterSIGKILL kills a soak with SIGKILL three times at random
// moments after a checkpoint, resumes it each time with run --resume,
// and checks the summary: the 1600 ops of the absolute schedule,
// scheduled = completed + dropped + lost for the phase and each op, a
// seam per kill, each losing no more than the ops due from its
// checkpoint (at most a checkpoint interval before the kill, on a busy
// host a little more) to its resume, and latency.hlog holding each
// completed op once.
func TestResumeAfterSIGKILL(t *testing.T) {
	dir := t.TempDir()
	sc := write(t, dir, "soak.yaml", resumeScenario)
	out := filepath.Join(dir, "run")
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 45))
	// Checkpoints each second (the default is 5 s), so that the test
	// can hold each seam to the interval; a resume takes the flag too.
	s := startSoakd(t, "run", sc, "--listen", "", "--quiet", "--out", out, "--checkpoint-every", "1s")
	var kills []time.Time
	var last time.Time
	for range 3 {
		// A checkpoint of this process (the last one of the process
		// before is older): each kill is then a seam of its own. On a
		// host slow enough the soak ends first: fewer kills.
		if waitCheckpoint(t, s, out, last) == nil {
			break
		}
		at := s.kill(t, rng)
		if at.IsZero() {
			break
		}
		kills = append(kills, at)
		ck, err := rundir.ReadCheckpoint(out)
		if err != nil {
			t.Fatal(err)
		}
		last = ck.Written
		s = startSoakd(t, "run", "--resume", out, "--listen", "", "--quiet", "--checkpoint-every", "1s")
	}
	if code := s.wait(t); code != exitOK {
		t.Fatalf("the last resume: exit %d\n%s", code, s.out.String())
	}
	if len(kills) == 0 {
		t.Fatal("the soak ended before its first kill")
	}
	sum, err := rundir.ReadSummary(out)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Status != rundir.StatusCompleted || len(sum.Phases) != 1 {
		t.Fatalf("status %s, %d phases", sum.Status, len(sum.Phases))
	}
	p := sum.Phases[0]
	if p.Scheduled != 2400 {
		t.Errorf("scheduled %d, want 2400: 12 s at 200/s on the absolute schedule, downtime included", p.Scheduled)
	}
	if int64(p.Scheduled) != p.Completed+p.Dropped+p.Lost {
		t.Errorf("scheduled %d != completed %d + dropped %d + lost %d", p.Scheduled, p.Completed, p.Dropped, p.Lost)
	}
	var lost int64
	for name, o := range p.Ops {
		if int64(o.Scheduled) != o.Count+o.Dropped+o.Lost {
			t.Errorf("op %s: scheduled %d != count %d + dropped %d + lost %d", name, o.Scheduled, o.Count, o.Dropped, o.Lost)
		}
		lost += o.Lost
	}
	if lost != p.Lost {
		t.Errorf("the ops' lost add up to %d, the phase's is %d", lost, p.Lost)
	}
	if len(sum.Seams) != len(kills) {
		t.Fatalf("%d seams, want one per kill (%d): %+v", len(sum.Seams), len(kills), sum.Seams)
	}
	var seamLost int64
	for i, sm := range sum.Seams {
		seamLost += sm.Lost
		down := sm.Resumed.Sub(sm.Down)
		// The checkpoint is at most an interval (1 s) old at the kill;
		// a collector running late on a busy host makes it older.
		if before := kills[i].Sub(sm.Down); before > 3*time.Second || before < 0 {
			t.Errorf("seam %d: checkpoint %s before the kill, want within the 1 s checkpoint interval (3 s on a busy host)", i+1, before)
		}
		// Lost: the ops due from the checkpoint to the resume, and
		// those in flight or unlogged at it: the 4 workers' (two each)
		// and what the schedule sent while the collector drained their
		// stripes (pausing for the pacer: 0.1 s allowed).
		if max := int64((down.Seconds()+0.1)*200) + 1 + 8; sm.Lost > max || sm.Lost < 0 {
			t.Errorf("seam %d: lost %d over %s down, want at most %d", i+1, sm.Lost, down, max)
		}
	}
	if seamLost != p.Lost {
		t.Errorf("the seams lost %d, the phase %d", seamLost, p.Lost)
	}
	m, _, err := rundir.ReadRunIntervals(out, func(tag string) bool { return strings.HasSuffix(tag, ".latency") })
	if err != nil {
		t.Fatal(err)
	}
	var logged int64
	for _, hs := range m {
		for _, h := range hs {
			logged += h.TotalCount()
		}
	}
	if logged != p.Completed {
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
	waitCheckpoint(t, s, out, time.Time{})
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
	waitCheckpoint(t, first, out, old.Written)
	refused("resume "+out+": soakd pid "+strconv.Itoa(first.cmd.Process.Pid)+" is running it", "--resume", out)
	if first.kill(t, rand.New(rand.NewPCG(3, 4))).IsZero() {
		t.Fatal("the resumed minute-long soak ended by itself")
	}
}
