package engine

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// bubbleTime is the engine's time inside a testing/synctest bubble: the
// bubble's fake clock (time.Now, timers and tickers are its there) and
// a pacer that sleeps on a Go timer, which the bubble sees (a timerfd
// read it does not: its fake time would never move).
type bubbleTime struct{ wallTime }

func (bubbleTime) pacer() pacerSleeper { return newTimerSleeper() }

// runInBubble runs sc against tg in a synctest bubble: every sleep, the
// pacer's and a fake target's service time, is on the bubble's clock,
// so the run takes no wall time and its figures are exact.
func runInBubble(t *testing.T, sc *scenarios.Scenario, tg targets.Target, o Options) *rundir.Summary {
	t.Helper()
	var sum *rundir.Summary
	synctest.Test(t, func(t *testing.T) {
		o.Scenario, o.Target, o.time = sc, tg, bubbleTime{}
		if o.TargetKind == "" {
			o.TargetKind = "fake"
		}
		if o.OutDir == "" {
			o.OutDir = t.TempDir()
		}
		var err error
		if sum, err = runWritten(context.Background(), o); err != nil {
			t.Fatal(err)
		}
	})
	return sum
}
