package engine

import (
	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/targets"
)

// intervalGoodput is an interval's successful ops/s for the progress
// line and soakd_goodput_rate_ops: its achieved rate (ops completed in
// the interval) times the share of the interval's recorded ops that did
// not fail (an error class; a miss succeeds).
func intervalGoodput(achieved float64, w *metrics.Set, classes []string) float64 {
	if classes == nil {
		classes = targets.Classes()
	}
	var all, failed int64
	for _, os := range w.Ops {
		if os == nil {
			continue
		}
		all += os.Count
		for ci, n := range os.Classes {
			if ci < len(classes) && targets.IsError(classes[ci]) {
				failed += n
			}
		}
	}
	if all == 0 {
		return achieved
	}
	return achieved * float64(all-failed) / float64(all)
}
