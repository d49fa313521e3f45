package report

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/rundir"
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
	if err := findChangePoints(buf, "test.hlog", s, time.Second); err != nil {
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
	if err := findChangePoints(buf, "test.hlog", s, time.Second); err != nil {
		t.Fatal(err)
	}
	if cps := s.Phases[0].ChangePoints; len(cps) != 0 {
		t.Errorf("steady log: %+v", cps)
	}
}

// TestChangeMarks: the op's p99-over-time panel marks each change point,
// one mark per op and offset naming every metric that changed there.
func TestChangeMarks(t *testing.T) {
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
	if err := findChangePoints(bytes.NewReader(log), "test.hlog", s, time.Second); err != nil {
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
