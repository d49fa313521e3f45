package report

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/verdict"
)

func TestChangeWidth(t *testing.T) {
	for _, c := range []struct {
		iv, d, want time.Duration
	}{
		{time.Second, 5 * time.Minute, time.Second},
		{time.Second, 12 * time.Minute, time.Second},
		{time.Second, 12*time.Minute + time.Second, 2 * time.Second},
		{time.Second, 12 * time.Hour, time.Minute},
		{100 * time.Millisecond, 6 * time.Second, 100 * time.Millisecond},
		{time.Second, 0, time.Second},
	} {
		if got := changeWidth(c.iv)(c.d); got != c.want {
			t.Errorf("interval %s, phase %s: width %s, want %s", c.iv, c.d, got, c.want)
		}
	}
}

// syntheticLog writes secs one-second intervals of 200 latencies each
// for op get in phase p: log-normal around median(i) (seconds), drawn
// from a seeded stream, at rate(i) ops per second.
func syntheticLog(t *testing.T, start time.Time, secs int, median func(i int) float64, rate func(i int) int) *bytes.Buffer {
	t.Helper()
	rng := rand.New(rand.NewPCG(42, 1))
	var buf bytes.Buffer
	w := hdr.NewHistogramLogWriter(&buf)
	_ = w.OutputLogFormatVersion()
	_ = w.OutputStartTime(start.UnixMilli())
	_ = w.OutputLegend()
	for i := 0; i < secs; i++ {
		h := metrics.NewHist()
		for range rate(i) {
			_ = h.RecordValue(int64(median(i) * 1e9 * math.Exp(0.3*rng.NormFloat64())))
		}
		h.SetTag("p.get.latency")
		h.SetStartTimeMs(start.Add(time.Duration(i) * time.Second).UnixMilli())
		h.SetEndTimeMs(start.Add(time.Duration(i+1) * time.Second).UnixMilli())
		if err := w.OutputIntervalHistogram(h); err != nil {
			t.Fatal(err)
		}
	}
	return &buf
}

// TestChangePointsFromLog: a latency log whose median triples at 90 s
// and whose rate halves at 150 s gives change points at those offsets;
// a steady log gives none.
func TestChangePointsFromLog(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const secs = 200
	steps := func(at int, a, b float64) func(int) float64 {
		return func(i int) float64 {
			if i < at {
				return a
			}
			return b
		}
	}
	sum := func() *rundir.Summary {
		return &rundir.Summary{Phases: []rundir.PhaseResult{{Name: "p", Kind: "steady", Start: start, End: start.Add(secs * time.Second)}}}
	}

	s := sum()
	buf := syntheticLog(t, start, secs, steps(90, 0.001, 0.003), func(i int) int { return int(steps(150, 200, 100)(i)) })
	if err := findChangePoints(buf, "test.hlog", nil, s, time.Second); err != nil {
		t.Fatal(err)
	}
	found := map[string]rundir.ChangePoint{}
	for _, c := range s.Phases[0].ChangePoints {
		t.Log(ChangeLine(c))
		if _, dup := found[c.Metric]; dup {
			t.Errorf("%s: more than one change point", c.Metric)
		}
		found[c.Metric] = c
	}
	for _, want := range []struct {
		metric        string
		at            float64
		before, after float64
	}{
		{rundir.MetricP50, 90, 0.001, 0.003},
		{rundir.MetricP99, 90, 0.002, 0.006},
		{rundir.MetricP999, 90, 0.0025, 0.007},
		{rundir.MetricRate, 150, 200, 100},
	} {
		c, ok := found[want.metric]
		if !ok {
			t.Errorf("%s: no change point", want.metric)
			continue
		}
		if c.Op != "get" || math.Abs(c.OffsetSeconds-want.at) > 2 || !c.At.Equal(start.Add(time.Duration(c.OffsetSeconds)*time.Second)) {
			t.Errorf("%s: %+v, want op get at %vs", want.metric, c, want.at)
		}
		if c.Before > want.before*1.3 || c.Before < want.before*0.7 && want.metric != rundir.MetricP999 || c.After < c.Before*1.5 == (want.after > want.before) {
			t.Errorf("%s: %v -> %v, want about %v -> %v", want.metric, c.Before, c.After, want.before, want.after)
		}
		if c.PValue <= 0 || c.PValue > 0.005 {
			t.Errorf("%s: p %v", want.metric, c.PValue)
		}
	}

	s = sum()
	buf = syntheticLog(t, start, secs, steps(0, 0.001, 0.001), func(int) int { return 200 })
	if err := findChangePoints(buf, "test.hlog", nil, s, time.Second); err != nil {
		t.Fatal(err)
	}
	if cps := s.Phases[0].ChangePoints; len(cps) != 0 {
		t.Errorf("steady log: %+v", cps)
	}
}

