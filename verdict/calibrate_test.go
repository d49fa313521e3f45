package verdict

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
)

// aaCall is the op's call as CompareIntervals makes it of one run a
// side, the intervals widened by drift d (nil: not widened, the rule
// before drift.go): REGRESSION when p50, p99 or p99.9 is (each with
// the tail rule).
func aaCall(ivs []Interval, n [2]int64, d *Drift) bool {
	for i, iv := range ivs {
		if !iv.Valid() {
			continue
		}
		if _, _, call := judgeLatency(iv, d, i, DefaultRegressThreshold, n); call == CallRegression {
			return true
		}
	}
	return false
}

// driftRun is ar1Run with a between-run drift: the whole run's scale
// is exp(sd x N(0,1)) times slow, drawn once a run (the host's state,
// the server's warm state: what differs between runs and not between
// the seconds of one).
func driftRun(rng *rand.Rand, sd, slow float64) []*hdr.Histogram {
	return ar1Run(rng, 60, 200, slow*math.Exp(sd*rng.NormFloat64()))
}

// simPair is the within-run intervals of p50, p99, p99.9 of cand
// against base, and their ops.
func simPair(base, cand []*hdr.Histogram, seed uint64) ([]Interval, [2]int64) {
	bs, cs := [][]*hdr.Histogram{base}, [][]*hdr.Histogram{cand}
	ivs, _ := quantileRatiosBlock(bs, cs, regressPercentiles, BootstrapOptions{Seed: seed, Resamples: 500}.withDefaults(), cumulativeCap)
	return ivs, [2]int64{opsIn(bs), opsIn(cs)}
}

