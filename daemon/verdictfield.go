package daemon

import "github.com/soakd/soakd/rundir"

// setVerdict sets e's verdict from its run's summary. A run that ended
// early (stopped, its managed server died, a barrier timed out) was not
// judged whole: its summary's SLO verdict is false for that reason
// alone, which the run list must not show as a failed SLO. Such a run
// gets checks_passed (whether the checks on what it measured held) and
// slo_passed only when one of them failed; state interrupted says the
// rest.
func setVerdict(e *Entry, s *rundir.Summary) {
	e.SLOPassed, e.ChecksPassed = nil, nil
	if s.Status != rundir.StatusInterrupted {
		p := s.SLO.Passed
		e.SLOPassed = &p
		return
	}
	if len(s.SLO.Checks) == 0 {
		return // nothing was judged
	}
	held := true
	for _, c := range s.SLO.Checks {
		held = held && c.Passed
	}
	e.ChecksPassed = &held
	if !held {
		e.SLOPassed = &held
	}
}