// TestChangeMarks: the op's p99-over-time panel marks each change point,
// one mark per op and offset naming every metric that changed there.
func TestChangeMarks(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p := rundir.PhaseResult{Name: "p", Kind: "steady", Start: start, End: start.Add(200 * time.Second),
		Stages: []rundir.StageResult{{Name: "stage-1", Start: start}}}
	s := &rundir.Summary{Phases: []rundir.PhaseResult{p}}
	buf := syntheticLog(t, start, 200, func(i int) float64 {
		if i < 90 {
			return 0.001
		}
		return 0.003
	}, func(int) int { return 200 })
	log := buf.Bytes()
	if err := findChangePoints(bytes.NewReader(log), "test.hlog", nil, s, time.Second); err != nil {
		t.Fatal(err)
	}
	tl, err := readTimeline(bytes.NewReader(log), "test.hlog", s, timelineWidth)
	if err != nil {
		t.Fatal(err)
	}
	var pl Plot
	for _, p := range timelinePlots(&s.Phases[0], tl) {
		if strings.HasPrefix(p.Title, "get latency over time") {
			pl = p
		}
	}
	if pl.Title == "" {
		t.Fatal("no get p99 panel")
	}
	want := []Point{{X: 0, Label: "stage-1"}, {X: 90, Label: "change: get p50, p99, p99.9"}}
	if len(pl.Marks) != len(want) {
		t.Fatalf("marks %+v, want %+v", pl.Marks, want)
	}
	for i := range want {
		if pl.Marks[i].Label != want[i].Label || math.Abs(pl.Marks[i].X-want[i].X) > 2 {
			t.Errorf("mark %d: %+v, want %+v", i, pl.Marks[i], want[i])
		}
	}
	html := string(ReportHTML([]*rundir.Summary{s}, []*Timeline{tl}))
	if !strings.Contains(html, "change: get p50, p99, p99.9") {
		t.Error("report.html has no change mark")
	}
}

// TestChangePointsSkipWarmup: a slow warmup (the first 20 s of a steady
// phase whose measured window is the last 180 s) is not a change.
func TestChangePointsSkipWarmup(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := &rundir.Summary{Phases: []rundir.PhaseResult{{Name: "p", Kind: "steady", Start: start, End: start.Add(200 * time.Second),
		Result: rundir.Result{DurationSeconds: 180}}}}
	buf := syntheticLog(t, start, 200, func(i int) float64 {
		if i < 20 {
			return 0.005
		}
		return 0.001
	}, func(int) int { return 200 })
	log := buf.Bytes()
	if err := findChangePoints(bytes.NewReader(log), "test.hlog", nil, s, time.Second); err != nil {
		t.Fatal(err)
	}
	if cps := s.Phases[0].ChangePoints; len(cps) != 0 {
		t.Errorf("warmup reported: %v", cps)
	}
	// Without the measured window's length the warmup is searched too.
	s.Phases[0].DurationSeconds = 0
	if err := findChangePoints(bytes.NewReader(log), "test.hlog", nil, s, time.Second); err != nil {
		t.Fatal(err)
	}
	if cps := s.Phases[0].ChangePoints; len(cps) == 0 || math.Abs(cps[0].OffsetSeconds-20) > 2 {
		t.Errorf("with the warmup searched: %v, want a change at +20s", cps)
	}
}