// TestSimulatedAAFalseAlarmRate: 1,000 A/A verdicts of one run a side
// on a seeded generator with both kinds of noise: AR(1) seconds (phi
// 0.7; 60 one-second intervals of 200 ops, so p50, p99 and p99.9 are
// all judged) and a between-run drift (each run's scale x exp(0.15 N),
// so two like runs differ by a log ratio of sd 0.21). Judged with the
// drift measured by 20 A/A control pairs of the same generator, and
// with the assumed DefaultDrift, at most 1% (10) are REGRESSION; the
// rule without a drift term (the within-run interval alone) is logged,
// and is far above. A 3x slowdown is still found in at least 90% of
// pairs with the measured drift. -short and -race make 60 A/A pairs and 20 slowed
// (the race detector finds nothing in this arithmetic and makes it take
// ten times as long). The rates are logged.
func TestSimulatedAAFalseAlarmRate(t *testing.T) {
	const sd = 0.15
	pairs, slowPairs := 1000, 200
	if testing.Short() || raceOn {
		pairs, slowPairs = 60, 20
	}
	rng := rand.New(rand.NewPCG(42, 1000))
	ctl := map[string][]float64{}
	for k := 0; k < 20; k++ {
		ivs, _ := simPair(driftRun(rng, sd, 1), driftRun(rng, sd, 1), uint64(1e6+k))
		for i, iv := range ivs {
			ctl[regressQuantiles[i]] = append(ctl[regressQuantiles[i]], math.Log(iv.Estimate))
		}
	}
	measured := DriftFromRatios(DriftControls, ctl)
	if measured == nil || measured.DF != 20 {
		t.Fatalf("drift of 20 controls: %+v", measured)
	}
	t.Log(measured.Line())
	var within, withMeasured, withAssumed int
	for p := 0; p < pairs; p++ {
		ivs, n := simPair(driftRun(rng, sd, 1), driftRun(rng, sd, 1), uint64(p))
		within += b2i(aaCall(ivs, n, nil))
		withMeasured += b2i(aaCall(ivs, n, measured))
		withAssumed += b2i(aaCall(ivs, n, DefaultDrift()))
	}
	found, foundAssumed := 0, 0
	for p := 0; p < slowPairs; p++ {
		ivs, n := simPair(driftRun(rng, sd, 1), driftRun(rng, sd, 3), uint64(2e6+p))
		found += b2i(aaCall(ivs, n, measured))
		foundAssumed += b2i(aaCall(ivs, n, DefaultDrift()))
	}
	pct := func(k, of int) float64 { return 100 * float64(k) / float64(of) }
	t.Logf("%d simulated A/A pairs called REGRESSION: within-run interval alone %d (%.1f%%), with the measured drift %d (%.2f%%), with the assumed drift %d (%.2f%%); a 3x slowdown found in %d of %d (measured drift), %d of %d (assumed)",
		pairs, within, pct(within, pairs), withMeasured, pct(withMeasured, pairs), withAssumed, pct(withAssumed, pairs), found, slowPairs, foundAssumed, slowPairs)
	if withMeasured*100 > pairs || withAssumed*100 > pairs {
		t.Errorf("A/A verdicts called REGRESSION: %d (measured drift), %d (assumed) of %d, want at most 1%%", withMeasured, withAssumed, pairs)
	}
	if within*100 <= pairs {
		t.Errorf("without a drift term only %d of %d A/A pairs regressed: the simulation's drift does not show", within, pairs)
	}
	if found*10 < slowPairs*9 {
		t.Errorf("a 3x slowdown found in %d of %d pairs with the measured drift, want at least 90%%", found, slowPairs)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// simRun is a summary and its intervals: one steady phase "steady" of
// op get, intervals from ar1Run.
func simRun(start time.Time, ivs []*hdr.Histogram) (*rundir.Summary, RunIntervals) {
	var n int64
	for _, h := range ivs {
		n += h.TotalCount()
	}
	s := &rundir.Summary{Scenario: "sim", Start: start, Phases: []rundir.PhaseResult{{Name: "steady", Kind: scenarios.PhaseSteady, Start: start,
		End: start.Add(time.Duration(len(ivs)) * time.Second), Result: rundir.Result{TargetRate: 200, Ops: map[string]rundir.OpResult{"get": {Count: n}}}}}}
	return s, RunIntervals{"steady": {"get": ivs}}
}

// noDrift is a measured between-run drift of 2% (the floor), from 100
// pairs: runs of the simulation differ only by their seconds, so the
// within-run rule is what is measured.
var noDrift = &Drift{Source: DriftControls, DF: 100, SD: map[string]float64{"p50": minLogSpread, "p99": minLogSpread, "p99.9": minLogSpread, QuantThroughput: minLogSpread}}

// TestCompareCalibrationMeasuresItsRule: compare states the false-alarm
// rate and MDE from each run's own splits; a slowdown of the measured
// p50 MDE is then found about half the time (between 20% and 80% of 60
// pairs), a slowdown twice the MDE's excess nearly always, and the A/A
// splits' false alarms stay rare.
func TestCompareCalibrationMeasuresItsRule(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var mdes []float64
	aa, alarms := 0, 0
	for p := 0; p < 20; p++ {
		b, bi := simRun(t0, ar1Run(rng, 60, 200, 1))
		c, ci := simRun(t0.Add(time.Hour), ar1Run(rng, 60, 200, 1))
		v := CompareIntervals([]*rundir.Summary{b}, []*rundir.Summary{c}, []RunIntervals{bi}, []RunIntervals{ci}, IntervalOptions{Bootstrap: BootstrapOptions{Seed: uint64(p), Resamples: 500},
			Drift: noDrift})
		cal := v.Calibration
		if cal == nil || cal.Source != CalSplits || cal.AAVerdicts != 4 || cal.MDE["p50"] <= 1.2 || cal.MDE["p99"] <= 1.2 {
			t.Fatalf("calibration %+v", cal)
		}
		aa += cal.AAVerdicts
		alarms += cal.FalseAlarms
		mdes = append(mdes, cal.MDE["p50"])
		if p == 0 {
			t.Log(cal.Line())
		}
	}
	sort.Float64s(mdes)
	mde := mdes[len(mdes)/2]
	found, foundBig := 0, 0
	const pairs = 60
	for p := 0; p < pairs; p++ {
		base := ar1Run(rng, 60, 200, 1)
		iv := QuantileRatio([][]*hdr.Histogram{base}, [][]*hdr.Histogram{ar1Run(rng, 60, 200, mde)}, 50, BootstrapOptions{Seed: uint64(p), Resamples: 500})
		if Decide(iv, DefaultRegressThreshold) == CallRegression {
			found++
		}
		iv = QuantileRatio([][]*hdr.Histogram{base}, [][]*hdr.Histogram{ar1Run(rng, 60, 200, 1+2*(mde-1))}, 50, BootstrapOptions{Seed: uint64(p), Resamples: 500})
		if Decide(iv, DefaultRegressThreshold) == CallRegression {
			foundBig++
		}
	}
	t.Logf("median p50 MDE x%.3f; a slowdown of it found in %d of %d pairs, of x%.3f in %d of %d; A/A splits: %d of %d called REGRESSION", mde, found, pairs, 1+2*(mde-1), foundBig, pairs, alarms, aa)
	if found < pairs/5 || found > pairs*4/5 {
		t.Errorf("a slowdown of the MDE found in %d of %d pairs, want about half", found, pairs)
	}
	if foundBig < pairs*9/10 {
		t.Errorf("twice the MDE's excess found in %d of %d pairs", foundBig, pairs)
	}
	if alarms*20 > aa {
		t.Errorf("A/A splits: %d of %d called REGRESSION", alarms, aa)
	}
}

// TestHistoryCalibration: each history run judged against the others
// (like runs, 10% spread; two ops each) is rarely a regression, and the MDE is the
// prediction interval's top.
func TestHistoryCalibration(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	var hist []*rundir.Summary
	for i := 0; i < 12; i++ {
		f := 1 + 0.1*rng.NormFloat64()
		hist = append(hist, synth(0.001*f, 0.005*f, 0.01*f))
	}
	v := Compare(hist, synth(0.001, 0.005, 0.01), RegressOptions{MinHistory: 5})
	c := v.Calibration
	if c == nil || c.Source != CalHistory || c.AAVerdicts != 24 || c.MDE["p50"] < 1.1 || c.MDE["p50"] > 1.6 {
		t.Fatalf("%+v", c)
	}
	if c.FalseAlarms > 2 {
		t.Fatalf("%d of %d like runs flagged", c.FalseAlarms, c.AAVerdicts)
	}
	t.Log(c.Line())
	if Compare(hist[:3], hist[3], RegressOptions{MinHistory: 3}).Calibration != nil {
		t.Fatal("calibrated with too few runs to leave one out")
	}
}
