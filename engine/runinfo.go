package engine

import (
	"time"

	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
)

// runInfo is what the run writes to run.json at its start: enough for
// a killed run's reader to name its scenario, target and phase kinds.
func runInfo(sc *scenarios.Scenario, o Options, start time.Time) *rundir.RunInfo {
	ri := &rundir.RunInfo{Scenario: sc.Name, ScenarioFile: sc.File, Shard: o.Shard, Start: start.UTC(),
		Target: rundir.TargetInfo{Kind: string(o.TargetKind), URL: scenarios.RedactURL(o.TargetURL)}}
	for _, p := range sc.Phases {
		ri.Phases = append(ri.Phases, rundir.PhaseInfo{Name: p.Name, Kind: p.Kind})
	}
	return ri
}
