package engine

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/report"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// shiftTarget serves every op in a fixed time that changes, at
// shiftAfter after its first op, from before to after.
type shiftTarget struct {
	before, after, shiftAfter time.Duration

	once    sync.Once
	shiftAt time.Time
}

func (t *shiftTarget) Do(ctx context.Context, r *targets.Request) error {
	t.once.Do(func() { t.shiftAt = time.Now().Add(t.shiftAfter) })
	if t.after != t.before && !time.Now().Before(t.shiftAt) {
		time.Sleep(t.after)
	} else {
		time.Sleep(t.before)
	}
	return nil
}

func (t *shiftTarget) Close() error { return nil }

// TestRunReportsLatencyShift: a run whose store gets slower halfway
// reports a latency change point at the shift, in summary.json and
// summary.txt; the same run without the shift reports no change point
// at all. The runs are in a synctest bubble and the service times a
// fake's, so the shift is known exactly and the series hold nothing
// else: the change point is at the shift's 100 ms interval.
func TestRunReportsLatencyShift(t *testing.T) {
	t.Parallel()
	sc := scenario(t, `
target: {kind: embedded}
keyspace: {records: 1000}
phases:
  - {name: steady, kind: steady, rate: 400, duration: 8s, warmup: 1s, concurrency: 16, mix: {get: 100}}
`)
	run := func(tg *shiftTarget) (*rundir.Summary, string) {
		dir := t.TempDir()
		return runInBubble(t, sc, tg, Options{OutDir: dir, Interval: 100 * time.Millisecond}), dir
	}

	tg := &shiftTarget{before: time.Millisecond, after: 8 * time.Millisecond, shiftAfter: 4500 * time.Millisecond}
	sum, dir := run(tg)
	p := sum.Phases[0]
	want := tg.shiftAt.Sub(p.Start).Seconds()
	found := false
	for _, c := range p.ChangePoints {
		t.Log(report.ChangeLine(c))
		if c.Metric == rundir.MetricP50 && math.Abs(c.OffsetSeconds-want) < 0.1 && math.Abs(c.After/c.Before-8) < 0.05 {
			found = true
		}
	}
	if !found {
		logSeries(t, dir, sum)
		t.Fatalf("no p50 change point 1ms -> 8ms at +%.1fs", want)
	}
	js, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Phases []struct {
			ChangePoints []map[string]any `json:"change_points"`
		} `json:"phases"`
	}
	if err := json.Unmarshal(js, &back); err != nil || len(back.Phases) != 1 || len(back.Phases[0].ChangePoints) != len(p.ChangePoints) {
		t.Fatalf("summary.json change_points: %v %s", err, js)
	}
	for _, k := range []string{"op", "metric", "offset_seconds", "at", "before", "after", "p_value", "kind", "before_spread", "after_spread"} {
		if _, ok := back.Phases[0].ChangePoints[0][k]; !ok {
			t.Errorf("summary.json change point has no %s", k)
		}
	}
	txt, _ := os.ReadFile(filepath.Join(dir, "summary.txt"))
	if !strings.Contains(string(txt), "change: get p50 at +") {
		t.Errorf("summary.txt has no change line:\n%s", txt)
	}

	// Without the shift: no change point in any metric.
	sum, dir = run(&shiftTarget{before: time.Millisecond, after: time.Millisecond})
	for _, c := range sum.Phases[0].ChangePoints {
		logSeries(t, dir, sum)
		t.Errorf("steady run: %s", report.ChangeLine(c))
	}
}

// logSeries logs the per-interval series a run's change points came from.
func logSeries(t *testing.T, dir string, sum *rundir.Summary) {
	tl, err := report.ReadTimeline(dir, sum)
	if err != nil {
		t.Log(err)
		return
	}
	p := sum.Phases[0]
	for _, tp := range tl.Phases[p.Name]["get"] {
		t.Logf("+%.1fs %d ops p50 %s p99 %s", tp.At.Sub(p.Start).Seconds(), tp.Count, rundir.FormatSeconds(tp.P50), rundir.FormatSeconds(tp.P99))
	}
}

// errorTarget serves every op in 1 ms; from shiftAfter after its first
// op on, 3 of every 10 ops fail.
type errorTarget struct {
	shiftAfter time.Duration
	failing    bool

	once    sync.Once
	shiftAt time.Time
	n       atomic.Int64
}

func (t *errorTarget) Do(ctx context.Context, r *targets.Request) error {
	t.once.Do(func() { t.shiftAt = time.Now().Add(t.shiftAfter) })
	time.Sleep(time.Millisecond)
	if t.failing && !time.Now().Before(t.shiftAt) && t.n.Add(1)%10 < 3 {
		return errors.New("injected failure")
	}
	return nil
}

func (t *errorTarget) Close() error { return nil }

