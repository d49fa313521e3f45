package report

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/verdict"
)

// noise is a fixed ±4% jitter, one factor per round (odd and even
// rounds alike on average, as interleaved rounds on a drifting host).
var noise = []float64{1.00, 1.03, 0.97, 0.96, 1.04, 1.01}

// roundsSummary is a run with persistence variants none and aof, each
// test's rounds interleaved as the engine runs them, aof's rps in each
// round factor[test] times none's (with its own jitter).
func roundsSummary(factor map[string]float64) *rundir.Summary {
	s := &rundir.Summary{Scenario: "aof", Status: rundir.StatusCompleted, Target: rundir.TargetInfo{Kind: "redis"}}
	for _, test := range []string{"same", "double", "half"} {
		for r := range noise {
			for _, v := range []string{"none", "aof"} {
				rate := 40000 * noise[r]
				if v == "aof" {
					rate = 40000 * factor[test] * noise[(r+2)%len(noise)]
				}
				p := suitePhaseResult(fmt.Sprintf("%s[%s]#%d", test, v, r+1), v, rate, 10000, map[string]int64{"set": 10000})
				p.Repeat = r + 1
				s.Phases = append(s.Phases, p)
			}
		}
	}
	return s
}

// TestSuiteIntervals: with six rounds a side, a test whose variants
// differ only by the rounds' jitter is "within noise" (its interval
// holds 1), a 2x and a 0.5x difference are flagged faster and slower
// with intervals that exclude 1; the geomean gets an interval from the
// rounds' suite scores; the A/A control holds 1.
func TestSuiteIntervals(t *testing.T) {
	s := roundsSummary(map[string]float64{"same": 1, "double": 2, "half": 0.5})
	tb := BuildSuite(SuiteColumns([]string{"runs/aof"}, []*rundir.Summary{s}))
	tb.ShowControl = true
	tb.Estimate(verdict.BootstrapOptions{Seed: 1})
	txt := tb.Text()
	t.Log("\n" + txt)
	want := map[string]string{"same": "within noise", "double": "faster", "half": "slower"}
	for _, r := range tb.Rows {
		iv := r.RPSRatio[1]
		if !iv.Valid() {
			t.Fatalf("%s: no interval", r.Test)
		}
		if got := noiseWord(true, iv); got != want[r.Test] {
			t.Errorf("%s: %s (interval %.3f-%.3f), want %s", r.Test, got, iv.Lo, iv.Hi, want[r.Test])
		}
		if r.Cells[0].RPS < 39000 || r.Cells[0].RPS > 41000 || len(r.Cells[0].Rounds) != 6 || r.Cells[0].Requests != 60000 {
			t.Errorf("%s: A is the mean of its 6 rounds: rps %.0f, %d rounds, %d requests", r.Test, r.Cells[0].RPS, len(r.Cells[0].Rounds), r.Cells[0].Requests)
		}
		if !r.Control.Valid() || r.Control.Excludes(1) {
			t.Errorf("%s: A/A control %+v should hold 1", r.Test, r.Control)
		}
		var line string
		for _, l := range strings.Split(txt, "\n") {
			if f := strings.Fields(l); len(f) > 0 && f[0] == r.Test {
				line = l
			}
		}
		if !strings.Contains(line, want[r.Test]) || !strings.Contains(line, fmt.Sprintf("[%.2f-%.2f]", iv.Lo, iv.Hi)) {
			t.Errorf("%s: line %q lacks %q and the interval", r.Test, line, want[r.Test])
		}
	}
	// Geomean of 1, 2 and 0.5 is 1: within noise, with an interval.
	if g := tb.Geomean[1]; !g.Valid() || g.Excludes(1) || g.Estimate < 0.9 || g.Estimate > 1.1 {
		t.Errorf("geomean %+v, want about 1 with an interval holding it", g)
	}
	for _, w := range []string{"geomean B/A: ", "A/A control", "6 rounds"} {
		if !strings.Contains(txt, w) {
			t.Errorf("text lacks %q", w)
		}
	}
	// A real difference on every test moves the geomean out of noise.
	s = roundsSummary(map[string]float64{"same": 2, "double": 2, "half": 2})
	tb = BuildSuite(SuiteColumns(nil, []*rundir.Summary{s}))
	tb.Estimate(verdict.BootstrapOptions{Seed: 1})
	if g := tb.Geomean[1]; !g.Valid() || !g.Excludes(1) || g.Lo < 1.5 {
		t.Errorf("geomean of a 2x difference %+v, want an interval above 1.5", g)
	}
}