// syntheticCounts gives secs one-second intervals of ops get ops each
// in phase p, each failing with probability ratio(i) (a seeded stream).
func syntheticCounts(start time.Time, secs int, ops int64, ratio func(i int) float64) []rundir.IntervalCount {
	rng := rand.New(rand.NewPCG(7, 1))
	var out []rundir.IntervalCount
	for i := 0; i < secs; i++ {
		c := rundir.IntervalCount{Phase: "p", Op: "get", Ops: ops,
			StartMs: start.Add(time.Duration(i) * time.Second).UnixMilli(), EndMs: start.Add(time.Duration(i+1) * time.Second).UnixMilli()}
		for range c.Ops {
			if rng.Float64() < ratio(i) {
				c.Errors++
			}
		}
		out = append(out, c)
	}
	return out
}

// TestErrorRatioChangePoints: error ratios per bucket from counts.csv
// lines. A rise from 0.2% to 5% at 100 s is one error_ratio change point
// there; steady 0.5% errors and a significant rise of less than a point
// (0.2% to 0.6%) give none; the warmup's errors are not searched.
func TestErrorRatioChangePoints(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const secs = 200
	step := func(at int, a, b float64) func(int) float64 {
		return func(i int) float64 {
			if i < at {
				return a
			}
			return b
		}
	}
	log := syntheticLog(t, start, secs, step(0, 0.001, 0.001), func(int) int { return 200 }).Bytes()
	find := func(counts []rundir.IntervalCount, measured float64) []rundir.ChangePoint {
		t.Helper()
		s := &rundir.Summary{Phases: []rundir.PhaseResult{{Name: "p", Kind: "steady", Start: start, End: start.Add(secs * time.Second),
			Result: rundir.Result{DurationSeconds: measured}}}}
		if err := findChangePoints(bytes.NewReader(log), "test.hlog", counts, s, time.Second); err != nil {
			t.Fatal(err)
		}
		var out []rundir.ChangePoint
		for _, c := range s.Phases[0].ChangePoints {
			t.Log(ChangeLine(c))
			if c.Metric == rundir.MetricErrorRatio {
				out = append(out, c)
			}
		}
		return out
	}

	cps := find(syntheticCounts(start, secs, 400, step(100, 0.002, 0.05)), 0)
	if len(cps) != 1 {
		t.Fatalf("rise 0.2%% -> 5%%: %+v, want one change point", cps)
	}
	c := cps[0]
	if c.Op != "get" || math.Abs(c.OffsetSeconds-100) > 2 || c.Before > 0.004 || c.After < 0.04 || c.After > 0.06 || c.PValue > 0.005 {
		t.Errorf("rise 0.2%% -> 5%%: %+v", c)
	}
	if line := ChangeLine(c); !strings.Contains(line, "change: get error_ratio at +1m") || !strings.Contains(line, "% errors -> 5.") {
		t.Errorf("line %q", line)
	}
	// The rise of less than a point is significant: the 1-point floor
	// is what leaves it out.
	var small []float64
	for _, c := range syntheticCounts(start, secs, 400, step(100, 0.002, 0.006)) {
		small = append(small, float64(c.Errors)/float64(c.Ops))
	}
	if len(verdict.Detect(small, verdict.ChangeOptions{})) == 0 {
		t.Error("0.2% -> 0.6% without a floor: no change point")
	}
	for name, ratio := range map[string]func(int) float64{
		"steady 0.5%":  step(0, 0.005, 0.005),
		"0.2% -> 0.6%": step(100, 0.002, 0.006),
	} {
		if cps := find(syntheticCounts(start, secs, 400, ratio), 0); len(cps) != 0 {
			t.Errorf("%s: %+v", name, cps)
		}
	}
	// Errors in the first 20 s only, a warmup: not searched.
	if cps := find(syntheticCounts(start, secs, 400, step(20, 0.3, 0)), 180); len(cps) != 0 {
		t.Errorf("warmup errors reported: %+v", cps)
	}
}

