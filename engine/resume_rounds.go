package engine

import "github.com/soakd/soakd/scenarios"

// Resuming a run with repeat: N > 1 (runRounds): each round of a
// repeated phase, and each phase run once, is a unit of the run whose
// result the checkpoint keeps when it ends (its Done list, in the order
// the units run), so a resumed run skips the units finished and goes
// on with the one it was killed in, in its round (its name says which:
// PhaseLabel). A run of several variants (persistences, several
// targets) is not resumable at all yet: its servers would start again
// empty; its checkpoints say so, between phases too.

// rounds is where a resumed run with rounds starts: the units finished
// before the kill, and the label of the one it was killed in ("": the
// kill came between two).
func (rs *resumeState) rounds() (done int, mid string) {
	if rs == nil {
		return 0, ""
	}
	if rs.mid {
		mid = rs.ck.Current.Name
	}
	return len(rs.ck.Done), mid
}

// runUnits is how many phases and rounds a run of sc (one variant)
// runs: a repeated phase once per round.
func runUnits(sc *scenarios.Scenario) int {
	n := 0
	for i := range sc.Phases {
		n += phaseRounds(sc, i)
	}
	return n
}

// phaseRounds is how many times phase pi of sc runs: its rounds, or once.
func phaseRounds(sc *scenarios.Scenario, pi int) int {
	if n := sc.Repeats(); n > 1 && sc.Phases[pi].Repeated() {
		return n
	}
	return 1
}

// runsAs says whether phase pi of sc runs under name: its own, or a
// round's (name#k).
func runsAs(sc *scenarios.Scenario, pi int, name string) bool {
	ph := &sc.Phases[pi]
	if phaseRounds(sc, pi) == 1 {
		return ph.Name == name
	}
	for k := 1; k <= phaseRounds(sc, pi); k++ {
		if PhaseLabel(ph.Name, "", k) == name {
			return true
		}
	}
	return false
}
