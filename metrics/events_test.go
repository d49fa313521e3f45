package metrics

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestExporterEvents: rate changes count per phase from 0; change points
// and cliffs carry their wall time as the value, change points of the
// same key numbered apart.
func TestExporterEvents(t *testing.T) {
	e := newTestExporter()
	e.Update("load", 0, 5000, window(t))
	e.Update("steady", 1000, 1000, window(t))
	e.RateChanged("steady")
	e.RateChanged("steady")
	at := time.Unix(1700000000, 500e6)
	e.AddChangePointTime("steady", "read", "p99", true, at)
	e.AddChangePointTime("steady", "read", "p99", true, at.Add(10*time.Second))
	e.AddChangePointTime("steady", "read", "rate", false, at)
	e.SetCliff("grow", "s3", "p99", at.Add(-time.Minute))
	e.SetCliff("grow", "s4", "rate", at)
	want := `
# HELP soakd_rate_changes_total Live rate changes applied to the phase (daemon API), by phase.
# TYPE soakd_rate_changes_total counter
soakd_rate_changes_total{phase="load",scenario="sc",shard="0"} 0
soakd_rate_changes_total{phase="steady",scenario="sc",shard="0"} 2
# HELP soakd_change_point_time_seconds Unix time of a change point the finished run found (see soakd_change_points), by phase, op, metric, direction and n (1-based within those).
# TYPE soakd_change_point_time_seconds gauge
soakd_change_point_time_seconds{direction="up",metric="p99",n="1",op="read",phase="steady",scenario="sc",shard="0"} 1.7000000005e+09
soakd_change_point_time_seconds{direction="up",metric="p99",n="2",op="read",phase="steady",scenario="sc",shard="0"} 1.7000000105e+09
soakd_change_point_time_seconds{direction="down",metric="rate",n="1",op="read",phase="steady",scenario="sc",shard="0"} 1.7000000005e+09
# HELP soakd_cliff_time_seconds Unix time the confirmed cliff's stage started in a growth phase, by phase, stage and reason.
# TYPE soakd_cliff_time_seconds gauge
soakd_cliff_time_seconds{phase="grow",reason="rate",scenario="sc",shard="0",stage="s4"} 1.7000000005e+09
`
	if err := testutil.CollectAndCompare(e, strings.NewReader(want), "soakd_rate_changes_total", "soakd_change_point_time_seconds", "soakd_cliff_time_seconds"); err != nil {
		t.Error(err)
	}
}
