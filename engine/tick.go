package engine

import "time"

// Ticked is a fixed rate whose arrivals come in ticks (a phase's
// tick:): op i is intended at the start of the tick that Schedule puts
// it in, so the ops of one tick are due together and the pacer wakes
// once per tick, not once per op. Over any whole number of ticks it
// calls for the same ops as Schedule; it is pure, like Schedule.
type Ticked struct {
	Schedule
	Tick time.Duration // > 0
}

// At returns op i's intended offset: its tick's start.
func (s Ticked) At(i uint64) time.Duration {
	at := s.Schedule.At(i)
	if at == maxAt {
		return maxAt
	}
	return at - at%s.Tick
}

// Due returns how many ops are due by elapsed: every op whose own
// instant falls in a tick that has started.
func (s Ticked) Due(elapsed time.Duration) uint64 {
	if elapsed < 0 {
		return 0
	}
	end := elapsed - elapsed%s.Tick // this tick's start
	if end > maxAt-s.Tick {
		return s.Schedule.Due(maxAt)
	}
	return s.Schedule.Due(end + s.Tick - 1)
}

// Total returns the number of ops the rate calls for in [0, d):
// Schedule's, so a segment that ends inside a tick sends that tick's
// ops up to its end only, and a phase sends rate x duration ops
// whatever its tick. (Due counts by intended start: the whole tick.)
func (s Ticked) Total(d time.Duration) uint64 { return s.Schedule.Total(d) }

// Pace is Schedule's with the ticked At.
func (s Ticked) Pace(elapsed time.Duration, done, limit uint64) (wait time.Duration, stop bool) {
	return paceAt(s, elapsed, done, limit)
}