// TestRunReportsErrorRatioShift: a store that starts failing 30% of ops
// halfway gives one error_ratio change point up (0 -> 0.3) at the first
// interval of counts.csv holding errors, which ends after the failures
// began, at their 100 ms interval (the runs are in a synctest bubble);
// counts.csv's errors are exactly the summary's, and
// soakd_change_points counts the change. The same run without failures
// gives no error_ratio change point.
func TestRunReportsErrorRatioShift(t *testing.T) {
	t.Parallel()
	sc := scenario(t, `
target: {kind: embedded}
keyspace: {records: 1000}
phases:
  - {name: steady, kind: steady, rate: 400, duration: 12s, warmup: 1s, concurrency: 16, mix: {get: 100}}
`)
	exp := metrics.NewExporter(sc.Name, "0", targets.Classes(), nil)
	run := func(tg *errorTarget) (*rundir.Summary, string) {
		dir := t.TempDir()
		return runInBubble(t, sc, tg, Options{OutDir: dir, Interval: 100 * time.Millisecond, Exporter: exp}), dir
	}

	tg := &errorTarget{shiftAfter: 6500 * time.Millisecond, failing: true}
	sum, dir := run(tg)
	// soakd_change_points{metric="error_ratio",direction="up"} is 1.
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(exp)
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var gauge float64
	for _, f := range fams {
		if f.GetName() != "soakd_change_points" {
			continue
		}
		for _, m := range f.GetMetric() {
			l := map[string]string{}
			for _, lp := range m.GetLabel() {
				l[lp.GetName()] = lp.GetValue()
			}
			if l["metric"] == rundir.MetricErrorRatio && l["direction"] == "up" && l["op"] == "get" && l["phase"] == "steady" {
				gauge += m.GetGauge().GetValue()
			}
		}
	}
	if gauge != 1 {
		t.Errorf(`soakd_change_points{metric="error_ratio",direction="up"} = %v, want 1`, gauge)
	}
	p := sum.Phases[0]
	// soakd_change_point_time_seconds{n="1"} is that change point's time
	// (the dashboards' annotation).
	for _, c := range p.ChangePoints {
		if c.Metric != rundir.MetricErrorRatio || !c.Up() {
			continue
		}
		at, ok := metricValue(t, fams, "soakd_change_point_time_seconds", map[string]string{
			"phase": "steady", "op": "get", "metric": c.Metric, "direction": "up", "n": "1"})
		if !ok || at != float64(c.At.UnixNano())/1e9 {
			t.Errorf("soakd_change_point_time_seconds = %v (%v), want %v", at, ok, c.At)
		}
	}
	counts, err := rundir.ReadCounts(filepath.Join(dir, rundir.CountsFile))
	if err != nil {
		t.Fatal(err)
	}
	var ops, errs int64
	var first *rundir.IntervalCount // the first interval holding errors
	for i, c := range counts {
		if c.Phase != "steady" || c.Op != "get" || c.EndMs < c.StartMs {
			t.Fatalf("counts.csv line %+v", c)
		}
		ops += c.Ops
		errs += c.Errors
		if c.Errors > 0 && first == nil {
			first = &counts[i]
		}
	}
	// The failures start after the warmup, so every failed op is a
	// measured one; the log also holds the warmup's ops.
	if errs != p.Errors || errs == 0 || ops < p.Completed {
		t.Errorf("counts.csv: %d ops, %d errors; summary: %d completed, %d errors", ops, errs, p.Completed, p.Errors)
	}
	// An op is counted in the interval it completed in: no failure
	// shows before the target began failing.
	if first == nil || first.EndMs < tg.shiftAt.UnixMilli() {
		t.Fatalf("first interval with errors %+v ends before the failures began (%d)", first, tg.shiftAt.UnixMilli())
	}
	// The change point is at that interval or, when it holds only a few
	// failures (it began before them), at the next one: at the
	// failures' start.
	at := time.UnixMilli(first.StartMs).Sub(p.Start).Seconds()
	next := at
	for _, c := range counts {
		if c.StartMs > first.StartMs {
			next = time.UnixMilli(c.StartMs).Sub(p.Start).Seconds()
			break
		}
	}
	want := tg.shiftAt.Sub(p.Start).Seconds()
	found := 0
	for _, c := range p.ChangePoints {
		t.Log(report.ChangeLine(c))
		if c.Metric != rundir.MetricErrorRatio {
			continue
		}
		found++
		// Offsets are of 100 ms buckets: within 0.1 s of an interval's start.
		if (math.Abs(c.OffsetSeconds-at) > 0.1 && math.Abs(c.OffsetSeconds-next) > 0.1) || math.Abs(c.OffsetSeconds-want) >= 0.1 ||
			c.Before != 0 || c.After < 0.2 || c.After > 0.4 {
			t.Errorf("error_ratio change %+v, want 0 -> 0.3 at the first interval with errors (+%.2fs) or the next (+%.2fs), at +%.1fs", c, at, next, want)
		}
	}
	if found != 1 {
		t.Errorf("%d error_ratio change points, want 1", found)
		for _, c := range counts {
			t.Logf("+%.1fs %d ops %d errors", time.UnixMilli(c.StartMs).Sub(p.Start).Seconds(), c.Ops, c.Errors)
		}
	}
	txt, _ := os.ReadFile(filepath.Join(dir, rundir.SummaryTextFile))
	if !strings.Contains(string(txt), "change: get error_ratio at +") || !strings.Contains(string(txt), "0.00% errors -> ") {
		t.Errorf("summary.txt has no error_ratio change line:\n%s", txt)
	}

	// Without failures (4 s are enough: a series of zeros has no
	// change point however long).
	sc.Phases[0].Duration = scenarios.Duration(4 * time.Second)
	sum, _ = run(&errorTarget{})
	for _, c := range sum.Phases[0].ChangePoints {
		if c.Metric == rundir.MetricErrorRatio {
			t.Errorf("run without errors: %s", report.ChangeLine(c))
		}
	}
}
