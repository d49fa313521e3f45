package metrics_test

import (
	"fmt"
	"time"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/scenarios"
)

// Workers record each op into a Recorder (one of a few stripes); the
// collector drains every stripe into a Set each interval and reads the
// percentiles from its histograms.
func ExampleRecorder() {
	ops := []scenarios.Op{scenarios.OpGet, scenarios.OpSet}
	r := metrics.NewRecorder(ops)
	const ms = int64(time.Millisecond)
	// 100 GETs taking 1..100 ms from their intended start (half of it
	// in service), sent on time, outcome class 0 (ok).
	for i := int64(1); i <= 100; i++ {
		r.Record(scenarios.OpGet, i*ms, i*ms/2, 0, 0)
	}
	// One SET, and two more not sent: they were 50 ms late (max_lag).
	r.Record(scenarios.OpSet, 3*ms, 3*ms, 0, 0)
	r.Drop(scenarios.OpSet, 2, 50*ms)

	interval := metrics.NewSet(ops)
	r.Drain(interval) // the recorder starts a new window
	interval.Sync(nil)
	get := metrics.Summarize(interval.Ops[scenarios.OpGet].Latency)
	fmt.Printf("get: %d ops, p50 %.3fs, p99 %.3fs, max %.3fs\n", get.Count, get.P50, get.P99, get.Max)
	set := interval.Ops[scenarios.OpSet]
	fmt.Printf("set: %d completed, %d dropped\n", set.Count, set.Dropped)

	next := metrics.NewSet(ops)
	r.Drain(next)
	fmt.Println("next window empty:", next.Empty())
	// Output:
	// get: 100 ops, p50 0.050s, p99 0.099s, max 0.100s
	// set: 1 completed, 2 dropped
	// next window empty: true
}
