package engine

import "github.com/soakd/soakd/scenarios"

// The kind table: each phase kind's executor. A new kind is its
// executor's file (exec_<kind>.go) and a line here.
func executorFor(k scenarios.PhaseKind) (executor, bool) {
	switch k {
	case scenarios.PhaseLoad:
		return loadExec{}, true
	case scenarios.PhaseSteady:
		return steadyExec{}, true
	case scenarios.PhaseRamp:
		return rampExec{}, true
	case scenarios.PhaseCapacity:
		return capacityExec{}, true
	case scenarios.PhaseGrowth:
		return growthExec{}, true
	case scenarios.PhaseSweep:
		return sweepExec{}, true
	case scenarios.PhaseReplay:
		return replayExec{}, true
	}
	return nil, false
}

// mustSucceed reports whether a phase of kind k fails when none of its
// ops succeeded (all but a capacity search, which passes only on a rate
// held).
func mustSucceed(k scenarios.PhaseKind) bool { return k != scenarios.PhaseCapacity }

// fillsDataset reports whether a phase of kind k puts the records in
// place (a run that starts with one starts from an empty dataset).
func fillsDataset(k scenarios.PhaseKind) bool {
	return k == scenarios.PhaseLoad || k == scenarios.PhaseGrowth
}

// resumableKind reports whether a phase of kind k can be resumed in its
// middle after a kill (resume.go): the kinds whose executors keep their
// state in the run's checkpoints.
func resumableKind(k scenarios.PhaseKind) bool {
	switch k {
	case scenarios.PhaseSteady, scenarios.PhaseLoad, scenarios.PhaseGrowth, scenarios.PhaseRamp, scenarios.PhaseReplay,
		scenarios.PhaseSweep, scenarios.PhaseCapacity:
		return true
	}
	return false
}
