package scenarios

import (
	"fmt"
	"time"
)

// Ticks: an open-loop phase's arrivals in ticks.
//
// By default each op of an open-loop phase is intended at its own
// instant, i/rate after the phase's start, and the pacer wakes for
// each one. With tick: T the arrivals come in ticks of T instead: op i
// is intended at the start of the tick its own instant falls in, so
// about rate x T ops are due together and the pacer wakes once a tick.
// That is the arrival shape memtier_benchmark's rate limit makes (each
// connection sends its share about 50 times a second), and it costs a
// fraction of the CPU per op at modest rates. Latency still runs from
// each op's intended start, the tick's start: an op that waits behind
// the rest of its tick has that wait in its latency.

// Bounds of tick: below MinTick a tick saves no wake-ups (the pacer
// sleeps at least 100 µs); above MaxTick the arrivals are no longer a
// rate but bursts.
const (
	MinTick = Duration(time.Millisecond)
	MaxTick = Duration(time.Second)
)

// TakesTick says whether --tick (and the API's tick) sets the phase's
// tick: an open-loop phase other than a replay.
func (p *Phase) TakesTick() bool { return !p.plan().ownTiming && p.openLoop() }

// CheckTick refuses a tick outside MinTick..MaxTick (0, no tick, is
// allowed): a phase's tick and a daemon soak's.
func CheckTick(d Duration) error {
	if d != 0 && (d < MinTick || d > MaxTick) {
		return fmt.Errorf("must be %s to %s (omit it to send each op at its own instant), got %s", MinTick, MaxTick, d)
	}
	return nil
}

// validateTick checks phase p's tick.
func validateTick(pp string, p *Phase) []FieldError {
	err := CheckTick(p.Tick)
	switch {
	case p.Tick == 0:
		return nil
	case err != nil:
		return []FieldError{fieldErr(pp+".tick", "%v", err)}
	case p.plan().ownTiming:
		return []FieldError{fieldErr(pp+".tick", "a %s phase keeps its own timing (a capture's, or its fixed rate); only the other open-loop phases take tick", p.Kind)}
	case !p.openLoop():
		return []FieldError{fieldErr(pp+".tick", "tick groups an open-loop phase's arrivals; this phase runs closed loop (rate 0)")}
	}
	return nil
}
