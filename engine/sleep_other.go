//go:build !linux

package engine

// newPacerSleeper returns the pacer's sleep: a Go timer elsewhere than
// Linux (millisecond steps on most systems).
func newPacerSleeper() pacerSleeper { return newTimerSleeper() }

// timerfdRefused: elsewhere than Linux the pacer is a Go timer, which
// parks like any goroutine and keeps no P while it sleeps.
func timerfdRefused() error { return nil }
