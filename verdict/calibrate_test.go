package verdict

import (
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
)

// aaCall is the op's call as CompareIntervals makes it of one run a
// side: REGRESSION when p50, p99 or p99.9 is (each with the tail rule).
func aaCall(base, cand []*hdr.Histogram, seed uint64) (bool, []Interval) {
	bs, cs := [][]*hdr.Histogram{base}, [][]*hdr.Histogram{cand}
	ivs, _ := quantileRatiosBlock(bs, cs, regressPercentiles, BootstrapOptions{Seed: seed, Resamples: 500}.withDefaults(), cumulativeCap)
	n := [2]int64{opsIn(bs), opsIn(cs)}
	for i, iv := range ivs {
		if TailCall(iv, DefaultRegressThreshold, regressPercentiles[i], n) == CallRegression {
			return true, ivs
		}
	}
	return false, ivs
}

// TestSimulatedAAFalseAlarmRate: 1,000 A/A verdicts of the decision rule
// on a seeded autocorrelated generator (AR(1) seconds, phi 0.7: 60
// one-second intervals of 200 ops a side, so p50, p99 and p99.9 are all
// judged) call REGRESSION in at most 1% (10); -short and -race make 200
// (the race detector finds nothing in this arithmetic and makes it take
// 213 s instead of 21). The measured rate is logged.
func TestSimulatedAAFalseAlarmRate(t *testing.T) {
	pairs := 1000
	if testing.Short() || raceOn {
		pairs = 200
	}
	rng := rand.New(rand.NewPCG(42, 1000))
	alarms := 0
	for p := 0; p < pairs; p++ {
		if r, _ := aaCall(ar1Run(rng, 60, 200, 1), ar1Run(rng, 60, 200, 1), uint64(p)); r {
			alarms++
		}
	}
	t.Logf("%d of %d simulated A/A verdicts called REGRESSION (%.2f%%)", alarms, pairs, 100*float64(alarms)/float64(pairs))
	if alarms*100 > pairs {
		t.Fatalf("%d of %d A/A verdicts called REGRESSION, want at most 1%%", alarms, pairs)
	}
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
		v := CompareIntervals([]*rundir.Summary{b}, []*rundir.Summary{c}, []RunIntervals{bi}, []RunIntervals{ci}, IntervalOptions{Bootstrap: BootstrapOptions{Seed: uint64(p), Resamples: 500}})
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
