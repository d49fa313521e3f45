package report

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/rundir"
)

// HDR (3 significant digits) reports a recorded value as the highest
// value equivalent to it: 1 ms as 1000447 ns, 2.048 ms as 2049023 ns,
// 4.096 ms as 4098047 ns.
const (
	ns1ms              = 1000447
	ns2ms              = 2049023
	ns4ms              = 4098047
	ns8ms              = 8196095
	ms1, ms2, ms4, ms8 = 1_000_000, 2_048_000, 4_096_000, 8_192_000
)

// perSecond is one op's second i: n values, of which the top ones (2 of
// 100, or all when top is n) are hi and the rest lo.
type perSecond func(op string, i int) (n int, lo, hi int64, top int)

// writeLog writes a latency.hlog of secs one-second intervals of phase
// "soak" from start.
func writeLog(t *testing.T, start time.Time, secs int, ops []string, f perSecond) []byte {
	t.Helper()
	fx := newHlogFixture(t, start)
	for i := 0; i < secs; i++ {
		for _, op := range ops {
			n, lo, hi, top := f(op, i)
			if n == 0 {
				continue
			}
			from := start.Add(time.Duration(i) * time.Second)
			fx.interval(t, "soak."+op+".latency", from, from.Add(time.Second), fmt.Sprint(n, lo, hi, top), func() *hdr.Histogram {
				h := metrics.NewHist()
				for j := 0; j < n; j++ {
					v := lo
					if j >= n-top {
						v = hi
					}
					_ = h.RecordValue(v)
				}
				return h
			})
		}
	}
	return fx.bytes()
}

func soakSummary(start time.Time, secs int, warmup float64, ops ...string) *rundir.Summary {
	p := rundir.PhaseResult{Name: "soak", Kind: "steady", Start: start, End: start.Add(time.Duration(secs) * time.Second), WarmupSeconds: warmup}
	p.Ops = map[string]rundir.OpResult{}
	for _, op := range ops {
		p.Ops[op] = rundir.OpResult{Count: 1, Latency: metrics.Summary{P99: 0.0099}}
	}
	return &rundir.Summary{Scenario: "soak", Status: rundir.StatusCompleted, Phases: []rundir.PhaseResult{p}}
}

