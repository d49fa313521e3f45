package engine

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/soakd/soakd/rundir"
)

// TestCheckpointEvery: with CheckpointConfig.Every a segment's
// checkpoints are that far apart, not one each interval: a 4 s steady
// phase at 250 ms intervals with Every 1 s gets about four (0: sixteen).
func TestCheckpointEvery(t *testing.T) {
	sc := scenario(t, `
keyspace: {records: 100}
phases:
  - {name: steady, kind: steady, rate: 200, duration: 4s, concurrency: 4, mix: {read: 100}}
`)
	for _, tc := range []struct {
		every    time.Duration
		min, max int
	}{{time.Second, 3, 5}, {0, 12, 16}} {
		synctest.Test(t, func(t *testing.T) {
			dir := t.TempDir()
			done := make(chan struct{})
			var written []time.Time
			go func() {
				for {
					select {
					case <-done:
						return
					case <-time.After(50 * time.Millisecond):
					}
					ck, err := rundir.ReadCheckpoint(dir)
					if err != nil || ck.Current == nil || ck.Current.Name != "steady" || ck.Current.Segment == nil {
						continue
					}
					if n := len(written); n == 0 || !ck.Written.Equal(written[n-1]) {
						written = append(written, ck.Written)
					}
				}
			}()
			o := Options{Scenario: sc, Target: &recordingTarget{service: time.Millisecond}, TargetKind: "fake", OutDir: dir,
				Interval: 250 * time.Millisecond, time: bubbleTime{}, Checkpoint: &CheckpointConfig{Every: tc.every}}
			if _, err := Run(context.Background(), o); err != nil {
				t.Fatal(err)
			}
			close(done)
			synctest.Wait()
			if len(written) < tc.min || len(written) > tc.max {
				t.Errorf("every %v: %d checkpoints in the 4 s phase, want %d..%d", tc.every, len(written), tc.min, tc.max)
			}
			for i := 1; i < len(written) && tc.every > 0; i++ {
				if gap := written[i].Sub(written[i-1]); gap < tc.every {
					t.Errorf("every %v: checkpoints %v apart", tc.every, gap)
				}
			}
		})
	}
}
