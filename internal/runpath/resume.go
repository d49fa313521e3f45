package runpath

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/soakd/soakd/rundir"
)

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
// (finished, no checkpoint, locked by a running soakd). It does not
// compare the checkpoint's identity with a scenario (Run with
// Options.Resume does, and refuses a change unless ForceResume).
func Resumable(dir string) (*rundir.Checkpoint, error) {
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
	return ck, errors.New("resume: not implemented yet")
}
