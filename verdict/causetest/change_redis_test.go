package causetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/soakd/soakd/engine"
	"github.com/soakd/soakd/internal/testutil"
	"github.com/soakd/soakd/report"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
	redistarget "github.com/soakd/soakd/targets/redis"
)

// TestChangePointExplainedOnRealRun: a real run whose redis-server
// begins to DEBUG SLEEP (20 ms every ~20 ms, from a side client) halfway
// through: the latency change points up after that are explained as
// server work by the run's own server log (report.FinishRun), the
// server's busy share before and after in the explanation.
func TestChangePointExplainedOnRealRun(t *testing.T) {
	testutil.NeedTool(t, "redis-server")
	quiet := procRoot(t, false)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv, err := redistarget.StartServer(ctx, redistarget.ServerConfig{Dir: t.TempDir(), Persistence: "none", Args: []string{"--enable-debug-command", "yes"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Stop() })
	adm := adminOf(t, ctx, srv.URL())
	sc, err := scenarios.Parse("change.yaml", []byte(fmt.Sprintf(`
name: change
target: {kind: redis, url: %s}
keyspace: {records: 1000}
phases:
  - {name: steady, kind: steady, rate: 400, duration: 10s, warmup: 500ms, concurrency: 16, mix: {get: 100}}
`, srv.URL())))
	if err != nil {
		t.Fatal(err)
	}
	// The detector misses a change now and then on a busy host (its power
	// is measured in docs/change-points.md); what is tested here is the
	// label of the changes it finds, so a run without one is tried again.
	for attempt := 1; ; attempt++ {
		found, at := changeRun(t, ctx, sc, adm, quiet)
		if found > 0 {
			return
		}
		if attempt == 3 {
			t.Fatalf("no p50/p99 change point up after the sleeps began (+%.1fs) in %d runs", at, attempt)
		}
	}
}

// changeRun runs sc with the sleeps from its middle and checks the label
// of each latency change up after they began; it returns how many there
// were and when the sleeps began (seconds into the phase).
func changeRun(t *testing.T, ctx context.Context, sc *scenarios.Scenario, adm *admin, quiet string) (int, float64) {
	t.Helper()
	tg, err := targets.Open(ctx, sc.Target, targets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	var slowFrom time.Time // set before done closes
	stopAt, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		select {
		case <-time.After(5 * time.Second): // the injection's schedule: from the phase's middle
		case <-stopAt:
			return
		}
		slowFrom = time.Now()
		for {
			select {
			case <-stopAt:
				return
			default:
			}
			_ = adm.do(ctx, "DEBUG", "SLEEP", "0.02")
			sleepCtx(ctx, 20*time.Millisecond)
		}
	}()
	dir := t.TempDir()
	sum, err := engine.Run(ctx, engine.Options{Scenario: sc, Target: tg, TargetKind: "redis", OutDir: dir, Interval: 200 * time.Millisecond, SelfHealthRoot: quiet})
	close(stopAt)
	<-done
	if err != nil {
		t.Fatal(err)
	}
	if err := report.FinishRun(dir, sum, 200*time.Millisecond, nil); err != nil {
		t.Fatal(err)
	}
	// The first change up of each metric after the sleeps began is
	// theirs; a later one inside the slowed stretch (a loaded host's
	// own step, from 0.9 to 1.3 ms at p50 in one CI run, with the
	// server's busy share flat) is not theirs to explain, so only the
	// first is held to the label.
	found := 0
	first := map[string]bool{}
	for _, c := range sum.Phases[0].ChangePoints {
		t.Logf("%s", report.ChangeLine(c))
		if c.Explain == nil {
			t.Fatalf("change point without an explanation: %+v", c)
		}
		// Two intervals' slack for where the detector places the change;
		// a shift a second before the sleeps (a busy host's own) is not
		// theirs to explain.
		if (c.Metric != rundir.MetricP50 && c.Metric != rundir.MetricP99) || !c.Up() || c.At.Before(slowFrom.Add(-400*time.Millisecond)) {
			continue
		}
		t.Logf("%s: %s: %s", report.ChangeLine(c), c.Explain.Cause, c.Explain.Why)
		if first[c.Metric] {
			continue
		}
		first[c.Metric] = true
		found++
		if c.Explain.Cause != rundir.CauseServer {
			t.Errorf("change at +%.1fs labelled %s, want %s", c.OffsetSeconds, c.Explain.Cause, rundir.CauseServer)
		}
	}
	return found, slowFrom.Sub(sum.Phases[0].Start).Seconds()
}
