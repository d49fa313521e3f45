package verdict

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
)

func ms(n float64) scenarios.Duration { return scenarios.Duration(n * float64(time.Millisecond)) }

func ptr(f float64) *float64 { return &f }

// hist100 holds 100 values: 1ms..100ms, so percentile k is k ms.
func hist100() *hdr.Histogram {
	h := metrics.NewHist()
	for i := 1; i <= 100; i++ {
		_ = h.RecordValue(int64(i) * int64(time.Millisecond))
	}
	return h
}

func phaseOf(ops ...string) Phase {
	h := hist100()
	return Phase{Name: "steady", Ops: ops, Latency: func(string) *hdr.Histogram { return h }}
}

// Latency checks are judged at the exact percentile named, on the
// histogram: the old evaluators snapped p95 to p90 and p42 to p50.
func TestJudgeExactPercentile(t *testing.T) {
	for _, tc := range []struct {
		pct    string
		limit  float64 // ms
		passed bool
	}{
		{"p95", 93, false}, // p90 (90ms) would pass
		{"p95", 96, true},
		{"p42", 45, true}, // p50 (50ms) would fail
		{"p42", 41, false},
		{"p99.9", 99.5, false},
		{"max", 100.1, true},
		{"max", 99.5, false}, // p99.99 snapping would not see the max
	} {
		l := MustNew(scenarios.SLO{Latency: map[string]map[string]scenarios.Duration{"read": {tc.pct: ms(tc.limit)}}}, nil)
		v := l.Judge(phaseOf("read"))
		if len(v.Checks) != 1 {
			t.Fatalf("%s: checks %+v", tc.pct, v.Checks)
		}
		c := v.Checks[0]
		if c.Passed != tc.passed || v.Passed != tc.passed {
			t.Errorf("%s limit %vms: passed %v (actual %s), want %v", tc.pct, tc.limit, c.Passed, FormatSeconds(c.Actual), tc.passed)
		}
		if c.Metric != Latency || c.Cmp != AtMost || c.What != "latency "+tc.pct {
			t.Errorf("%s: check %+v", tc.pct, c)
		}
	}
}

