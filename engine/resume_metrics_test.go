package engine

import (
	"testing"
	"time"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/targets"
)

// TestResumeExportsLost: a resumed run's exporter counts the seam's
// lost ops in soakd_ops_lost_total, per op, as its summary does.
func TestResumeExportsLost(t *testing.T) {
	sc := scenario(t, `
keyspace: {records: 200}
phases:
  - {name: steady, kind: steady, rate: 200, duration: 3s, concurrency: 4, mix: {read: 50, update: 50}}
`)
	dir := killedRun(t, sc, &recordingTarget{service: 5 * time.Millisecond}, 1100*time.Millisecond)
	exp := metrics.NewExporter(sc.Name, "0", targets.Classes(), nil)
	sum, _ := resumed(t, sc, &recordingTarget{service: 5 * time.Millisecond}, dir, time.Second, func(o *Options) { o.Exporter = exp })
	p := sum.Phases[0]
	if p.Lost < 150 {
		t.Fatalf("lost %d, want the ~200 due in the 1 s down", p.Lost)
	}
	got := lostCounters(t, exp, "steady")
	for _, op := range []string{"read", "update"} {
		if want := p.Ops[op].Lost; got[op] != want || want == 0 {
			t.Errorf("soakd_ops_lost_total{op=%q} = %v, summary's lost %v", op, got[op], want)
		}
	}
}
