package scenarios

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ScheduledSeconds is how long one pass of the phase list is scheduled
// to run: steady phases' durations (or requests at the rate), ramp
// steps, one capacity probe, and growth stages' measuring (plus their
// batch inserts where load_rate paces them). It is a lower bound: load
// phases, unpaced batch inserts and the rest of a capacity search add
// to it. Defaults must have been applied.
func (s *Scenario) ScheduledSeconds() float64 {
	var t float64
	var n int64 // records in the store as the phase starts
	if len(s.Phases) == 0 || !s.Phases[0].plan().fills {
		n = s.Keyspace.Records
	}
	for i := range s.Phases {
		p := &s.Phases[i]
		if f := p.plan().scheduled; f != nil {
			var d float64
			d, n = f(p, n)
			t += d
		}
	}
	return t
}

// Warn lists what is legal but likely not what was meant; a run goes
// ahead with it. Defaults must have been applied.
//
//   - An rdb:N persistence variant whose N is longer than the phases'
//     scheduled time: Redis's `save N 1` fires N seconds after the last
//     save (the server's start), so the snapshot the variant is about may
//     never happen. The suggestion keeps about four snapshots per pass.
func (s *Scenario) Warn() []FieldError {
	var out []FieldError
	m := s.Target.Managed
	if m == nil {
		return nil
	}
	run := s.ScheduledSeconds()
	if run <= 0 {
		return nil
	}
	for i, p := range append([]string{m.Persistence}, m.Persistences...) {
		v, ok := strings.CutPrefix(p, "rdb:")
		if !ok {
			continue
		}
		secs, err := strconv.Atoi(v)
		if err != nil || float64(secs) <= run {
			continue
		}
		path := "target.managed.persistence"
		if i > 0 {
			path = fmt.Sprintf("target.managed.persistences[%d]", i-1)
		}
		scaled := max(1, int(math.Floor(run/4)))
		out = append(out, FieldError{Path: path, Msg: fmt.Sprintf(
			"warning: %s snapshots %d s after the last save, but the phases are scheduled for %.0f s per variant: the snapshot may never fire; scaled to this run, use rdb:%d",
			p, secs, run, scaled)})
	}
	return out
}

// Warnings are Warn's findings with the file and line of the field
// they are about (no line for a scenario not read from a file). Call it
// after overrides: they change the scheduled time.
func (s *Scenario) Warnings() Problems {
	fes := s.Warn()
	if len(fes) == 0 {
		return nil
	}
	if s.doc == nil {
		out := make(Problems, len(fes))
		for i, fe := range fes {
			out[i] = Problem{File: s.File, Field: fe.Path, Msg: fe.Msg}
		}
		return out
	}
	return FieldProblems(s.File, s.doc, nil, fes)
}
