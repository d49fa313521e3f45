package verdict

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
)

// steadyRun is a summary of one closed-loop steady phase (2 s warmup)
// and its interval log: 20 one-second intervals of get, each with
// perSec ops of about 1 ms x slow.
func steadyRun(rng *rand.Rand, start time.Time, perSec int, slow float64) (*rundir.Summary, map[string][]*hdr.Histogram) {
	s := &rundir.Summary{Scenario: "s", Start: start, Phases: []rundir.PhaseResult{{Name: "steady", Kind: scenarios.PhaseSteady, Start: start,
		WarmupSeconds: 2, Result: rundir.Result{Ops: map[string]rundir.OpResult{"get": {Count: 1}}}}}}
	var ivs []*hdr.Histogram
	for i, h := range ar1Run(rng, 20, perSec, slow) {
		h.SetStartTimeMs(start.Add(time.Duration(i) * time.Second).UnixMilli())
		h.SetEndTimeMs(start.Add(time.Duration(i+1) * time.Second).UnixMilli())
		ivs = append(ivs, h)
	}
	return s, map[string][]*hdr.Histogram{"steady.get.latency": ivs}
}

func TestSteadyIntervalsDropsWarmup(t *testing.T) {
	s, tags := steadyRun(rand.New(rand.NewPCG(1, 1)), time.Unix(1_800_000_000, 0), 50, 1)
	got := SteadyIntervals(s, tags)["steady"]["get"]
	if len(got) != 18 || got[0].StartTimeMs() != s.Phases[0].Start.Add(2*time.Second).UnixMilli() {
		t.Errorf("%d intervals after a 2 s warmup, want 18 from +2s", len(got))
	}
}

// CompareIntervals: a 2x slower candidate is a REGRESSION at every
// percentile; a closed-loop throughput at half the baseline's is one
// too; the JSON-facing fields carry the interval and the counts.
func TestCompareIntervals(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	t0 := time.Unix(1_800_000_000, 0)
	bs, bt := steadyRun(rng, t0, 1200, 1)
	cs, ct := steadyRun(rng, t0.Add(time.Minute), 600, 2) // 10,800 ops after warmup: 10.8 beyond p99.9
	v := CompareIntervals([]*rundir.Summary{bs}, []*rundir.Summary{cs}, []RunIntervals{SteadyIntervals(bs, bt)}, []RunIntervals{SteadyIntervals(cs, ct)}, IntervalOptions{Drift: noDrift})
	if !v.Regressed || v.Method != MethodBootstrap || v.Level != 0.95 || v.Resamples != DefaultResamples || len(v.Ops) != 1 {
		t.Fatalf("verdict:\n%s", v.Table())
	}
	o := v.Ops[0]
	if o.Intervals != [2]int{18, 18} || o.BlockLen < 1 || len(o.Checks) != 4 {
		t.Fatalf("op %+v", o)
	}
	for _, c := range o.Checks {
		if c.Ratio == nil || !c.Regressed || c.Call != CallRegression {
			t.Errorf("%s: %+v, want a REGRESSION with its interval", c.Quantile, c)
		}
	}
	if c := o.Checks[3]; c.Quantile != QuantThroughput || !(c.Ratio.Hi < 1/1.2) || c.Baseline < 1160 || c.Baseline > 1240 {
		t.Errorf("throughput %+v %v", c, c.Ratio)
	}
	tab := v.Table()
	for _, want := range []string{"RATIO [95% CI]", "x2", "ops/s", "verdict: REGRESSION", "one run on a side"} {
		if !strings.Contains(tab, want) {
			t.Errorf("table lacks %q:\n%s", want, tab)
		}
	}
	// A candidate of 2,700 ops has 2.7 beyond its p99.9: no call there,
	// whatever the interval says; p50 and p99 are still called.
	ss, st := steadyRun(rng, t0.Add(time.Minute), 150, 2)
	v = CompareIntervals([]*rundir.Summary{bs}, []*rundir.Summary{ss}, []RunIntervals{SteadyIntervals(bs, bt)}, []RunIntervals{SteadyIntervals(ss, st)}, IntervalOptions{Drift: noDrift})
	for _, c := range v.Ops[0].Checks[:3] {
		want := CallRegression
		if c.Quantile == "p99.9" {
			want = CallTooFew
		}
		if c.Call != want || c.Regressed != (want == CallRegression) || c.Ratio == nil {
			t.Errorf("2,700 candidate ops, %s: %+v, want %q with its interval", c.Quantile, c, want)
		}
	}
	if !strings.Contains(v.Table(), "too few ops") {
		t.Errorf("the table does not say too few ops:\n%s", v.Table())
	}
	// Two runs of the same thing, with repeats on each side.
	var base, cand []*rundir.Summary
	var bi, ci []RunIntervals
	for r := 0; r < 3; r++ {
		s, tags := steadyRun(rng, t0, 300, 1)
		base, bi = append(base, s), append(bi, SteadyIntervals(s, tags))
		s, tags = steadyRun(rng, t0, 300, 1)
		cand, ci = append(cand, s), append(ci, SteadyIntervals(s, tags))
	}
	v = CompareIntervals(base, cand, bi, ci, IntervalOptions{})
	if v.Regressed || v.Repeats != [2]int{3, 3} || v.Ops[0].Intervals != [2]int{54, 54} || len(v.Notes) != 0 {
		t.Errorf("A/A with repeats:\n%s", v.Table())
	}
}