// TestSpreadChange: a rate that stays at 200 ops/s on average but starts
// to jitter (±50 ops/s) at 100 s is one rate change point of kind
// spread, said so in summary.txt's line and on the chart's mark, with the
// Prometheus direction of the spread (up); a level step is kind level.
func TestSpreadChange(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	rng := rand.New(rand.NewPCG(3, 3))
	jitter := make([]int, 200)
	for i := range jitter {
		jitter[i] = 200
		if i >= 100 {
			jitter[i] += int(rng.IntN(101)) - 50
		}
	}
	s := &rundir.Summary{Phases: []rundir.PhaseResult{{Name: "p", Kind: "steady", Start: start, End: start.Add(200 * time.Second)}}}
	log := syntheticLog(t, start, 200, func(int) float64 { return 0.001 }, func(i int) int { return jitter[i] }).Bytes()
	if err := findChangePoints(bytes.NewReader(log), "test.hlog", nil, s, time.Second); err != nil {
		t.Fatal(err)
	}
	var rate []rundir.ChangePoint
	for _, c := range s.Phases[0].ChangePoints {
		t.Log(ChangeLine(c))
		if c.Metric == rundir.MetricRate {
			rate = append(rate, c)
		}
	}
	if len(rate) != 1 {
		t.Fatalf("rate change points %+v, want 1", rate)
	}
	c := rate[0]
	if c.Kind != rundir.ChangeSpread || !c.Up() || math.Abs(c.OffsetSeconds-100) > 10 || c.BeforeSpread != 0 || c.AfterSpread < 15 || c.AfterSpread > 35 {
		t.Errorf("%+v: want a spread change 0 -> ~25 ops/s at +100s", c)
	}
	if math.Abs(c.Before-200) > 5 || math.Abs(c.After-200) > 10 {
		t.Errorf("levels %v -> %v, want about 200", c.Before, c.After)
	}
	line := ChangeLine(c)
	if !strings.HasPrefix(line, "change: get rate spread at +") || !strings.Contains(line, ": 0.0 ops/s -> ") || !strings.Contains(line, " ops/s (level 200.0 ops/s, p") ||
		!strings.HasSuffix(line, fmt.Sprintf(", %d vs %d intervals)", c.BeforeIntervals, c.AfterIntervals)) || c.BeforeIntervals+c.AfterIntervals != 200 {
		t.Errorf("line %q", line)
	}
	marks := changeMarks(&s.Phases[0])
	if len(marks) != 1 || !strings.HasSuffix(marks[0].Label, "rate spread") {
		t.Errorf("marks %+v", marks)
	}

	// The level step of TestChangePointsFromLog is kind level.
	s = &rundir.Summary{Phases: []rundir.PhaseResult{{Name: "p", Kind: "steady", Start: start, End: start.Add(200 * time.Second)}}}
	log = syntheticLog(t, start, 200, func(i int) float64 { return 0.001 + 0.002*float64(i/90) }, func(int) int { return 200 }).Bytes()
	if err := findChangePoints(bytes.NewReader(log), "test.hlog", nil, s, time.Second); err != nil {
		t.Fatal(err)
	}
	if len(s.Phases[0].ChangePoints) == 0 {
		t.Fatal("level step: no change points")
	}
	for _, c := range s.Phases[0].ChangePoints {
		if c.Kind != rundir.ChangeLevel || c.Up() != (c.After > c.Before) || strings.Contains(ChangeLine(c), "spread") {
			t.Errorf("level step: %+v (%s)", c, ChangeLine(c))
		}
	}
}

