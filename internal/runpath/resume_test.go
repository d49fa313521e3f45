package runpath

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

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
