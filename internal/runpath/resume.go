package runpath

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/soakd/soakd/engine"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
)

// ErrSuspended, as the cause of Run's context ending
// (context.WithCancelCause), stops the run to be resumed later: Run
// writes no summary, leaves the run directory resumable (its
// checkpoint, its logs) and returns ErrSuspended. A daemon stopping
// for a reboot suspends its runs this way and resumes them when it
// starts again.
var ErrSuspended = errors.New("run suspended, to be resumed (soakd run --resume)")

// ResumeReason says why a run directory cannot be resumed.
type ResumeReason int

const (
	// ResumeFinished: the run finished (summary.json is written).
	ResumeFinished ResumeReason = iota + 1
	// ResumeNoCheckpoint: no checkpoint.json (not a run directory, a
	// run killed before its first checkpoint, or one written by a soakd
	// without resume).
	ResumeNoCheckpoint
	// ResumeLocked: another soakd process runs it (holds its lock).
	ResumeLocked
	// ResumeChanged: the scenario, binary, target or host differs from
	// the checkpoint's (ForceResume goes ahead).
	ResumeChanged
	// ResumeUnsupported: the run is at a phase kind (or a repeat or
	// variant matrix) that cannot be resumed.
	ResumeUnsupported
	// ResumeBroken: the checkpoint or the logs cannot be read or cut.
	ResumeBroken
)

// NotResumableError says why Dir cannot be resumed; PID is the lock
// holder's for ResumeLocked (0 unknown).
type NotResumableError struct {
	Dir    string
	Reason ResumeReason
	Msg    string
	PID    int
}

func (e *NotResumableError) Error() string {
	return fmt.Sprintf("resume %s: %s", e.Dir, e.Msg)
}

// Resumable says whether the killed run in dir can be resumed: its
// checkpoint and a nil error when it can, else a *NotResumableError
// (finished, no checkpoint, locked by a running soakd, at a phase that
// cannot be resumed). It does not compare the checkpoint's identity
// with a scenario: Run with Options.Resume does, and refuses a change
// unless ForceResume.
func Resumable(dir string) (*rundir.Checkpoint, error) {
	l, err := lockDirIfExists(dir)
	if err != nil {
		return nil, err
	}
	defer l.unlock()
	return resumable(dir)
}

// lockDirIfExists takes dir's lock when dir exists (else: no
// checkpoint).
func lockDirIfExists(dir string) (*dirLock, error) {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, &NotResumableError{Dir: dir, Reason: ResumeNoCheckpoint, Msg: "no such run directory"}
	}
	return lockDir(dir)
}

// resumable is Resumable with dir's lock held.
func resumable(dir string) (*rundir.Checkpoint, error) {
	if _, err := os.Stat(filepath.Join(dir, rundir.SummaryFile)); err == nil {
		return nil, &NotResumableError{Dir: dir, Reason: ResumeFinished, Msg: "the run finished (summary.json is written): a finished run cannot be resumed"}
	}
	ck, err := rundir.ReadCheckpoint(dir)
	if errors.Is(err, rundir.ErrNoCheckpoint) {
		return nil, &NotResumableError{Dir: dir, Reason: ResumeNoCheckpoint, Msg: "no " + rundir.CheckpointFile + " (not a run directory, or the run was killed before its first checkpoint)"}
	}
	if err != nil {
		return nil, &NotResumableError{Dir: dir, Reason: ResumeBroken, Msg: err.Error()}
	}
	if cur := ck.Current; cur != nil && cur.Unsupported != "" {
		return nil, &NotResumableError{Dir: dir, Reason: ResumeUnsupported, Msg: fmt.Sprintf("phase %s: %s", cur.Name, cur.Unsupported)}
	}
	return ck, nil
}

// prepareResume takes o.OutDir's lock and checks that its checkpoint
// can be resumed as a run of o.Scenario by this binary on this host:
// the checkpoint, and the lock (held until the run ends).
func prepareResume(o Options) (*rundir.Checkpoint, *dirLock, error) {
	dir := o.OutDir
	l, err := lockDirIfExists(dir)
	if err != nil {
		return nil, nil, err
	}
	ck, err := resumable(dir)
	if err != nil {
		l.unlock()
		return nil, nil, err
	}
	if diff := identityDiff(ck.Identity, currentIdentity(o)); len(diff) > 0 && !o.ForceResume {
		l.unlock()
		return nil, nil, &NotResumableError{Dir: dir, Reason: ResumeChanged, Msg: strings.Join(diff, "; ") + " (force resumes anyway)"}
	}
	if err := engine.CheckResume(o.Scenario, ck); err != nil {
		l.unlock()
		return nil, nil, &NotResumableError{Dir: dir, Reason: ResumeUnsupported, Msg: strings.TrimPrefix(err.Error(), "resume: ")}
	}
	if err := checkLogs(dir, ck); err != nil {
		l.unlock()
		return nil, nil, &NotResumableError{Dir: dir, Reason: ResumeBroken, Msg: err.Error()}
	}
	return ck, l, nil
}