// TestOverTimeMeanOfBuckets: a 20 s phase with a 5 s warmup, read and
// update. read's p99 is 8.192 ms in the warmup (left out), 2.048 ms for
// 10 s, then 4.096 ms for 5 s: avg p99 = (10 x 2049023 + 5 x 4098047) /
// 15 ns = 2732031 ns over 15 one-second buckets. update runs 1 ms and
// skips second 12: 14 buckets of 1000447 ns.
func TestOverTimeMeanOfBuckets(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	log := writeLog(t, start, 20, []string{"read", "update"}, func(op string, i int) (int, int64, int64, int) {
		if op == "update" {
			if i == 12 {
				return 0, 0, 0, 0
			}
			return 50, ms1, ms1, 0
		}
		switch {
		case i < 5:
			return 100, ms1, ms8, 2
		case i < 15:
			return 100, ms1, ms2, 2
		}
		return 100, ms1, ms4, 2
	})
	s := soakSummary(start, 20, 5, "read", "update")
	tl, err := readTimeline(bytes.NewReader(log), "test.hlog", s, timelineWidth)
	if err != nil {
		t.Fatal(err)
	}
	fillOverTime(s, tl)
	p := s.Phases[0]
	want := map[string]rundir.OverTime{
		"read":   {MeanP99: 2732031e-9, BucketSeconds: 1, Buckets: 15},
		"update": {MeanP99: ns1ms * 1e-9, BucketSeconds: 1, Buckets: 14},
	}
	for op, w := range want {
		got := p.Ops[op].OverTime
		if got == nil || math.Abs(got.MeanP99-w.MeanP99) > 1e-15 || got.BucketSeconds != w.BucketSeconds || got.Buckets != w.Buckets {
			t.Errorf("%s: over_time %+v, want %+v", op, got, w)
		}
	}
	// The worst bucket after the warmup: read's 4.096 ms from second 15
	// (not the warmup's 8.192 ms).
	if got := p.Ops["read"].OverTime; got == nil || math.Abs(got.WorstP99-4098047e-9) > 1e-15 || got.WorstAtSeconds != 15 {
		t.Errorf("read's worst bucket: %+v, want 4098047 ns at +15s", got)
	}
	line := overTimeLine(&p)
	for _, want := range []string{"mean of the p99s of 1s buckets after the warmup", "read 2.73ms over 15 buckets (overall p99 9.90ms), worst bucket 4.10ms at +15s", "update 1.00ms over 14 buckets"} {
		if !strings.Contains(line, want) {
			t.Errorf("line %q lacks %q", line, want)
		}
	}
	if txt := Text(s); !strings.Contains(txt, line) {
		t.Errorf("summary.txt lacks the avg p99 line:\n%s", txt)
	}

	// The charts: throughput (one series per op, 100 and 50 ops/s, and
	// their sum), then one p99 panel per op with its avg line, the warmup
	// shaded on all.
	plots := timelinePlots(&p, tl)
	if len(plots) != 3 {
		t.Fatalf("%d over-time plots, want throughput + 2 panels", len(plots))
	}
	thr := plots[0]
	if !strings.HasPrefix(thr.Title, "throughput over time") || len(thr.Series) != 3 {
		t.Fatalf("first plot %q with %d series", thr.Title, len(thr.Series))
	}
	if all := thr.Series[2]; all.Name != "all ops" || len(all.Points) != 20 || all.Points[5].Y != 150 {
		t.Errorf("the ops' sum: %+v", all)
	}
	for i, want := range []struct {
		op   string
		n    int
		rate float64
	}{{"read", 20, 100}, {"update", 19, 50}} {
		sr := thr.Series[i]
		if sr.Name != want.op || len(sr.Points) != want.n {
			t.Errorf("throughput series %s: %d points, want %s with %d", sr.Name, len(sr.Points), want.op, want.n)
		}
		for _, pt := range sr.Points {
			if pt.Y != want.rate {
				t.Errorf("%s at %gs: %g ops/s, want %g", want.op, pt.X, pt.Y, want.rate)
			}
		}
	}
	for i, op := range []string{"read", "update"} {
		pl := plots[1+i]
		if !strings.HasPrefix(pl.Title, op+" latency over time: p99 per 1s") || len(pl.Series) != 2 {
			t.Errorf("panel %d: %q with %d series", i, pl.Title, len(pl.Series))
			continue
		}
		if pl.Series[0].Name != op+" p99" {
			t.Errorf("panel %s: first series %s", op, pl.Series[0].Name)
		}
		avg := pl.Series[1]
		if !strings.HasPrefix(avg.Name, "avg p99") || avg.Points[0].X != 5 || avg.Points[0].Y != want[op].MeanP99 {
			t.Errorf("panel %s: avg line %+v", op, avg)
		}
	}
	for _, pl := range plots {
		if len(pl.Shades) != 1 || pl.Shades[0] != (Span{From: 0, To: 5, Label: "warmup"}) {
			t.Errorf("%q: shades %+v, want the warmup 0-5s", pl.Title, pl.Shades)
		}
	}
	if pts := plots[1].Series[0].Points; pts[3].Y != ns8ms*1e-9 || pts[10].Y != ns2ms*1e-9 || pts[17].Y != ns4ms*1e-9 {
		t.Errorf("read p99 points %v", pts)
	}
	page := string(ReportHTML([]*rundir.Summary{s}, []*Timeline{tl}))
	if n := strings.Count(page, `class="shade"`); n != 3 {
		t.Errorf("report.html has %d warmup shades, want 3", n)
	}
	if !strings.Contains(page, "avg p99 over the run") {
		t.Error("report.html lacks the avg p99 note")
	}
}

// TestOverTimeLongRunBuckets: a 1500 s phase is charted in 3 s buckets;
// with a 300 s warmup (8 ms, left out) the average runs over buckets
// 100..499 (400 buckets). Second 900 is all 4.096 ms, so its bucket's
// p99 is 4098047 ns and the rest 1000447 ns: avg = (399 x 1000447 +
// 4098047) / 400 = 1008191 ns.
func TestOverTimeLongRunBuckets(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	log := writeLog(t, start, 1500, []string{"read"}, func(_ string, i int) (int, int64, int64, int) {
		switch {
		case i < 300:
			return 100, ms8, ms8, 0
		case i == 900:
			return 100, ms4, ms4, 0
		}
		return 100, ms1, ms1, 0
	})
	s := soakSummary(start, 1500, 300, "read")
	tl, err := readTimeline(bytes.NewReader(log), "test.hlog", s, timelineWidth)
	if err != nil {
		t.Fatal(err)
	}
	fillOverTime(s, tl)
	got := s.Phases[0].Ops["read"].OverTime
	if got == nil || got.Buckets != 400 || got.BucketSeconds != 3 || math.Abs(got.MeanP99-1008191e-9) > 1e-15 {
		t.Errorf("over_time %+v, want mean 1008191ns over 400 buckets of 3s", got)
	}
}
