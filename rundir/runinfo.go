package rundir

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/soakd/soakd/scenarios"
)

// RunInfoFile is what a run says about itself at its start, so a run
// killed before its summary.json can still be told apart: its
// scenario, target (redacted), shard and each phase's kind.
const RunInfoFile = "run.json"

// RunInfo is run.json.
type RunInfo struct {
	Scenario     string      `json:"scenario"`
	ScenarioFile string      `json:"scenario_file,omitempty"`
	Target       TargetInfo  `json:"target"`
	Shard        Shard       `json:"shard"`
	Start        time.Time   `json:"start"`
	Phases       []PhaseInfo `json:"phases"`
}

// PhaseInfo is one phase of the scenario as configured.
type PhaseInfo struct {
	Name string              `json:"name"`
	Kind scenarios.PhaseKind `json:"kind"`
}

// WriteRunInfo writes run.json atomically.
func WriteRunInfo(dir string, ri *RunInfo) error {
	js, err := json.MarshalIndent(ri, "", "  ")
	if err != nil {
		return err
	}
	return WriteFileAtomic(filepath.Join(dir, RunInfoFile), append(js, '\n'))
}

// ReadRunInfo reads run.json.
func ReadRunInfo(dir string) (*RunInfo, error) {
	data, err := os.ReadFile(filepath.Join(dir, RunInfoFile))
	if err != nil {
		return nil, err
	}
	var ri RunInfo
	if err := json.Unmarshal(data, &ri); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, RunInfoFile), err)
	}
	return &ri, nil
}

// KindOf is the kind of the phase named phase (a persistence variant's
// "name[variant]" is its phase's); false when run.json has no such
// phase.
func (ri *RunInfo) KindOf(phase string) (scenarios.PhaseKind, bool) {
	if i := strings.IndexByte(phase, '['); i > 0 && strings.HasSuffix(phase, "]") {
		phase = phase[:i]
	}
	for _, p := range ri.Phases {
		if p.Name == phase {
			return p.Kind, true
		}
	}
	return "", false
}