// One run a side: the intervals are widened by the between-run drift.
// Assumed (nothing measured it), a 2x slowdown whose within-run
// interval clears x1.2 is "inconclusive", not a REGRESSION, and a 5x
// one is still a REGRESSION at p50; measured by the controls given, the
// widening is theirs; with repeats on one side, theirs.
func TestCompareIntervalsDrift(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	t0 := time.Unix(1_800_000_000, 0)
	one := func(perSec int, slow float64) ([]*rundir.Summary, []RunIntervals) {
		s, tags := steadyRun(rng, t0, perSec, slow)
		return []*rundir.Summary{s}, []RunIntervals{SteadyIntervals(s, tags)}
	}
	check := func(v *Regression, q string) QuantCheck {
		for _, c := range v.Ops[0].Checks {
			if c.Quantile == q {
				return c
			}
		}
		t.Fatalf("no %s check:\n%s", q, v.Table())
		return QuantCheck{}
	}
	bs, bi := one(1200, 1)
	cs, ci := one(1200, 2)
	v := CompareIntervals(bs, cs, bi, ci, IntervalOptions{})
	c := check(v, "p50")
	if v.Regressed || c.Call != CallDrift || c.Within == nil || !(c.Within.Lo > 1.2) || !(c.Ratio.Lo < c.Within.Lo) || v.Drift == nil || v.Drift.Source != DriftAssumed {
		t.Errorf("2x, drift assumed: p50 %+v\n%s", c, v.Table())
	}
	if tab := v.Table(); !strings.Contains(tab, "between-run drift (assumed, not measured)") || !strings.Contains(tab, "verdict: no regression shown (") {
		t.Errorf("table:\n%s", tab)
	}
	if m := v.Calibration.MDE["p50"]; !(m >= 1.2*math.Exp(1.95*assumedDriftP50)) {
		t.Errorf("p50 MDE x%.2f with an assumed drift of %.2f", m, assumedDriftP50)
	}
	fs, fi := one(1200, 5)
	v = CompareIntervals(bs, fs, bi, fi, IntervalOptions{})
	if c := check(v, "p50"); !v.Regressed || c.Call != CallRegression {
		t.Errorf("5x, drift assumed: p50 %+v", c)
	}
	ctl := &Drift{Source: DriftControls, DF: 4, SD: map[string]float64{"p50": 0.1}}
	v = CompareIntervals(bs, cs, bi, ci, IntervalOptions{Drift: ctl})
	c = check(v, "p50")
	h := studentTQuantile(0.975, 4) * 0.1
	if c.Within == nil || !v.Regressed || c.Call != CallRegression || v.Drift != ctl ||
		math.Abs(c.Ratio.Lo-c.Ratio.Estimate*math.Exp(-math.Hypot(math.Log(c.Within.Estimate/c.Within.Lo), h))) > 1e-9 {
		t.Errorf("2x, drift of 4 controls sd 0.1: p50 %+v, want lo = est x exp(-hypot(within, %.3f))", c, h)
	}
	if c := check(v, "p99"); c.Within != nil {
		t.Errorf("controls say nothing of p99, yet it was widened: %+v", c)
	}
	// Three baselines, one candidate: the baselines' own spread.
	var base []*rundir.Summary
	var bis []RunIntervals
	for _, f := range []float64{1, 1.5, 0.7} {
		s, tags := steadyRun(rng, t0, 1200, f)
		base, bis = append(base, s), append(bis, SteadyIntervals(s, tags))
	}
	v = CompareIntervals(base, cs, bis, ci, IntervalOptions{Drift: ctl})
	c = check(v, "p50")
	if v.Drift == nil || v.Drift.Source != DriftRepeats || c.Within == nil || c.Regressed {
		t.Errorf("3 baselines spread x0.7-1.5 against one 2x run: p50 %+v drift %+v\n%s", c, v.Drift, v.Table())
	}
}