// "*" limits apply to every op, merged with the op's own (the op's win
// at the same percentile).
func TestLimitsStarMerged(t *testing.T) {
	l := MustNew(scenarios.SLO{Latency: map[string]map[string]scenarios.Duration{
		"*":    {"p99": ms(10), "max": ms(100)},
		"read": {"p50": ms(1), "p99": ms(5)},
	}}, nil)
	got := map[string][]string{}
	for _, op := range []string{"read", "update"} {
		for _, ll := range l.For(op) {
			got[op] = append(got[op], ll.Percentile.Name+"="+ll.Limit.String())
		}
	}
	want := map[string][]string{
		"read":   {"p50=1ms", "p99=5ms", "max=100ms"},
		"update": {"p99=10ms", "max=100ms"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("limits %v, want %v", got, want)
	}
}

// Series feed soakd_slo_latency_seconds: "*" limits for ops with their
// own too, max as quantile 1, p99.9 as "0.999" (not 0.9990000000000001).
func TestSeries(t *testing.T) {
	l := MustNew(scenarios.SLO{Latency: map[string]map[string]scenarios.Duration{
		"*":    {"p99": ms(10), "p99.9": ms(20), "max": ms(100)},
		"read": {"p50": ms(1)},
	}}, nil)
	got := l.Series([]string{"update", "read"})
	want := []Series{
		{"read", "0.5", 0.001}, {"read", "0.99", 0.01}, {"read", "0.999", 0.02}, {"read", "1", 0.1},
		{"update", "0.99", 0.01}, {"update", "0.999", 0.02}, {"update", "1", 0.1},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("series\n got %v\nwant %v", got, want)
	}
	for _, tc := range []struct {
		pct  float64
		want string
	}{{99.9, "0.999"}, {99.99, "0.9999"}, {99, "0.99"}, {50, "0.5"}, {100, "1"}, {42, "0.42"}, {99.999, "0.99999"}} {
		if got := QuantileLabel(tc.pct); got != tc.want {
			t.Errorf("QuantileLabel(%v) = %q, want %q", tc.pct, got, tc.want)
		}
	}
}

// Each kind of check compares by its stored Cmp.
func TestCmpHolds(t *testing.T) {
	for _, tc := range []struct {
		cmp           Cmp
		actual, limit float64
		want          bool
	}{
		{AtMost, 1, 1, true}, {AtMost, 1.1, 1, false},
		{AtLeast, 0.95, 0.95, true}, {AtLeast, 0.9, 0.95, false},
		{Above, 0, 0, false}, {Above, 1, 0, true},
		{"", 0, 0, false},
	} {
		if got := tc.cmp.Holds(tc.actual, tc.limit); got != tc.want {
			t.Errorf("%q.Holds(%v, %v) = %v", tc.cmp, tc.actual, tc.limit, got)
		}
	}
}

// A capacity phase passes only when some rate was held; a merge where no
// shard held any rate fails (0 >= 0 passed before).
func TestCapacityAndRejudge(t *testing.T) {
	for _, tc := range []struct {
		held float64
		want bool
	}{{0, false}, {500, true}} {
		v := Capacity("cap", tc.held)
		if v.Passed != tc.want || v.Checks[0].Cmp != Above {
			t.Errorf("Capacity(%v) = %+v", tc.held, v)
		}
		r := Rejudge(v.Checks, Phase{Name: "cap"}, tc.held)
		if r.Passed != tc.want {
			t.Errorf("Rejudge held %v: %+v", tc.held, r)
		}
	}
	// Shard 0 held 800 (passed); merged held 0 fails.
	r := Rejudge(Capacity("cap", 800).Checks, Phase{Name: "cap"}, 0)
	if r.Passed || r.Checks[0].Actual != 0 {
		t.Errorf("merged held 0: %+v", r)
	}
}

// Rejudge recomputes each check by its metric at its percentile.
func TestRejudge(t *testing.T) {
	checks := []rundir.Check{
		{Phase: "steady", Op: "read", What: "latency p95", Metric: Latency, Percentile: 95, Cmp: AtMost, Limit: 0.093, Passed: true},
		{Phase: "steady", What: "achieved_ratio", Metric: AchievedRatio, Cmp: AtLeast, Limit: 0.9, Passed: true},
		{Phase: "steady", What: "error_ratio", Metric: ErrorRatio, Cmp: AtMost, Limit: 0.01},
		{Phase: "steady", What: "dropped_ratio", Metric: DroppedRatio, Cmp: AtMost, Limit: 0.01},
	}
	p := phaseOf("read")
	p.TargetRate, p.AchievedRate, p.GoodputRate = 1000, 990, 950
	p.Completed, p.Errors = 1000, 5
	p.Scheduled, p.Dropped = 1000, 20
	v := Rejudge(checks, p, 0)
	var got []bool
	for _, c := range v.Checks {
		got = append(got, c.Passed)
	}
	if want := []bool{false, true, true, false}; !reflect.DeepEqual(got, want) || v.Passed {
		t.Errorf("passed %v, want %v: %+v", got, want, v.Checks)
	}
	if a := v.Checks[0].Actual; a < 0.095 || a > 0.0951 {
		t.Errorf("p95 actual %v, want 0.095", v.Checks[0].Actual)
	}
}

// Judge's rate, error and dropped checks; a staged phase has no
// achieved ratio; Probe checks it against MinHeldRatio by default.
func TestJudgeRatios(t *testing.T) {
	l := MustNew(scenarios.SLO{MinAchievedRatio: 0.9, MaxErrorRatio: ptr(0.01), MaxDroppedRatio: ptr(0)}, nil)
	p := Phase{Name: "s", TargetRate: 100, AchievedRate: 85, GoodputRate: 84, Scheduled: 100, Completed: 100, Errors: 1, Dropped: 1}
	v := l.Judge(p)
	var whats []string
	for _, c := range v.Checks {
		whats = append(whats, c.What+":"+map[bool]string{true: "ok", false: "FAIL"}[c.Passed])
	}
	if want := "achieved_ratio:FAIL error_ratio:ok dropped_ratio:FAIL"; strings.Join(whats, " ") != want {
		t.Errorf("checks %v, want %s", whats, want)
	}
	p.Staged = true
	if v := l.Judge(p); len(v.Checks) != 2 {
		t.Errorf("staged: %+v", v.Checks)
	}
	ok, failed := MustNew(scenarios.SLO{}, nil).Probe(Phase{Name: "probe", TargetRate: 100, AchievedRate: 94, GoodputRate: 94})
	if ok || len(failed) != 1 || failed[0].Limit != MinHeldRatio {
		t.Errorf("probe: %v %+v", ok, failed)
	}
	if s := failed[0].String(); s != "achieved_ratio 0.94 < 0.95" {
		t.Errorf("probe failure %q", s)
	}
}

// TestAchievedRatioJudgesGoodput: min_achieved_ratio judges the
// successful ops, so a phase that completed every op it was asked for
// but had 47% of them time out fails it, in Judge, Probe and Rejudge.
func TestAchievedRatioJudgesGoodput(t *testing.T) {
	l := MustNew(scenarios.SLO{MinAchievedRatio: 0.9}, nil)
	p := Phase{Name: "s", TargetRate: 1000, AchievedRate: 1000, GoodputRate: 530, Scheduled: 1000, Completed: 1000, Errors: 470}
	v := l.Judge(p)
	if v.Passed || len(v.Checks) != 1 || v.Checks[0].Actual != 0.53 {
		t.Fatalf("judge %+v, want achieved_ratio 0.53 failing", v.Checks)
	}
	if ok, _ := l.Probe(p); ok {
		t.Error("probe passed with 47% of its ops failed")
	}
	if rv := Rejudge(v.Checks, p, 0); rv.Passed || rv.Checks[0].Actual != 0.53 {
		t.Errorf("rejudge %+v", rv.Checks)
	}
	p.GoodputRate = 950
	if v := l.Judge(p); !v.Passed {
		t.Errorf("5%% errors failed a 0.9 ratio: %+v", v.Checks)
	}
}

// Old summaries (no metric, cmp, percentile) are upgraded once at read.
func TestUpgrade(t *testing.T) {
	v := &rundir.Verdict{Checks: []rundir.Check{{What: "latency p99.9", Limit: 1}, {What: "achieved_ratio"}, {What: "highest_rate_held"}}}
	rundir.Upgrade(v)
	want := []rundir.Check{{What: "latency p99.9", Metric: Latency, Percentile: 99.9, Cmp: AtMost, Limit: 1},
		{What: "achieved_ratio", Metric: AchievedRatio, Cmp: AtLeast}, {What: "highest_rate_held", Metric: HighestRateHeld, Cmp: Above}}
	if !reflect.DeepEqual(v.Checks, want) {
		t.Errorf("upgraded %+v", v.Checks)
	}
}

func TestNewRejects(t *testing.T) {
	for _, slo := range []map[string]map[string]scenarios.Duration{
		{"read": {"q99": ms(1)}},
		{"nosuchop": {"p99": ms(1)}},
	} {
		if _, err := New(scenarios.SLO{Latency: slo}, nil); err == nil {
			t.Errorf("%v accepted", slo)
		}
	}
}

// Each latency and error-ratio check says how much of its error budget
// the phase left: 5 of 100 ops over 95.5ms leave half of p90's 10%
// budget and overspend p99's 1% four times over.
func TestBudgetLeft(t *testing.T) {
	l := MustNew(scenarios.SLO{Latency: map[string]map[string]scenarios.Duration{"read": {"p90": ms(95.5), "p99": ms(95.5), "max": ms(200)}},
		MaxErrorRatio: ptr(0.004), MinAchievedRatio: 0.5}, nil)
	p := phaseOf("read")
	p.Completed, p.Errors, p.TargetRate, p.GoodputRate = 1000, 2, 100, 100
	left := map[string]*float64{}
	for _, c := range l.Judge(p).Checks {
		left[c.What] = c.BudgetLeft
	}
	for what, want := range map[string]float64{"latency p90": 0.5, "latency p99": -4, "error_ratio": 0.5} {
		if got := left[what]; got == nil || math.Abs(*got-want) > 1e-9 {
			t.Errorf("%s: budget left %v, want %v", what, got, want)
		}
	}
	for _, what := range []string{"latency max", "achieved_ratio"} {
		if got, ok := left[what]; !ok || got != nil {
			t.Errorf("%s: budget left %v (present %v), want none", what, got, ok)
		}
	}
	// The shard merge's rejudging keeps it.
	re := Rejudge(l.Judge(p).Checks, p, 0)
	if c := re.Checks[0]; c.BudgetLeft == nil || *c.BudgetLeft != *left[c.What] {
		t.Errorf("rejudged %s: budget left %v", c.What, c.BudgetLeft)
	}
}
