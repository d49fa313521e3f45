package engine

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/soakd/soakd/internal/testutil"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/targets"
	_ "github.com/soakd/soakd/targets/redis"
)

// TestCancelDrainDeadline: with a store that accepts and never answers
// and a read timeout of minutes, a cancelled run ends at the drain
// deadline instead of the timeout: every op in flight (one per worker)
// and every op queued is counted as interrupted, an error class, none
// as a success, and the summary is written with status interrupted.
func TestCancelDrainDeadline(t *testing.T) {
	addr, gets := testutil.HangingRESP(t)
	for _, loop := range []string{"open", "closed"} {
		t.Run(loop, func(t *testing.T) {
			gets.Store(0)
			rate := "rate: 200, "
			if loop == "closed" {
				rate = ""
			}
			sc := scenario(t, fmt.Sprintf(`
name: hang
target: {kind: redis, url: "redis://%s", client: {read_timeout: 4m, write_timeout: 4m}}
keyspace: {records: 100}
phases:
  - {name: s, kind: steady, %sduration: 10m, concurrency: 4, mix: {get: 100}}
`, addr, rate))
			tg, err := targets.Open(context.Background(), sc.Target, targets.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer tg.Close()
			ctx, cancel := context.WithCancel(context.Background())
			type result struct {
				sum *rundir.Summary
				err error
			}
			done := make(chan result, 1)
			go func() {
				sum, err := Run(ctx, Options{Scenario: sc, Target: tg, TargetKind: "redis", OutDir: t.TempDir(), drainDeadline: 300 * time.Millisecond})
				done <- result{sum, err}
			}()
			// Cancel once the phase runs and its 4 workers are stuck,
			// each with a GET the store took.
			for deadline := time.Now().Add(30 * time.Second); gets.Load() < 4; time.Sleep(10 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("%d GETs reached the store, want one per worker", gets.Load())
				}
			}
			cancel()
			var res result
			select {
			case res = <-done:
			case <-time.After(60 * time.Second):
				t.Fatal("the cancelled run did not end: in-flight ops held it past the drain deadline")
			}
			if res.sum == nil {
				t.Fatalf("no summary: %v", res.err)
			}
			if res.sum.Status != rundir.StatusInterrupted {
				t.Errorf("status %q, want interrupted", res.sum.Status)
			}
			if len(res.sum.Phases) != 1 {
				t.Fatalf("%d phases", len(res.sum.Phases))
			}
			get := res.sum.Phases[0].Ops["get"]
			inter := get.Errors[targets.ClassInterrupted]
			// Each of the 4 workers had one op in flight; the open loop
			// also had ops queued behind them.
			if inter < 4 {
				t.Errorf("%d ops counted interrupted, want at least the 4 in flight; errors %v", inter, get.Errors)
			}
			if loop == "closed" && inter != 4 {
				t.Errorf("closed loop: %d interrupted, want exactly the 4 in flight", inter)
			}
			var errs int64
			for _, n := range get.Errors {
				errs += n
			}
			if get.Count != errs || errs != inter {
				t.Errorf("count %d, errors %v: every op should be an interrupted error (none answered)", get.Count, get.Errors)
			}
		})
	}
}
