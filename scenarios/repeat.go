package scenarios

import (
	"fmt"
	"time"
)

// MaxRepeat bounds repeat: (and --repeat). Each repeat is a short slice
// of a phase; past a few dozen the slices are too short to measure.
const MaxRepeat = 100

// MinRoundDuration is the shortest round a timed phase may be split
// into: below it a round is mostly its workers starting and stopping.
const MinRoundDuration = 10 * time.Millisecond

// Interleave is the order the variants (persistence variants, sweep
// points) run in within each round of a repeated phase: the YAML
// interleave:.
type Interleave string

// Interleave orders.
const (
	// InterleaveRandom shuffles the variants anew in every round, from
	// the scenario's seed (randomized multiple interleaved trials).
	InterleaveRandom Interleave = "random"
	// InterleaveAlternate runs them in the same order every round:
	// ABAB...
	InterleaveAlternate Interleave = "alternate"
)

var interleaves = newEnum("order", InterleaveRandom, InterleaveAlternate)

// Interleaves lists the orders in the order messages name them.
func Interleaves() []Interleave { return interleaves.List() }

// Repeats is how many rounds a repeated phase runs in (repeat:, at
// least 1).
func (s *Scenario) Repeats() int {
	return max(1, s.Repeat)
}

// Repeated says whether phase p is split into rounds when the scenario
// has repeat: N > 1: steady phases and sweeps that measure throughput
// (closed or rate). Load, ramp, capacity and growth phases run once per
// variant.
func (p *Phase) Repeated() bool {
	f := p.plan().repeated
	return f != nil && f(p)
}

// RepeatSlice is phase p as round r (0-based) of n runs it: its
// requests, duration and warmup divided among the rounds, so repeat: N
// costs the time of one pass and every round is short. The requests are
// split so the rounds add up to the phase's exactly.
func (p Phase) RepeatSlice(r, n int) Phase {
	if n <= 1 {
		return p
	}
	if p.Requests > 0 {
		q, rem := p.Requests/int64(n), p.Requests%int64(n)
		p.Requests = q
		if int64(r) < rem {
			p.Requests++
		}
	}
	p.Duration /= Duration(n)
	p.Warmup /= Duration(n)
	return p
}

// validateRepeat checks repeat: and interleave:.
func (s *Scenario) validateRepeat() []FieldError {
	var errs []FieldError
	add := func(path, format string, args ...any) {
		errs = append(errs, FieldError{Path: path, Msg: fmt.Sprintf(format, args...)})
	}
	if s.Interleave != "" && !interleaves.Valid(s.Interleave) {
		_, err := interleaves.Parse(string(s.Interleave))
		add("interleave", "%v", err)
	}
	if s.Repeat < 0 || s.Repeat > MaxRepeat {
		add("repeat", "must be between 1 and %d, got %d", MaxRepeat, s.Repeat)
		return errs
	}
	return append(errs, s.CheckRepeat(s.Repeats())...)
}

// CheckRepeat checks that the scenario can run its repeated phases in n
// rounds: every round of a phase bounded by requests gets at least one,
// a timed round lasts at least MinRoundDuration, and no
// growth phase shares the host with the other variants' servers (with
// repeats all of a run's persistence variants stay up at once).
func (s *Scenario) CheckRepeat(n int) []FieldError {
	if n <= 1 {
		return nil
	}
	var errs []FieldError
	for i, p := range s.Phases {
		pp := fmt.Sprintf("phases[%d]", i)
		if f := p.plan().checkRepeat; f != nil {
			errs = append(errs, f(s, &p, pp, n)...)
		}
		if !p.Repeated() {
			continue
		}
		if p.Requests > 0 && p.Requests < int64(n) {
			errs = append(errs, FieldError{pp + ".requests", fmt.Sprintf("%d requests cannot be split into %d repeats (each repeat runs requests/repeat)", p.Requests, n)})
		}
		if p.Duration > 0 && p.Duration.D()/time.Duration(n) < MinRoundDuration {
			errs = append(errs, FieldError{pp + ".duration", fmt.Sprintf("%s split into %d repeats is under %s a repeat (each repeat runs duration/repeat)", p.Duration.D(), n, MinRoundDuration)})
		}
	}
	return errs
}
