package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/targets"
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
	w := newLatencyLog(&buf, start)
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
	sum := func() *Summary {
		return &Summary{Phases: []PhaseResult{{Name: "p", Kind: "steady", Start: start, End: start.Add(secs * time.Second)}}}
	}

	s := sum()
	buf := syntheticLog(t, start, secs, steps(90, 0.001, 0.003), func(i int) int { return int(steps(150, 200, 100)(i)) })
	if err := findChangePoints(buf, "test.hlog", s, time.Second); err != nil {
		t.Fatal(err)
	}
	found := map[string]ChangePoint{}
	for _, c := range s.Phases[0].ChangePoints {
		t.Log(c)
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
		{MetricP50, 90, 0.001, 0.003},
		{MetricP99, 90, 0.002, 0.006},
		{MetricP999, 90, 0.0025, 0.007},
		{MetricRate, 150, 200, 100},
	} {
		c, ok := found[want.metric]
		if !ok {
			t.Errorf("%s: no change point", want.metric)
			continue
		}
		if c.Op != "get" || math.Abs(c.OffsetSeconds-want.at) > 2 || !c.At.Equal(start.Add(time.Duration(c.OffsetSeconds)*time.Second)) {
			t.Errorf("%s: %+v, want op get at %vs", want.metric, c, want.at)
		}
		if c.Before > want.before*1.3 || c.Before < want.before*0.7 && want.metric != MetricP999 || c.After < c.Before*1.5 == (want.after > want.before) {
			t.Errorf("%s: %v -> %v, want about %v -> %v", want.metric, c.Before, c.After, want.before, want.after)
		}
		if c.PValue <= 0 || c.PValue > 0.005 {
			t.Errorf("%s: p %v", want.metric, c.PValue)
		}
	}

	s = sum()
	buf = syntheticLog(t, start, secs, steps(0, 0.001, 0.001), func(int) int { return 200 })
	if err := findChangePoints(buf, "test.hlog", s, time.Second); err != nil {
		t.Fatal(err)
	}
	if cps := s.Phases[0].ChangePoints; len(cps) != 0 {
		t.Errorf("steady log: %+v", cps)
	}
}

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
// reports a latency change point within a second of the shift, in
// summary.json and summary.txt; the same run without the shift reports
// no p50 change (the warmup, where the host's start-up shows, is not
// searched).
// The service times are a fake's, so the shift is known exactly.
func TestRunReportsLatencyShift(t *testing.T) {
	sc := scenario(t, `
target: {kind: embedded}
keyspace: {records: 1000}
phases:
  - {name: steady, kind: steady, rate: 400, duration: 8s, warmup: 1s, concurrency: 16, mix: {get: 100}}
`)
	run := func(tg *shiftTarget) (*Summary, string) {
		dir := t.TempDir()
		sum, err := Run(context.Background(), Options{Scenario: sc, Target: tg, TargetKind: "fake", OutDir: dir, Interval: 100 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		return sum, dir
	}

	tg := &shiftTarget{before: time.Millisecond, after: 8 * time.Millisecond, shiftAfter: 4500 * time.Millisecond}
	sum, dir := run(tg)
	p := sum.Phases[0]
	want := tg.shiftAt.Sub(p.Start).Seconds()
	found := false
	for _, c := range p.ChangePoints {
		t.Log(c)
		if c.Metric == MetricP50 && math.Abs(c.OffsetSeconds-want) <= 1 && c.After > 4*c.Before {
			found = true
		}
	}
	if !found {
		logSeries(t, dir, sum)
		t.Fatalf("no p50 change point up at +%.1fs ±1s", want)
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
	for _, k := range []string{"op", "metric", "offset_seconds", "at", "before", "after", "p_value"} {
		if _, ok := back.Phases[0].ChangePoints[0][k]; !ok {
			t.Errorf("summary.json change point has no %s", k)
		}
	}
	txt, _ := os.ReadFile(filepath.Join(dir, "summary.txt"))
	if !strings.Contains(string(txt), "change: get p50 at +") {
		t.Errorf("summary.txt has no change line:\n%s", txt)
	}

	// Without the shift: no p50 change. The tail (p99, p99.9) and the
	// rate of a real run on a shared host move with the host's own
	// stalls, so only the median is asserted here; a steady series
	// giving no change point in any metric is TestChangePointsFromLog's.
	sum, dir = run(&shiftTarget{before: time.Millisecond, after: time.Millisecond})
	for _, c := range sum.Phases[0].ChangePoints {
		t.Log(c)
		if c.Metric == MetricP50 {
			logSeries(t, dir, sum)
			t.Errorf("steady run: %s", c)
		}
	}
}

// logSeries logs the per-interval series a run's change points came from.
func logSeries(t *testing.T, dir string, sum *Summary) {
	f, err := os.Open(filepath.Join(dir, "latency.hlog"))
	if err != nil {
		t.Log(err)
		return
	}
	defer f.Close()
	tl, err := readTimeline(f, f.Name(), sum, changeWidth(100*time.Millisecond))
	if err != nil {
		t.Log(err)
		return
	}
	p := sum.Phases[0]
	for _, tp := range tl.Phases[p.Name]["get"] {
		t.Logf("+%.1fs %d ops p50 %s p99 %s", tp.At.Sub(p.Start).Seconds(), tp.Count, fmtDur(tp.P50), fmtDur(tp.P99))
	}
}

// TestChangeMarks: the latency-over-time chart marks each change point,
// one mark per op and offset naming every metric that changed there.
func TestChangeMarks(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p := PhaseResult{Name: "p", Kind: "steady", Start: start, End: start.Add(200 * time.Second),
		Stages: []StageResult{{Name: "stage-1", Start: start}}}
	s := &Summary{Phases: []PhaseResult{p}}
	buf := syntheticLog(t, start, 200, func(i int) float64 {
		if i < 90 {
			return 0.001
		}
		return 0.003
	}, func(int) int { return 200 })
	log := buf.Bytes()
	if err := findChangePoints(bytes.NewReader(log), "test.hlog", s, time.Second); err != nil {
		t.Fatal(err)
	}
	tl, err := readTimeline(bytes.NewReader(log), "test.hlog", s, timelineWidth)
	if err != nil {
		t.Fatal(err)
	}
	pl, ok := timelinePlot(&s.Phases[0], tl)
	if !ok {
		t.Fatal("no plot")
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
	html := string(ReportHTML([]*Summary{s}, []*Timeline{tl}))
	if !strings.Contains(html, "change: get p50, p99, p99.9") {
		t.Error("report.html has no change mark")
	}
}

// TestChangePointsSkipWarmup: a slow warmup (the first 20 s of a steady
// phase whose measured window is the last 180 s) is not a change.
func TestChangePointsSkipWarmup(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := &Summary{Phases: []PhaseResult{{Name: "p", Kind: "steady", Start: start, End: start.Add(200 * time.Second),
		Result: Result{DurationSeconds: 180}}}}
	buf := syntheticLog(t, start, 200, func(i int) float64 {
		if i < 20 {
			return 0.005
		}
		return 0.001
	}, func(int) int { return 200 })
	log := buf.Bytes()
	if err := findChangePoints(bytes.NewReader(log), "test.hlog", s, time.Second); err != nil {
		t.Fatal(err)
	}
	if cps := s.Phases[0].ChangePoints; len(cps) != 0 {
		t.Errorf("warmup reported: %v", cps)
	}
	// Without the measured window's length the warmup is searched too.
	s.Phases[0].DurationSeconds = 0
	if err := findChangePoints(bytes.NewReader(log), "test.hlog", s, time.Second); err != nil {
		t.Fatal(err)
	}
	if cps := s.Phases[0].ChangePoints; len(cps) == 0 || math.Abs(cps[0].OffsetSeconds-20) > 2 {
		t.Errorf("with the warmup searched: %v, want a change at +20s", cps)
	}
}