// checkLogs checks that the partial logs hold what the checkpoint
// counts (a host crash can lose their unsynced tail).
func checkLogs(dir string, ck *rundir.Checkpoint) error {
	for _, x := range []struct {
		name string
		size int64
	}{{rundir.LatencyLog, ck.Logs.Latency}, {rundir.CountsFile, ck.Logs.Counts}} {
		// The running name, or the final one of a run killed after it
		// named its logs, before its summary.
		st, err := os.Stat(filepath.Join(dir, x.name+rundir.PartialSuffix))
		if errors.Is(err, os.ErrNotExist) {
			st, err = os.Stat(filepath.Join(dir, x.name))
		}
		if err != nil {
			return fmt.Errorf("%s: %w", x.name+rundir.PartialSuffix, err)
		}
		if st.Size() < x.size {
			return fmt.Errorf("%s holds %d bytes, fewer than the %d its checkpoint counts", x.name, st.Size(), x.size)
		}
	}
	return nil
}

// currentIdentity is the identity a run of o has here and now: what a
// checkpoint keeps and a resume compares.
func currentIdentity(o Options) rundir.CheckpointIdentity {
	sc := o.Scenario
	id := rundir.CheckpointIdentity{ScenarioHash: sc.Hash(), ScenarioFile: sc.File, TargetKind: string(sc.Target.Kind),
		TargetURL: scenarios.RedactURL(sc.Target.URL), Shard: o.Shard}
	if id.Shard.Count == 0 {
		id.Shard.Count = 1
	}
	id.Host, _ = os.Hostname()
	id.MachineID = readID("/etc/machine-id")
	id.BootID = readID("/proc/sys/kernel/random/boot_id")
	id.Binary = binaryHash()
	return id
}

// identityDiff names what differs between a checkpoint's identity and
// the resumer's (empty when nothing that matters does).
func identityDiff(was, now rundir.CheckpointIdentity) []string {
	var d []string
	if was.ScenarioHash != now.ScenarioHash {
		d = append(d, fmt.Sprintf("the scenario changed (%s: hash %s, the run's %s)", now.ScenarioFile, shortHash(now.ScenarioHash), shortHash(was.ScenarioHash)))
	}
	if was.Binary != "" && now.Binary != "" && was.Binary != now.Binary {
		d = append(d, fmt.Sprintf("the soakd binary changed (sha256 %s, the run's %s, version %s)", shortHash(now.Binary), shortHash(was.Binary), was.SoakdVersion))
	}
	if was.TargetKind != now.TargetKind || was.TargetURL != now.TargetURL {
		d = append(d, fmt.Sprintf("the target changed (%s %s, the run's %s %s)", now.TargetKind, now.TargetURL, was.TargetKind, was.TargetURL))
	}
	if was.Host != now.Host || (was.MachineID != "" && now.MachineID != "" && was.MachineID != now.MachineID) {
		d = append(d, fmt.Sprintf("the host changed (%s, the run's %s)", now.Host, was.Host))
	}
	if was.Shard != now.Shard {
		d = append(d, fmt.Sprintf("the shard changed (%s, the run's %s)", now.Shard, was.Shard))
	}
	return d
}

func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

func readID(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return string(bytes.TrimSpace(b))
}

// binaryHash is the sha256 of this process's executable ("" when it
// cannot be read).
func binaryHash() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	f, err := os.Open(exe)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}

// lockNew takes the lock of a new run's directory (created): a
// resumer of an earlier run there, or another run into it, is kept out.
func lockNew(dir string) (*dirLock, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("run directory: %w", err)
	}
	l, err := lockDir(dir)
	var nr *NotResumableError
	if errors.As(err, &nr) {
		return nil, fmt.Errorf("run directory %s: %s", dir, nr.Msg)
	}
	return l, err
}

// DefaultCheckpointEvery is how far apart a run's checkpoints are unless
// Options.CheckpointEvery says otherwise: a kill loses at most about 5 s
// of results, and the checkpoints cost a fifth of one a second.
const DefaultCheckpointEvery = 5 * time.Second

func checkpointEvery(d time.Duration) time.Duration {
	if d <= 0 {
		return DefaultCheckpointEvery
	}
	return d
}
