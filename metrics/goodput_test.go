package metrics

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestExporterGoodput: soakd_goodput_rate_ops sits next to
// soakd_achieved_rate_ops for the running phase only.
func TestExporterGoodput(t *testing.T) {
	e := newTestExporter()
	e.Update("load", 0, 5000, window(t))
	e.SetGoodput("load", 5000)
	e.Update("steady", 1000, 1000, window(t))
	e.SetGoodput("steady", 530)
	e.SetGoodput("nosuchphase", 1) // ignored
	want := `
# HELP soakd_goodput_rate_ops Successful ops/s of the running phase over the last interval: the achieved rate less the ops that failed (an error class; misses succeed).
# TYPE soakd_goodput_rate_ops gauge
soakd_goodput_rate_ops{phase="steady",scenario="sc",shard="0"} 530
`
	if err := testutil.CollectAndCompare(e, strings.NewReader(want), "soakd_goodput_rate_ops"); err != nil {
		t.Error(err)
	}
}
