package engine

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// failingTarget answers at once; of every 100 ops it sends (in the order
// they reach it) the first 47 time out and the next 10 miss (a cache
// read that found nothing: a success), the rest succeed.
type failingTarget struct{ n atomic.Int64 }

func (t *failingTarget) Do(ctx context.Context, r *targets.Request) error {
	switch k := (t.n.Add(1) - 1) % 100; {
	case k < 47:
		return context.DeadlineExceeded
	case k < 57:
		return targets.ErrMiss
	}
	return nil
}

func (t *failingTarget) Close() error { return nil }

// TestGoodputCountsSuccesses: a phase that completes every op it was
// asked for with 47% of them timing out achieves its rate but its
// goodput is the 53% that succeeded (misses succeed), per phase and per
// op; min_achieved_ratio judges the goodput, so the phase fails it; and
// summary.txt names the error class and the misses.
func TestGoodputCountsSuccesses(t *testing.T) {
	sc := scenario(t, `
keyspace: {records: 1000}
phases:
  - {name: steady, kind: steady, rate: 400, duration: 1s, concurrency: 4, max_lag: 1h, mix: {read: 50, update: 50}}
slo: {min_achieved_ratio: 0.9}
`)
	dir := t.TempDir()
	var progress strings.Builder
	sum := runWith(t, sc, &failingTarget{}, Options{OutDir: dir, Progress: &progress, Interval: 250 * time.Millisecond})
	p := sum.Phases[0]
	if p.Completed != 400 || p.Errors != 188 || p.Misses != 40 {
		t.Fatalf("completed %d, errors %d, misses %d: want 400, 188 (47%%) and 40", p.Completed, p.Errors, p.Misses)
	}
	var late, timeouts int64
	var opGood float64
	for _, o := range p.Ops {
		late += o.Late
		timeouts += o.Errors["timeout"]
		opGood += o.GoodputRate
	}
	if timeouts != 188 {
		t.Errorf("timeouts %d", timeouts)
	}
	// Successes completed in the window: the window's ops less its
	// failures. Without late ops that is exact; a late op (a busy host)
	// may be a failure or not.
	good := p.GoodputRate * p.DurationSeconds
	inWin := float64(p.CompletedInWindow - p.Errors)
	if good < inWin-0.001 || good > inWin+float64(late)+0.001 {
		t.Errorf("goodput %.1f ops/s x %.2fs = %.1f, want %.0f (+%d late)", p.GoodputRate, p.DurationSeconds, good, inWin, late)
	}
	if math.Abs(opGood-p.GoodputRate) > 1e-6 {
		t.Errorf("per-op goodput sums to %v, phase %v", opGood, p.GoodputRate)
	}
	// The share itself only without late ops: on a host busy enough to
	// make ops late, successes that completed after the window leave it
	// (the check above bounds that case exactly).
	if r := p.GoodputRate / p.AchievedRate; late == 0 && (r > 0.55 || r < 0.5) {
		t.Errorf("goodput/achieved %.3f, want ~0.53", r)
	}
	var ratio *rundir.Check
	for i, c := range p.SLO.Checks {
		if c.What == "achieved_ratio" {
			ratio = &p.SLO.Checks[i]
		}
	}
	if ratio == nil || ratio.Passed || ratio.Actual != p.GoodputRate/p.TargetRate || sum.SLO.Passed {
		t.Errorf("achieved_ratio check %+v: want goodput/target, failed", ratio)
	}
	txt, err := os.ReadFile(filepath.Join(dir, rundir.SummaryTextFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"goodput ", "errors by class: timeout 188 (47.0%); misses: read "} {
		if !strings.Contains(string(txt), want) {
			t.Errorf("summary.txt lacks %q:\n%s", want, txt)
		}
	}
	if !strings.Contains(progress.String(), " goodput ") {
		t.Errorf("progress lines lack the goodput:\n%s", progress.String())
	}
}

// TestIntervalGoodput: the progress line's and Prometheus's goodput is
// the achieved rate times the interval's share of ops that did not fail
// (3 ok, 1 miss, 1 timeout: 4 of 5).
func TestIntervalGoodput(t *testing.T) {
	classes := targets.Classes()
	idx := func(c string) uint8 {
		for i, n := range classes {
			if n == c {
				return uint8(i)
			}
		}
		t.Fatalf("no class %s", c)
		return 0
	}
	r := metrics.NewRecorder([]scenarios.Op{scenarios.OpRead})
	for _, c := range []string{"ok", "ok", "ok", "miss", "timeout"} {
		r.Record(scenarios.OpRead, 1000, 1000, 0, idx(c))
	}
	w := metrics.NewSet(nil)
	r.Drain(w)
	if g := intervalGoodput(100, w, classes); g != 80 {
		t.Errorf("goodput %v, want 80", g)
	}
	if g := intervalGoodput(100, metrics.NewSet(nil), classes); g != 100 {
		t.Errorf("no ops recorded: %v", g)
	}
}
