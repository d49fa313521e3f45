package rundir

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// CheckpointFile is where a running run keeps its position (written
// atomically each interval, at least every 10 s) so that run --resume
// can continue it after a kill. A finished run keeps it: summary.json
// beside it says the run cannot be resumed.
const CheckpointFile = "checkpoint.json"

// CheckpointVersion is the checkpoint's format; a checkpoint of another
// version is not resumed.
const CheckpointVersion = 1

// Checkpoint is checkpoint.json: what a killed run needs to continue.
// Its figures and log offsets are taken at one collector flush, after
// the logs were written, so they agree: the logs are cut back to the
// offsets on resume, and what they held beyond them is lost, never
// counted twice.
type Checkpoint struct {
	Version int `json:"version"`
	// Written is when the checkpoint was taken: a resume's Seam.Down.
	Written  time.Time          `json:"written"`
	Identity CheckpointIdentity `json:"identity"`
	// Recipe is what the caller that started the run needs to rebuild
	// its scenario (the CLI's scenario file and overrides; the daemon's
	// soak name), in the caller's own format; rundir does not read it.
	Recipe json.RawMessage `json:"recipe,omitempty"`
	// Start is the run's start (summary.json's start).
	Start time.Time `json:"start"`
	// Seams are the resumes before this checkpoint.
	Seams []Seam `json:"seams,omitempty"`
	// Logs are latency.hlog.partial's and counts.csv.partial's sizes
	// when the checkpoint was taken.
	Logs CheckpointLogs `json:"logs"`
	// Done are the phases finished before the current one, as the
	// summary holds them (before the run's verdict), with their measured
	// histograms.
	Done []CheckpointPhase `json:"done,omitempty"`
	// StageHists are the stages' histograms kept so far for
	// histograms.hlog (the engine's encoding).
	StageHists []byte `json:"stage_hists,omitempty"`
	// Current is the phase running when the checkpoint was taken; nil
	// between phases.
	Current *CheckpointCurrent `json:"current,omitempty"`
	// Inserted is the run's record count (load and growth advance it).
	Inserted int64 `json:"inserted"`
	// Barrier is the last phase barrier the run arrived at (a sharded
	// run): a resume killed while waiting there waits again without
	// arriving twice.
	Barrier string `json:"barrier,omitempty"`
	// RateChanges are the live rate changes applied so far, in order
	// (summary.json's rate_changes at the run's end).
	RateChanges []CheckpointRateChange `json:"rate_changes,omitempty"`
}

// CheckpointRateChange is a live rate change applied before the
// checkpoint: in which phase and stage, when, the new rate and the one
// it replaced.
type CheckpointRateChange struct {
	Phase    string    `json:"phase"`
	Stage    string    `json:"stage,omitempty"`
	At       time.Time `json:"at"`
	Rate     float64   `json:"rate"`
	FromRate float64   `json:"from_rate,omitempty"`
}

// CheckpointIdentity is what a resume compares with the run it would
// continue: a difference is refused unless forced.
type CheckpointIdentity struct {
	ScenarioHash string `json:"scenario_hash"`
	ScenarioFile string `json:"scenario_file,omitempty"`
	SoakdVersion string `json:"soakd_version"`
	// Binary is the sha256 of the soakd executable that wrote it ("" when
	// it could not be read).
	Binary     string `json:"binary,omitempty"`
	TargetKind string `json:"target_kind"`
	TargetURL  string `json:"target_url"` // redacted
	Host       string `json:"host"`
	// MachineID is /etc/machine-id (the host across reboots); BootID
	// tells a reboot apart (not compared).
	MachineID string `json:"machine_id,omitempty"`
	BootID    string `json:"boot_id,omitempty"`
	Shard     Shard  `json:"shard"`
}

// CheckpointLogs are the partial logs' sizes at a checkpoint.
type CheckpointLogs struct {
	Latency int64 `json:"latency"`
	Counts  int64 `json:"counts"`
}

// CheckpointPhase is a finished phase: its result and its measured
// histograms (the engine's encoding), which the SLO verdict and
// histograms.hlog need at the run's end.
type CheckpointPhase struct {
	Result PhaseResult `json:"result"`
	Hists  []byte      `json:"hists,omitempty"`
}

// CheckpointCurrent is the running phase: which it is and how far it
// got. Segment is the running segment's state; Phase holds the kind's
// own state (the growth stages finished, records), in the engine's
// encoding.
type CheckpointCurrent struct {
	Index int    `json:"index"` // in the scenario's phases
	Name  string `json:"name"`
	Kind  string `json:"kind"`
	// Start is the phase's start.
	Start time.Time `json:"start"`
	Stage string    `json:"stage,omitempty"`
	// Unsupported says why the phase cannot be resumed where it is
	// ("" when it can): its kind, or its mode, keeps no resumable state.
	Unsupported string          `json:"unsupported,omitempty"`
	Segment     json.RawMessage `json:"segment,omitempty"`
	Phase       json.RawMessage `json:"phase,omitempty"`
}

// WriteCheckpoint writes dir's checkpoint atomically.
func WriteCheckpoint(dir string, c *Checkpoint) error {
	js, err := json.Marshal(c)
	if err != nil {
		return err
	}
	return WriteFileAtomic(filepath.Join(dir, CheckpointFile), js)
}

// ErrNoCheckpoint: the run directory has no checkpoint (not a run dir,
// or a run killed before its first interval, or written by a soakd
// without resume).
var ErrNoCheckpoint = errors.New("no checkpoint")

// ReadCheckpoint reads dir's checkpoint (ErrNoCheckpoint when there is
// none).
func ReadCheckpoint(dir string) (*Checkpoint, error) {
	path := filepath.Join(dir, CheckpointFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, ErrNoCheckpoint
	}
	if err != nil {
		return nil, err
	}
	var c Checkpoint
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if c.Version != CheckpointVersion {
		return nil, fmt.Errorf("%s: checkpoint version %d (this soakd resumes version %d)", path, c.Version, CheckpointVersion)
	}
	return &c, nil
}
