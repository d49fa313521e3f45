//go:build !linux

package engine

import "time"

// newPacerSleeper returns the pacer's sleep: a Go timer elsewhere than
// Linux (millisecond steps on most systems).
func newPacerSleeper() pacerSleeper { return timerSleeper{} }

type timerSleeper struct{}

func (timerSleeper) sleep(d time.Duration) { time.Sleep(d) }
func (timerSleeper) close()                {}