// TestSuiteSweeps: the sweeps of two stores' runs with three rounds each
// line up by point; each point is the mean of its rounds with an
// interval around it; the chart has one line per store with an error
// bar per point.
func TestSuiteSweeps(t *testing.T) {
	mk := func(kind string, base float64) *rundir.Summary {
		s := &rundir.Summary{Scenario: "study", Status: rundir.StatusCompleted, Target: rundir.TargetInfo{Kind: kind}}
		for r := 1; r <= 3; r++ {
			sw := &rundir.SweepResult{Over: scenarios.SweepMix, Axis: "update (% of ops)"}
			for i, u := range []float64{0, 10, 20} {
				sw.Points = append(sw.Points, rundir.SweepPoint{Label: fmt.Sprintf("update=%g", u), X: u,
					AchievedOpsPerSec: base * (1 - float64(i)*0.2) * noise[r]})
			}
			s.Phases = append(s.Phases, rundir.PhaseResult{Name: fmt.Sprintf("update-sweep#%d", r), Kind: scenarios.PhaseSweep, Repeat: r,
				Start: time.Unix(int64(r), 0), Sweep: sw})
		}
		return s
	}
	tb := BuildSuite(SuiteColumns([]string{"redis", "mongo"}, []*rundir.Summary{mk("redis", 6000), mk("mongo", 1000)}))
	tb.Estimate(verdict.BootstrapOptions{Seed: 1})
	if len(tb.Sweeps) != 1 || len(tb.Sweeps[0].Lines) != 2 || len(tb.Sweeps[0].Labels) != 3 {
		t.Fatalf("sweeps %+v", tb.Sweeps)
	}
	for li, base := range []float64{6000, 1000} {
		for i, sp := range tb.Sweeps[0].Lines[li].Points {
			mean := base * (1 - float64(i)*0.2) * (noise[1] + noise[2] + noise[3]) / 3
			if d := sp.Mean - mean; d > 1e-6 || d < -1e-6 || !sp.CI.Valid() || sp.CI.Lo > sp.Mean || sp.CI.Hi < sp.Mean {
				t.Errorf("line %d point %d: %+v, want mean %.1f inside its interval", li, i, sp, mean)
			}
		}
	}
	txt := tb.SweepText()
	t.Log("\n" + txt)
	if !strings.Contains(txt, "sweep update-sweep: achieved ops/s against update (% of ops)") || !strings.Contains(txt, "A redis") || !strings.Contains(txt, "B mongo") {
		t.Errorf("sweep table:\n%s", txt)
	}
	page := string(SuiteHTML(tb))
	if n := strings.Count(page, `class="errbar"`); n != 6 {
		t.Errorf("%d error bars, want 6 (3 points x 2 stores)", n)
	}
}

