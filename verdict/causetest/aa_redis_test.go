package causetest

import (
	"context"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/soakd/soakd/internal/testutil"
	"github.com/soakd/soakd/rundir"
	redistarget "github.com/soakd/soakd/targets/redis"
	"github.com/soakd/soakd/verdict"
)

// TestRealAAVerdicts: pairs of runs of one scenario against one real
// redis-server, one after the other, nothing changed between them:
// compare's verdict on each pair is an A/A verdict. SOAKD_AA_PAIRS sets
// the pairs (2 by default; 40 for the measurement in docs/verdicts.md).
// The self record is idle (procRoot): on a shared host every run would
// be bound and withheld, and the rule under test is the store
// verdict's. Each pair is judged three ways: with the drift assumed
// (compare of two run directories), with the drift measured by the
// other pairs as A/A controls (the daemon's controls: leave this pair
// out; from 3 pairs on), and by the within-run interval alone (the rule
// before drift.go: a pair whose check was a REGRESSION or
// "inconclusive"). At most 1 in 20 pairs may be a REGRESSION either
// way the drift is known; every count is logged.
func TestRealAAVerdicts(t *testing.T) {
	testutil.NeedTool(t, "redis-server")
	pairs := 2
	if v := os.Getenv("SOAKD_AA_PAIRS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("SOAKD_AA_PAIRS=%q: want a count of 1 or more", v)
		}
		pairs = n
	}
	quiet := procRoot(t, false)
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(pairs)*time.Minute)
	defer cancel()
	srv, err := redistarget.StartServer(ctx, redistarget.ServerConfig{Dir: t.TempDir(), Persistence: "none"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Stop() })
	type pair struct {
		base, cand *rundir.Summary
		ivs        []verdict.RunIntervals
		logs       map[string]float64
	}
	var all []pair
	assumed, within, aa, alarms := 0, 0, 0, 0
	for p := 1; p <= pairs; p++ {
		base := run(t, ctx, srv.URL(), quiet)
		cand := run(t, ctx, srv.URL(), quiet)
		ivs := intervalsOf(t, base, cand)
		v := compareRuns(base, cand, ivs, nil)
		if v.Regressed {
			assumed++
		}
		pr := pair{base, cand, ivs, map[string]float64{}}
		old := false
		for _, o := range v.Ops {
			for _, c := range o.Checks {
				old = old || c.Call == verdict.CallRegression || c.Call == verdict.CallDrift
				if c.Ratio != nil && c.Ratio.Estimate > 0 && c.Call != verdict.CallTooFew {
					pr.logs[c.Quantile] = math.Log(c.Ratio.Estimate)
				}
			}
		}
		if old {
			within++
		}
		all = append(all, pr)
		c := v.Calibration
		if c == nil || c.AAVerdicts == 0 || c.MDE["p50"] <= 1 {
			t.Fatalf("pair %d: no calibration: %+v", p, c)
		}
		aa += c.AAVerdicts
		alarms += c.FalseAlarms
		t.Logf("pair %d: %s; %s", p, checksOf(v), c.Line())
	}
	measured, judged := 0, 0
	for i, p := range all {
		if len(all) < 3 {
			break
		}
		ctl := map[string][]float64{}
		for k, o := range all {
			for q, l := range o.logs {
				if k != i {
					ctl[q] = append(ctl[q], l)
				}
			}
		}
		d := verdict.DriftFromRatios(verdict.DriftControls, ctl)
		v := compareRuns(p.base, p.cand, p.ivs, d)
		judged++
		if v.Regressed {
			measured++
			t.Logf("pair %d with the drift of the other pairs (%s): %s", i+1, d.Line(), checksOf(v))
		}
	}
	t.Logf("%d real A/A pairs called REGRESSION: %d with the drift assumed, %d of %d with the drift the other pairs measured, %d by the within-run interval alone; the runs' own splits: %d of %d",
		pairs, assumed, measured, judged, within, alarms, aa)
	if assumed*20 > pairs || measured*20 > pairs {
		t.Errorf("%d (drift assumed) and %d (drift measured) of %d A/A pairs called REGRESSION, want at most 1 in 20", assumed, measured, pairs)
	}
}

// intervalsOf is each run's steady intervals.
func intervalsOf(t *testing.T, runs ...*rundir.Summary) []verdict.RunIntervals {
	t.Helper()
	ivs := make([]verdict.RunIntervals, len(runs))
	for i, s := range runs {
		tags, _, err := rundir.ReadRunIntervals(s.Dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		ivs[i] = verdict.SteadyIntervals(s, tags)
	}
	return ivs
}

// compareRuns is soakd compare's verdict of cand against base (ivs
// theirs), the drift measured by controls or, nil, assumed.
func compareRuns(base, cand *rundir.Summary, ivs []verdict.RunIntervals, d *verdict.Drift) *verdict.Regression {
	return verdict.CompareIntervals([]*rundir.Summary{base}, []*rundir.Summary{cand}, ivs[:1], ivs[1:], verdict.IntervalOptions{Drift: d})
}

// checksOf is every check of v in one line, for the log.
func checksOf(v *verdict.Regression) string {
	var out []string
	for _, o := range v.Ops {
		for _, c := range o.Checks {
			out = append(out, fmt.Sprintf("%s %s %s %s", o.Op, c.Quantile, c.Ratio, c.Call))
		}
	}
	return strings.Join(out, "; ")
}
