package engine

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/soakd/soakd/report"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/targets"
	redistarget "github.com/soakd/soakd/targets/redis"
)

// TestRunFindsRedisSlowedMidRun: a real redis-server made slower halfway
// through a steady phase (DEBUG SLEEP of 50 ms every 60 ms from 7 s on)
// is reported as a latency change point up within two seconds of when
// the sleeps began. The shift is the server's, many times the noise of
// a busy host, and the timing is read from the run's own clock.
func TestRunFindsRedisSlowedMidRun(t *testing.T) {
	needRedis(t)
	sc := scenario(t, `
name: redis-shift
target: {kind: redis, managed: {persistence: none, args: ["--enable-debug-command", "yes"]}}
keyspace: {records: 1000}
phases:
  - {name: steady, kind: steady, rate: 400, duration: 14s, warmup: 1s, concurrency: 16, mix: {get: 100}}
`)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	tg, err := targets.Open(ctx, sc.Target, targets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	cl := tg.(*redistarget.Target).Client()
	var slowFrom time.Time
	done := make(chan struct{})
	stop := make(chan struct{})
	go func() {
		defer close(done)
		select {
		case <-time.After(7 * time.Second):
		case <-stop:
			return
		}
		slowFrom = time.Now()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if err := cl.Do(ctx, "DEBUG", "SLEEP", "0.05").Err(); err != nil {
				t.Errorf("DEBUG SLEEP: %v", err)
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	dir := t.TempDir()
	sum, err := runWritten(ctx, Options{Scenario: sc, Target: tg, TargetKind: "redis", OutDir: dir, Interval: 100 * time.Millisecond})
	close(stop)
	<-done
	if err != nil {
		t.Fatal(err)
	}
	p := sum.Phases[0]
	want := slowFrom.Sub(p.Start).Seconds()
	found := false
	for _, c := range p.ChangePoints {
		t.Log(report.ChangeLine(c))
		if (c.Metric == rundir.MetricP50 || c.Metric == rundir.MetricP99) && c.After > 1.5*c.Before && math.Abs(c.OffsetSeconds-want) <= 2 {
			found = true
		}
	}
	if !found {
		logSeries(t, dir, sum)
		t.Fatalf("no p50/p99 change point up near +%.1fs (the DEBUG SLEEPs began then)", want)
	}
}