// TestFixedRateJudgedOnLatency: at a fixed rate both columns achieve the
// schedule's rps, so the side-by-side judges such a test on its p99
// interval. B's p99 far above A's is "slower (p99)" (it once read
// "within noise" on throughput with a p99 77x the baseline's); the same
// latency on both sides is "within noise (p99)"; a closed-loop test is
// still judged on rps.
func TestFixedRateJudgedOnLatency(t *testing.T) {
	t.Parallel()
	build := func(slowB float64, target float64) SuiteTable {
		s := &rundir.Summary{Scenario: "fixed", Status: rundir.StatusCompleted, Target: rundir.TargetInfo{Kind: "redis"}}
		for r := 0; r < 4; r++ {
			for _, v := range []string{"none", "aof"} {
				p := suitePhaseResult(fmt.Sprintf("s[%s]#%d", v, r+1), v, 1000, 10000, map[string]int64{"get": 10000})
				p.Repeat, p.TargetRate = r+1, target
				s.Phases = append(s.Phases, p)
			}
		}
		tb := BuildSuite(SuiteColumns(nil, []*rundir.Summary{s}))
		// Ten seconds a round of 1,000 ops each: latency about 1 ms
		// (B: slowB times that), with a per-second wobble.
		for ci := range tb.Columns {
			cell := &tb.Rows[0].Cells[ci]
			for k := range cell.Rounds {
				rd := &cell.Rounds[k]
				for sec := 0; sec < 10; sec++ {
					h := metrics.NewHist()
					base := 1e6 * (1 + 0.05*float64((sec+k)%3))
					if ci == 1 {
						base *= slowB
					}
					for i := 0; i < 1000; i++ {
						h.RecordValue(int64(base * (0.5 + float64(i)/1000)))
					}
					h.SetStartTimeMs(int64(sec) * 1000)
					h.SetEndTimeMs(int64(sec+1) * 1000)
					rd.Latency = append(rd.Latency, h)
					rd.Rates = append(rd.Rates, 1000)
				}
			}
		}
		tb.intervals = true
		tb.Estimate(verdict.BootstrapOptions{Seed: 7})
		return tb
	}
	for _, tc := range []struct {
		slowB, target float64
		want          string
	}{
		{77, 1000, "slower (p99)"},
		{1, 1000, "within noise (p99)"},
		{77, 0, "within noise"}, // closed loop: judged on rps, equal here
	} {
		tb := build(tc.slowB, tc.target)
		if got := tb.Rows[0].Verdict(1); got != tc.want {
			t.Errorf("B p99 x%.0f at target %.0f: %q (p99 ratio %+v), want %q", tc.slowB, tc.target, got, tb.Rows[0].P99Ratio[1], tc.want)
		}
		if txt := tb.Text(); !strings.Contains(txt, tc.want) {
			t.Errorf("text lacks %q:\n%s", tc.want, txt)
		}
	}
}

// The comparison's chart draws what its table says: each column after
// the first gets a whisker per bar, the first column's value times the
// B/A interval, so "AOF slower" in bars can be read against "within
// noise" in the table.
func TestSuiteBarsDrawIntervals(t *testing.T) {
	s := roundsSummary(map[string]float64{"same": 1, "double": 2, "half": 0.5})
	tb := BuildSuite(SuiteColumns(nil, []*rundir.Summary{s}))
	tb.Estimate(verdict.BootstrapOptions{Seed: 1})
	bars := tb.SuiteBars()
	rps := bars.Panels[0]
	for li, r := range tb.Rows {
		if _, _, ok := rps.Series[0].interval(li); ok {
			t.Errorf("%s: the baseline column has a whisker", r.Test)
		}
		lo, hi, ok := rps.Series[1].interval(li)
		iv := r.RPSRatio[1]
		a := r.Cells[0].RPS
		if !ok || math.Abs(lo-a*iv.Lo) > 1e-6 || math.Abs(hi-a*iv.Hi) > 1e-6 {
			t.Errorf("%s: whisker %v..%v (%v), want %v..%v", r.Test, lo, hi, ok, a*iv.Lo, a*iv.Hi)
		}
	}
	svg := SVGBars(bars)
	if n := strings.Count(svg, `class="whisker"`); n != len(tb.Rows) {
		t.Errorf("%d whiskers drawn, want one per row for column B (%d)", n, len(tb.Rows))
	}
	if !strings.Contains(svg, "95% interval") {
		t.Error("whiskers carry no tooltip naming the interval")
	}
}