// TestDriftFromRatios: the root mean square of the A/A log ratios, as
// many degrees of freedom as the fewest ratios of a figure, the floor
// of 2%; the band is Student's t (normal when assumed).
func TestDriftFromRatios(t *testing.T) {
	d := DriftFromRatios(DriftControls, map[string][]float64{"p50": {0.1, -0.1, 0.2, -0.2}, "p99": {0.001, 0, 0, 0, 0}})
	if d.DF != 4 || math.Abs(d.SD["p50"]-math.Sqrt(0.025)) > 1e-12 || d.SD["p99"] != minLogSpread {
		t.Fatalf("%+v", d)
	}
	if h, ok := d.band("p50", 0.95); !ok || math.Abs(h-2.7764451*math.Sqrt(0.025)) > 1e-6 {
		t.Errorf("band %v %v", h, ok)
	}
	if h, _ := DefaultDrift().band("p50", 0.95); math.Abs(h-1.959964*assumedDriftP50) > 1e-5 {
		t.Errorf("assumed band %v", h)
	}
	if DriftFromRatios(DriftControls, map[string][]float64{"p50": nil}) != nil {
		t.Error("a drift from no ratio")
	}
	// In quadrature: log half-widths 0.3 and 0.4 with a drift of 0.4
	// become 0.5 below and 0.566 above.
	iv := withDrift(Interval{Estimate: 2, Lo: 2 * math.Exp(-0.3), Hi: 2 * math.Exp(0.4), Level: 0.95}, 0.4)
	if math.Abs(iv.Lo-2*math.Exp(-0.5)) > 1e-12 || math.Abs(iv.Hi-2*math.Exp(math.Hypot(0.4, 0.4))) > 1e-12 || iv.Estimate != 2 {
		t.Errorf("widened: %+v", iv)
	}
}

// TailCall: a side needs MinBeyond ops past the percentile for a call.
func TestTailCallNeedsOpsBeyond(t *testing.T) {
	up := Interval{Estimate: 3, Lo: 2, Hi: 4, Level: 0.95}
	for _, c := range []struct {
		q    float64
		n    [2]int64
		want Call
	}{
		{99, [2]int64{1000, 1000}, CallRegression},
		{99, [2]int64{999, 5000}, CallTooFew},
		{99, [2]int64{5000, 600}, CallTooFew},
		{99.9, [2]int64{10_000, 10_000}, CallRegression},
		{99.9, [2]int64{9_999, 10_000}, CallTooFew},
		{50, [2]int64{20, 20}, CallRegression},
		{50, [2]int64{19, 20}, CallTooFew},
	} {
		if got := TailCall(up, 0.2, c.q, c.n); got != c.want {
			t.Errorf("p%v of %v ops: %q, want %q", c.q, c.n, got, c.want)
		}
	}
	if got := TailCall(Interval{}, 0.2, 99, [2]int64{1e6, 1e6}); got != CallNoData {
		t.Errorf("no interval: %q, want %q", got, CallNoData)
	}
}
