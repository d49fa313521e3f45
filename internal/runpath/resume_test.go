package runpath

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/soakd/soakd/rundir"
)

// TestResumableRefusals: a finished run, a directory without a
// checkpoint, one at a phase that cannot be resumed and one another
// process holds are each refused with their reason, and a checkpoint
// that can be resumed is returned.
func TestResumableRefusals(t *testing.T) {
	reason := func(dir string) (ResumeReason, string) {
		t.Helper()
		_, err := Resumable(dir)
		var nr *NotResumableError
		if !errors.As(err, &nr) {
			t.Fatalf("Resumable(%s) = %v, want a NotResumableError", dir, err)
		}
		if !strings.Contains(err.Error(), dir) {
			t.Errorf("%q does not name the directory", err)
		}
		return nr.Reason, err.Error()
	}
	empty := t.TempDir()
	if r, msg := reason(empty); r != ResumeNoCheckpoint {
		t.Errorf("empty dir: %s, want no checkpoint", msg)
	}
	if r, msg := reason(filepath.Join(empty, "nope")); r != ResumeNoCheckpoint {
		t.Errorf("missing dir: %s, want no checkpoint", msg)
	}
	finished := t.TempDir()
	write(t, finished, rundir.SummaryFile, "{}")
	if r, msg := reason(finished); r != ResumeFinished || !strings.Contains(msg, "finished") {
		t.Errorf("finished run: %s", msg)
	}
	probe := t.TempDir()
	if err := rundir.WriteCheckpoint(probe, &rundir.Checkpoint{Version: rundir.CheckpointVersion,
		Current: &rundir.CheckpointCurrent{Name: "find", Unsupported: "phase kind capacity cannot be resumed yet"}}); err != nil {
		t.Fatal(err)
	}
	if r, msg := reason(probe); r != ResumeUnsupported || !strings.Contains(msg, "capacity cannot be resumed") {
		t.Errorf("capacity phase: %s", msg)
	}
	ok := t.TempDir()
	if err := rundir.WriteCheckpoint(ok, &rundir.Checkpoint{Version: rundir.CheckpointVersion}); err != nil {
		t.Fatal(err)
	}
	if _, err := Resumable(ok); err != nil {
		t.Fatalf("resumable run refused: %v", err)
	}
	held, err := lockDir(ok)
	if err != nil {
		t.Fatal(err)
	}
	r, msg := reason(ok)
	if r != ResumeLocked || !strings.Contains(msg, "pid "+itoa(os.Getpid())) {
		t.Errorf("held run: %s, want locked naming pid %d", msg, os.Getpid())
	}
	held.unlock()
	if _, err := Resumable(ok); err != nil {
		t.Errorf("after the holder let go: %v", err)
	}
}

// TestIdentityDiff: a changed scenario, binary, target or host is
// named; a reboot (boot id) is not a change.
func TestIdentityDiff(t *testing.T) {
	was := rundir.CheckpointIdentity{ScenarioHash: "aaaa", ScenarioFile: "s.yaml", Binary: "b1", TargetKind: "redis", TargetURL: "redis://h:1",
		Host: "h1", MachineID: "m1", BootID: "boot1", Shard: rundir.Shard{Count: 1}}
	now := was
	now.BootID = "boot2"
	if d := identityDiff(was, now); len(d) != 0 {
		t.Errorf("a reboot is not a change: %v", d)
	}
	for _, c := range []struct {
		change func(*rundir.CheckpointIdentity)
		want   string
	}{
		{func(i *rundir.CheckpointIdentity) { i.ScenarioHash = "bbbb" }, "scenario changed (s.yaml"},
		{func(i *rundir.CheckpointIdentity) { i.Binary = "b2" }, "binary changed"},
		{func(i *rundir.CheckpointIdentity) { i.TargetURL = "redis://other:1" }, "target changed"},
		{func(i *rundir.CheckpointIdentity) { i.MachineID = "m2" }, "host changed"},
	} {
		n := was
		c.change(&n)
		if d := strings.Join(identityDiff(was, n), "; "); !strings.Contains(d, c.want) {
			t.Errorf("got %q, want %q", d, c.want)
		}
	}
}

func write(t *testing.T, dir, name, data string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestSuspendThenResume: a run whose context ends with ErrSuspended
// (a daemon stopping for a reboot) writes no summary and stays
// resumable; Run with Resume continues it to its end, with one seam and
// scheduled = completed + dropped + lost.
func TestSuspendThenResume(t *testing.T) {
	const src = `name: suspend
target: {kind: embedded}
keyspace: {records: 100}
phases:
  - {name: steady, kind: steady, rate: 100, duration: 3s, concurrency: 2, mix: {get: 100}}
`
	dir := t.TempDir()
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	go func() {
		// Suspended once the run has checkpointed in its phase.
		for ctx.Err() == nil {
			if ck, err := rundir.ReadCheckpoint(dir); err == nil && ck.Current != nil {
				cancel(ErrSuspended)
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	sum, err := Run(ctx, Options{Scenario: parse(t, src), OutDir: dir, Getenv: noEnv, NoSelfHealth: true})
	if sum != nil || !errors.Is(err, ErrSuspended) {
		t.Fatalf("suspended run: %v, %v; want no summary and ErrSuspended", sum, err)
	}
	if _, err := os.Stat(filepath.Join(dir, rundir.SummaryFile)); err == nil {
		t.Fatal("a suspended run wrote summary.json")
	}
	if _, err := Resumable(dir); err != nil {
		t.Fatalf("suspended run not resumable: %v", err)
	}
	sum, err = Run(context.Background(), Options{Scenario: parse(t, src), OutDir: dir, Getenv: noEnv, NoSelfHealth: true, Resume: true})
	if err != nil {
		t.Fatal(err)
	}
	p := sum.Phases[0]
	if len(sum.Seams) != 1 || int64(p.Scheduled) != p.Completed+p.Dropped+p.Lost || p.Scheduled != 300 {
		t.Errorf("seams %+v, scheduled %d completed %d dropped %d lost %d: want one seam, 300 = completed + dropped + lost",
			sum.Seams, p.Scheduled, p.Completed, p.Dropped, p.Lost)
	}
	if _, err := Resumable(dir); err == nil {
		t.Error("a finished run is resumable")
	}
}
