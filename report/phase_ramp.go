package report

// Ramp phases: their steps charted per stage (HTML); each step's line
// in summary.txt is a stage line like any staged phase's.

import "github.com/soakd/soakd/rundir"

// rampSection is a ramp phase's per-step charts.
func rampSection(p *rundir.PhaseResult) (notes []string, plots []Plot) {
	if len(p.Stages) == 0 {
		return nil, nil
	}
	return nil, stagePlots(p, false)
}