// TestMergedShardChangePoints: two shards of one run (the second
// starting 300 ms later), each with 200 ops/s whose median triples at
// 90 s and whose errors rise from 0 at 150 s (to 5% in shard 0, 15% in
// shard 1). The merged report finds the p50 change at 90 s and one
// error_ratio change at 150 s to the merged ratio (10%), prints them,
// and its timeline holds both shards' ops per bucket (400).
func TestMergedShardChangePoints(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const secs = 200
	base := t.TempDir()
	var dirs []string
	for i, after := range []float64{0.05, 0.15} {
		dir := filepath.Join(base, fmt.Sprintf("shard%d", i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		st := start.Add(time.Duration(i) * 300 * time.Millisecond)
		log := syntheticLog(t, st, secs, func(i int) float64 {
			if i < 90 {
				return 0.001
			}
			return 0.003
		}, func(int) int { return 200 })
		if err := os.WriteFile(filepath.Join(dir, rundir.LatencyLog), log.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		csv := []byte(rundir.CountsHeader)
		for _, c := range syntheticCounts(st, secs, 200, func(i int) float64 {
			if i < 150 {
				return 0
			}
			return after
		}) {
			csv = rundir.AppendCount(csv, c)
		}
		if err := os.WriteFile(filepath.Join(dir, rundir.CountsFile), csv, 0o644); err != nil {
			t.Fatal(err)
		}
		pr := rundir.PhaseResult{Name: "p", Kind: "steady", Start: st, End: st.Add(secs * time.Second),
			Result: rundir.Result{TargetRate: 200, DurationSeconds: secs, Ops: map[string]rundir.OpResult{"get": {Count: 200 * secs}}}}
		s := &rundir.Summary{SchemaVersion: rundir.SchemaVersion, Scenario: "sc", Shard: rundir.Shard{Index: i, Count: 2},
			Start: st, End: pr.End, Status: rundir.StatusCompleted, Phases: []rundir.PhaseResult{pr}}
		if err := WriteRunDir(dir, s); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, dir)
	}
	m, err := MergeRunDirs(dirs)
	if err != nil || m.ChangeErr != nil {
		t.Fatal(err, m.ChangeErr)
	}
	got := map[string][]rundir.ChangePoint{}
	for _, c := range m.Phases[0].ChangePoints {
		t.Log(ChangeLine(c))
		got[c.Metric] = append(got[c.Metric], c)
	}
	if c := got[rundir.MetricP50]; len(c) != 1 || math.Abs(c[0].OffsetSeconds-90) > 2 || math.Abs(c[0].Before-0.001) > 0.0002 || math.Abs(c[0].After-0.003) > 0.0005 {
		t.Errorf("p50: %+v, want 1ms -> 3ms at +90s", c)
	}
	if c := got[rundir.MetricErrorRatio]; len(c) != 1 || math.Abs(c[0].OffsetSeconds-150) > 2 || c[0].Before != 0 || math.Abs(c[0].After-0.10) > 0.02 {
		t.Errorf("error_ratio: %+v, want 0 -> 10%% at +150s", c)
	}
	if c := got[rundir.MetricRate]; len(c) != 0 {
		t.Errorf("rate: %+v, want none", c)
	}
	txt := m.Text()
	if !strings.Contains(txt, "change: get p50 at +1m") || !strings.Contains(txt, "change: get error_ratio at +2m") {
		t.Errorf("merged text has no change lines:\n%s", txt)
	}
	tl, err := m.Timeline()
	if err != nil {
		t.Fatal(err)
	}
	pts := tl.Phases["p"]["get"]
	if len(pts) < secs-1 {
		t.Fatalf("merged timeline: %d points", len(pts))
	}
	for _, tp := range pts[1 : secs-1] {
		if tp.Count != 400 {
			t.Fatalf("merged bucket at %s: %d ops, want 400", tp.At, tp.Count)
		}
	}
	html := string(ReportHTML([]*rundir.Summary{m.Summary()}, []*Timeline{tl}))
	if !strings.Contains(html, "change: get p50, p99, p99.9") {
		t.Error("merged report.html has no change mark")
	}
}

// TestChangeLineEvidence: a change point's line gives its p-value and
// how many intervals each side had; a p-value at the detector's least
// says "p<".
func TestChangeLineEvidence(t *testing.T) {
	at := time.Date(2026, 12, 6, 0, 0, 10, 0, time.UTC)
	c := rundir.ChangePoint{Op: "get", Metric: rundir.MetricP99, OffsetSeconds: 10, At: at, Before: 0.00146, After: 0.00573,
		PValue: 0.0004, Kind: rundir.ChangeLevel, BeforeIntervals: 10, AfterIntervals: 10}
	want := "change: get p99 at +10s (2026-12-06T00:00:10Z): 1.46ms -> 5.73ms (p=0.0004, 10 vs 10 intervals)"
	if got := ChangeLine(c); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	c.PValue, c.AfterIntervals = verdict.MinPValue, 7
	if got := ChangeLine(c); !strings.HasSuffix(got, "(p<1e-10, 10 vs 7 intervals)") {
		t.Errorf("got %q", got)
	}
}
