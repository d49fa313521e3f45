package causetest

import (
	"context"
	"fmt"
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
// compare's verdict on each pair is an A/A verdict, and each states its
// calibration from the runs' own splits. SOAKD_AA_PAIRS sets the pairs
// (2 by default; 20 for the measurement in docs/verdicts.md). The self
// record is idle (procRoot): on a shared host every run would be bound
// and withheld, and the rule under test is the store verdict's. Logged:
// how many pairs compare called REGRESSION, and the false alarms its
// calibration measured in the same data.
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
	regressed, aa, alarms := 0, 0, 0
	for p := 1; p <= pairs; p++ {
		base := run(t, ctx, srv.URL(), quiet)
		cand := run(t, ctx, srv.URL(), quiet)
		v := compareRuns(t, base, cand)
		if v.Regressed {
			regressed++
		}
		c := v.Calibration
		if c == nil || c.AAVerdicts == 0 || c.MDE["p50"] <= 1 {
			t.Fatalf("pair %d: no calibration: %+v", p, c)
		}
		aa += c.AAVerdicts
		alarms += c.FalseAlarms
		t.Logf("pair %d: %s; %s", p, checksOf(v), c.Line())
	}
	t.Logf("%d of %d real A/A pairs called REGRESSION; their calibrations: %d of %d A/A splits", regressed, pairs, alarms, aa)
}

// compareRuns is soakd compare's verdict of cand against base.
func compareRuns(t *testing.T, base, cand *rundir.Summary) *verdict.Regression {
	t.Helper()
	ivs := make([]verdict.RunIntervals, 2)
	for i, s := range []*rundir.Summary{base, cand} {
		tags, _, err := rundir.ReadRunIntervals(s.Dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		ivs[i] = verdict.SteadyIntervals(s, tags)
	}
	return verdict.CompareIntervals([]*rundir.Summary{base}, []*rundir.Summary{cand}, ivs[:1], ivs[1:], verdict.IntervalOptions{})
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
