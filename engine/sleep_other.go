//go:build !linux

package engine

// newPacerSleeper returns the pacer's sleep: a Go timer elsewhere than
// Linux (millisecond steps on most systems).
func newPacerSleeper() pacerSleeper { return timerSleeper{} }
