package engine

import (
	"context"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/soakd/soakd/report"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// sweepTarget answers at once and counts what it is sent: ops, value
// sizes of inserts, and the most requests it had in flight at once.
type sweepTarget struct {
	mu       sync.Mutex
	ops      map[scenarios.Op]int64
	sizes    map[int]int64
	inFlight atomic.Int64
	maxIn    atomic.Int64
	failOp   scenarios.Op // ops of this kind fail (failOn)
	failOn   bool
}

func newSweepTarget() *sweepTarget {
	return &sweepTarget{ops: map[scenarios.Op]int64{}, sizes: map[int]int64{}}
}

func (t *sweepTarget) Do(ctx context.Context, r *targets.Request) error {
	n := t.inFlight.Add(1)
	defer t.inFlight.Add(-1)
	for {
		m := t.maxIn.Load()
		if n <= m || t.maxIn.CompareAndSwap(m, n) {
			break
		}
	}
	t.mu.Lock()
	t.ops[r.Op]++
	if r.Op == scenarios.OpInsert && len(r.Fields) > 0 {
		t.sizes[len(r.Fields[0].Value)]++
	}
	t.mu.Unlock()
	if t.failOn && r.Op == t.failOp {
		return context.DeadlineExceeded
	}
	// Yield so that workers overlap, as a store's round trip would.
	for i := 0; i < 50; i++ {
		if ctx.Err() != nil {
			break
		}
	}
	return nil
}

func (t *sweepTarget) Close() error { return nil }

// TestSweepMixPoints: every point of a mix sweep runs its own mix. Each
// point is bounded by requests, so its stage completes exactly 3000 ops;
// each op's share is within 5 standard deviations of the binomial count
// the point's mix calls for (an op drawn from a neighbouring point's mix
// would be 10 points, over 20 deviations, off), an op a point leaves
// out is never sent, and the store saw exactly what the stages report.
func TestSweepMixPoints(t *testing.T) {
	t.Parallel()
	sc := scenario(t, `
keyspace: {records: 1000}
phases:
  - name: sweep
    kind: sweep
    requests: 3000
    concurrency: 4
    mix: {search: 65, read: 35}
    sweep:
      over: mix
      points: [{update: 0}, {update: 10}, {update: 30}, {update: 50}, {insert: 100}]
`)
	tg := newSweepTarget()
	dir := t.TempDir()
	sum := runWith(t, sc, tg, Options{OutDir: dir})
	p := sum.Phases[0]
	if p.Sweep == nil || len(p.Sweep.Points) != 5 || len(p.Stages) != 5 {
		t.Fatalf("sweep %+v, %d stages; want 5 points and stages", p.Sweep, len(p.Stages))
	}
	if p.Sweep.Axis != "" {
		t.Errorf("axis %q for points that set update and insert", p.Sweep.Axis)
	}
	if p.Sweep.Over != scenarios.SweepMix || p.Sweep.Measure != scenarios.MeasureClosed {
		t.Errorf("over %q measure %q", p.Sweep.Over, p.Sweep.Measure)
	}
	const n = 3000
	wantMix := []map[string]float64{
		{"search": 65, "read": 35, "update": 0},
		{"search": 58.5, "read": 31.5, "update": 10},
		{"search": 45.5, "read": 24.5, "update": 30},
		{"search": 32.5, "read": 17.5, "update": 50},
		{"search": 0, "read": 0, "insert": 100},
	}
	sent := map[string]int64{}
	for j, pt := range p.Sweep.Points {
		st := p.Stages[j]
		if st.Name != pt.Label || pt.Label != sc.Phases[0].PointLabel(j) {
			t.Errorf("point %d label %q, stage %q", j, pt.Label, st.Name)
		}
		if st.Completed != n || pt.Completed != n || pt.Errors != 0 {
			t.Errorf("point %s: stage completed %d, point %d, errors %d; want exactly %d, 0", pt.Label, st.Completed, pt.Completed, pt.Errors, n)
		}
		for op, pct := range wantMix[j] {
			if pt.Mix[op] != pct {
				t.Errorf("point %s: mix %v, want %v", pt.Label, pt.Mix, wantMix[j])
				break
			}
			got := st.Ops[op].Count
			sent[op] += got
			if pt.Ops[op].Count != got {
				t.Errorf("point %s %s: point count %d, stage %d", pt.Label, op, pt.Ops[op].Count, got)
			}
			q := pct / 100
			mean, sd := n*q, math.Sqrt(n*q*(1-q))
			if math.Abs(float64(got)-mean) > 5*sd {
				t.Errorf("point %s: %d %s of %d, want %.0f ± %.0f (%.4g%%)", pt.Label, got, op, n, mean, 5*sd, pct)
			}
		}
		if pt.AchievedOpsPerSec <= 0 || pt.Ops[firstOp(pt)].P50 <= 0 || pt.Ops[firstOp(pt)].P0 > pt.Ops[firstOp(pt)].P50 {
			t.Errorf("point %s: achieved %v, ops %+v", pt.Label, pt.AchievedOpsPerSec, pt.Ops)
		}
	}
	for _, op := range []scenarios.Op{scenarios.OpSearch, scenarios.OpRead, scenarios.OpUpdate, scenarios.OpInsert} {
		if tg.ops[op] != sent[op.String()] {
			t.Errorf("store saw %d %s, the stages report %d", tg.ops[op], op, sent[op.String()])
		}
	}
	if p.Completed != 5*n {
		t.Errorf("phase completed %d, want %d", p.Completed, 5*n)
	}
	// The run directory: summary.json's sweep, summary.txt's table, and
	// per-point histograms in histograms.hlog for shard merges.
	back, err := rundir.ReadSummary(dir)
	if err != nil {
		t.Fatal(err)
	}
	if s := back.Phases[0].Sweep; s == nil || len(s.Points) != 5 || s.Points[1].Mix["update"] != 10 || s.Points[1].Ops["update"].Count != p.Stages[1].Ops["update"].Count {
		t.Errorf("summary.json sweep %+v", s)
	}
	txt, _ := os.ReadFile(filepath.Join(dir, rundir.SummaryTextFile))
	for _, want := range []string{"sweep over mix (closed):", "update-10", "read 31.5 search 58.5 update 10"} {
		if !strings.Contains(string(txt), want) {
			t.Errorf("summary.txt lacks %q:\n%s", want, txt)
		}
	}
	hl, _ := os.ReadFile(filepath.Join(dir, rundir.HistogramsFile))
	if !strings.Contains(string(hl), "sweep/update-10.update.latency") {
		t.Errorf("histograms.hlog has no sweep/update-10.update.latency tag")
	}
}

func firstOp(pt rundir.SweepPoint) string {
	for _, op := range slices.Sorted(maps.Keys(pt.Ops)) {
		if pt.Ops[op].Count > 0 {
			return op
		}
	}
	return ""
}

// TestSweepRateConcurrencyValueSize: a rate sweep schedules each
// point's rate x duration exactly; a concurrency sweep never has more
// requests in flight than the point's workers; a value-size sweep
// inserts values of each point's size, requests-per-point of each.
func TestSweepRateConcurrencyValueSize(t *testing.T) {
	t.Parallel()
	sc := scenario(t, `
keyspace: {records: 1000}
phases:
  - {name: rates, kind: sweep, duration: 1s, concurrency: 4, mix: {read: 100}, sweep: {over: rate, points: [{rate: 100}, {rate: 300}]}}
  - {name: one, kind: sweep, requests: 400, mix: {read: 100}, sweep: {over: concurrency, points: [{concurrency: 1}]}}
  - {name: sizes, kind: sweep, requests: 300, concurrency: 2, mix: {insert: 100}, sweep: {over: value_size, points: [{field_bytes: 10}, {field_bytes: 300}]}}
`)
	tg := newSweepTarget()
	sum := runInBubble(t, sc, tg, Options{})
	rates := sum.Phases[0]
	for j, want := range []uint64{100, 300} {
		st := rates.Stages[j]
		if st.Scheduled != want || rates.Sweep.Points[j].TargetRate != float64(want) {
			t.Errorf("rate point %d: scheduled %d, target %v; want %d", j, st.Scheduled, rates.Sweep.Points[j].TargetRate, want)
		}
	}
	if rates.Sweep.Axis != "target rate (ops/s)" || rates.Sweep.Points[1].X != 300 || sum.Phases[2].Sweep.Points[1].X != 300 {
		t.Errorf("axis %q x %v; value sizes x %v", rates.Sweep.Axis, rates.Sweep.Points[1].X, sum.Phases[2].Sweep.Points[1].X)
	}
	if rates.Sweep.Measure != scenarios.MeasureRate {
		t.Errorf("rate sweep measured %q", rates.Sweep.Measure)
	}
	if m := tg.maxIn.Load(); m > 4 {
		t.Errorf("%d requests in flight with at most 4 workers", m)
	}
	if pt := sum.Phases[1].Sweep.Points[0]; pt.Concurrency != 1 || pt.Completed != 400 {
		t.Errorf("concurrency point %+v", pt)
	}
	sizes := sum.Phases[2].Sweep.Points
	if sizes[0].FieldBytes != 10 || sizes[1].FieldBytes != 300 {
		t.Errorf("value sizes %d, %d", sizes[0].FieldBytes, sizes[1].FieldBytes)
	}
	// The fake counts the first field's size once per insert.
	if tg.sizes[10] != 300 || tg.sizes[300] != 300 || len(tg.sizes) != 2 {
		t.Errorf("insert value sizes seen %v, want 300 of 10 bytes and 300 of 300", tg.sizes)
	}
}

// TestSweepConcurrencyBound: a closed-loop point with 1 worker never has
// two requests in flight.
func TestSweepConcurrencyBound(t *testing.T) {
	sc := scenario(t, `
keyspace: {records: 100}
phases:
  - {name: one, kind: sweep, requests: 500, mix: {read: 100}, sweep: {over: concurrency, points: [{concurrency: 1}]}}
`)
	tg := newSweepTarget()
	runWith(t, sc, tg, Options{})
	if m := tg.maxIn.Load(); m != 1 {
		t.Errorf("%d requests in flight at once with concurrency 1", m)
	}
}

// TestSweepCapacityPoints: each point of a capacity sweep is a capacity
// search of its own: a point whose mix only reads holds the search's
// max; a point whose ops all fail holds nothing (judged by the
// error-ratio SLO alone: the rate and drop limits are loose), and the
// phase's verdict is the lowest rate held. In a synctest bubble.
func TestSweepCapacityPoints(t *testing.T) {
	t.Parallel()
	sc := scenario(t, `
keyspace: {records: 100}
phases:
  - name: cap
    kind: sweep
    concurrency: 4
    max_lag: 1h
    mix: {read: 100}
    capacity: {start: 50, max: 100, factor: 2, step_duration: 500ms, precision: 0.5}
    sweep: {over: mix, measure: capacity, points: [{update: 0}, {update: 100}]}
slo: {max_error_ratio: 0.1, min_achieved_ratio: 0.01, max_dropped_ratio: 1}
`)
	tg := newSweepTarget()
	tg.failOp, tg.failOn = scenarios.OpUpdate, true
	sum := runInBubble(t, sc, tg, Options{})
	p := sum.Phases[0]
	pts := p.Sweep.Points
	if len(pts) != 2 || pts[0].HighestRateHeld == nil || pts[1].HighestRateHeld == nil {
		t.Fatalf("points %+v", pts)
	}
	if *pts[0].HighestRateHeld != 100 || *pts[1].HighestRateHeld != 0 {
		t.Errorf("held %v and %v, want 100 (reads only) and 0 (every op fails)", *pts[0].HighestRateHeld, *pts[1].HighestRateHeld)
	}
	// The point that held max probed it again; the one that held nothing
	// has no confirmation.
	if c := pts[0].Confirmation; c == nil || c.Held == nil || c.Held.Rate != 100 || c.Held.Probes != 2 || c.FirstFailed != nil || pts[1].Confirmation != nil {
		t.Errorf("confirmations %+v / %+v", pts[0].Confirmation, pts[1].Confirmation)
	}
	if !strings.HasPrefix(p.Stages[0].Name, "update-0-probe-1") {
		t.Errorf("first stage %q, want update-0-probe-1", p.Stages[0].Name)
	}
	if p.SLO == nil || p.SLO.Passed {
		t.Errorf("phase verdict %+v: a point held no rate", p.SLO)
	}
}

// TestSweepShardsMerge: a requests-bounded sweep split over two shards
// merges into one sweep whose points hold every shard's ops (exactly the
// requests per point) with latency from the merged per-point histograms.
func TestSweepShardsMerge(t *testing.T) {
	t.Parallel()
	src := `
keyspace: {records: 1000}
phases:
  - name: sweep
    kind: sweep
    requests: 2000
    concurrency: 2
    mix: {read: 100}
    sweep: {over: mix, points: [{update: 0}, {update: 40}]}
`
	var dirs []string
	var updates [2]int64
	for i := 0; i < 2; i++ {
		dir := t.TempDir()
		sum := runWith(t, scenario(t, src), newSweepTarget(), Options{OutDir: dir, Shard: rundir.Shard{Index: i, Count: 2}})
		for j, pt := range sum.Phases[0].Sweep.Points {
			if pt.Completed != 1000 {
				t.Errorf("shard %d point %s: %d ops, want its 1000", i, pt.Label, pt.Completed)
			}
			if j == 1 {
				updates[i] = pt.Ops["update"].Count
			}
		}
		dirs = append(dirs, dir)
	}
	m, err := report.MergeRunDirs(dirs)
	if err != nil {
		t.Fatal(err)
	}
	sw := m.Summary().Phases[0].Sweep
	if sw == nil || len(sw.Points) != 2 || sw.Axis != "update (% of ops)" || sw.Points[1].X != 40 {
		t.Fatalf("merged sweep %+v", sw)
	}
	for _, pt := range sw.Points {
		if pt.Completed != 2000 || pt.Ops["read"].P50 <= 0 || pt.Ops["read"].P0 > pt.Ops["read"].P50 {
			t.Errorf("merged point %s: %d ops, read %+v", pt.Label, pt.Completed, pt.Ops["read"])
		}
	}
	if got := sw.Points[1].Ops["update"].Count; got != updates[0]+updates[1] || got == 0 {
		t.Errorf("merged update-40 has %d updates, the shards %d + %d", got, updates[0], updates[1])
	}
	if txt := m.Text(); !strings.Contains(txt, "sweep over mix (closed)") || !strings.Contains(txt, "read 60 update 40") {
		t.Errorf("merged text lacks the sweep table:\n%s", txt)
	}
}
