package metrics

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/soakd/soakd/scenarios"
)

// soakd_ops_lost_total stands beside soakd_ops_dropped_total with the
// same labels: 0 for every op from its first interval (so increase()
// sees the first seam), then the ops a resumed run's seams lost, per
// phase, added up over seams; an op lost before any of its ops
// completed after the seam is exported too.
func TestExporterLost(t *testing.T) {
	e := newTestExporter()
	e.Update("steady", 1000, 1000, window(t))
	want := `
# HELP soakd_ops_lost_total Operations the schedule called for whose outcome is unknown: due while soakd was down before run --resume, or in flight at the kill. Scheduled = completed + dropped + lost.
# TYPE soakd_ops_lost_total counter
soakd_ops_lost_total{op="read",phase="steady",scenario="sc",shard="0"} 0
`
	if err := testutil.CollectAndCompare(e, strings.NewReader(want), "soakd_ops_lost_total"); err != nil {
		t.Fatal(err)
	}
	e.AddLost("steady", scenarios.OpRead, 5600)
	e.AddLost("steady", scenarios.OpRead, 400)
	e.AddLost("steady", scenarios.OpUpdate, 700)
	e.AddLost("growth", scenarios.OpRead, 9)
	want = `
# HELP soakd_ops_lost_total Operations the schedule called for whose outcome is unknown: due while soakd was down before run --resume, or in flight at the kill. Scheduled = completed + dropped + lost.
# TYPE soakd_ops_lost_total counter
soakd_ops_lost_total{op="read",phase="growth",scenario="sc",shard="0"} 9
soakd_ops_lost_total{op="read",phase="steady",scenario="sc",shard="0"} 6000
soakd_ops_lost_total{op="update",phase="steady",scenario="sc",shard="0"} 700
`
	if err := testutil.CollectAndCompare(e, strings.NewReader(want), "soakd_ops_lost_total"); err != nil {
		t.Fatal(err)
	}
	// Lost ops are not completed ones: soakd_ops_total is unchanged.
	if got := testutil.CollectAndCount(e, "soakd_ops_total"); got != len(testClasses) {
		t.Errorf("soakd_ops_total series %d, want the read's %d classes", got, len(testClasses))
	}
	// The metric passes promtool's lint as a counter.
	if probs, err := testutil.CollectAndLint(e, "soakd_ops_lost_total"); err != nil || len(probs) > 0 {
		t.Errorf("lint: %v %v", probs, err)
	}
}
