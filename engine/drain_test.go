package engine

import (
	"context"
	"math"
	"testing"
	"testing/synctest"
	"time"

	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/targets"
)

// hangTarget takes every op and never answers: its calls end only when
// the ops' context does (the drain deadline).
type hangTarget struct{}

func (hangTarget) Do(ctx context.Context, _ *targets.Request) error {
	<-ctx.Done()
	return context.Cause(ctx)
}

func (hangTarget) Close() error { return nil }

// TestDrainDeadline, in a synctest bubble: a run cancelled at 1.002 s
// against a store that never answers waits exactly the drain deadline
// (300 ms) for its ops in flight, then counts them, and the open loop's
// queued ops, as interrupted (none as a success) and ends. Both loops'
// windows end at the cancel: it wakes the open loop's dispatcher.
func TestDrainDeadline(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		loop        string
		rate        float64
		interrupted int64
		window, end time.Duration
	}{
		// Ops 0-200 (0 to 1 s) were sent: 4 in flight, 197 queued.
		{"open", 200, 201, 1002 * time.Millisecond, 1302 * time.Millisecond},
		// One op in flight per worker.
		{"closed", 0, 4, 1002 * time.Millisecond, 1302 * time.Millisecond},
	} {
		t.Run(c.loop, func(t *testing.T) {
			sc := scenario(t, `
keyspace: {records: 100}
phases:
  - {name: s, kind: steady, rate: 1, duration: 10m, concurrency: 4, max_lag: 1h, mix: {get: 100}}
`)
			sc.Phases[0].Rate = c.rate
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancel(context.Background())
				go func() {
					time.Sleep(1002 * time.Millisecond)
					cancel()
				}()
				sum, err := Run(ctx, Options{Scenario: sc, Target: hangTarget{}, TargetKind: "fake", OutDir: t.TempDir(),
					drainDeadline: 300 * time.Millisecond, time: bubbleTime{}})
				if err != nil {
					t.Fatal(err)
				}
				if sum.Status != rundir.StatusInterrupted {
					t.Errorf("status %q, want interrupted", sum.Status)
				}
				p := sum.Phases[0]
				get := p.Ops["get"]
				if inter := get.Errors[targets.ClassInterrupted]; inter != c.interrupted || get.Count != c.interrupted || p.Errors != c.interrupted || p.Dropped != 0 {
					t.Errorf("count %d, errors %v, dropped %d: want all %d ops interrupted", get.Count, get.Errors, p.Dropped, c.interrupted)
				}
				if got := time.Duration(math.Round(p.DurationSeconds*1e6)) * time.Microsecond; got != c.window {
					t.Errorf("window %s, want %s", got, c.window)
				}
				if got := p.End.Sub(p.Start); got != c.end {
					t.Errorf("phase ended %s after its start, want %s (the cancel plus the drain deadline)", got, c.end)
				}
			})
		})
	}
}
