package cql

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/gocql/gocql"
)

// hostLatency is the driver's per-host view (a gocql QueryObserver):
// requests and their summed time per host, swapped out at each stats
// call so the figures cover the interval since the last one. A slow
// node shows as a max far above the min. Host addresses never become
// metric names: only the max, the min and the host count are reported.
type hostLatency struct {
	m sync.Map // host id -> *hostCounts
}

type hostCounts struct {
	n, nanos, errs atomic.Int64
}

// ObserveQuery counts one request attempt against the host that ran it.
func (h *hostLatency) ObserveQuery(_ context.Context, q gocql.ObservedQuery) {
	if q.Host == nil {
		return
	}
	id := q.Host.HostID()
	v, ok := h.m.Load(id)
	if !ok {
		v, _ = h.m.LoadOrStore(id, &hostCounts{})
	}
	c := v.(*hostCounts)
	c.n.Add(1)
	c.nanos.Add(int64(q.End.Sub(q.Start)))
	if q.Err != nil {
		c.errs.Add(1)
	}
}

// interval returns, over the hosts that served requests since the last
// call, the highest and lowest mean request time (seconds), how many
// hosts that is, and their errors; it resets the counts.
func (h *hostLatency) interval() (maxMean, minMean float64, hosts int, errs int64) {
	h.m.Range(func(_, v any) bool {
		c := v.(*hostCounts)
		n, ns := c.n.Swap(0), c.nanos.Swap(0)
		errs += c.errs.Swap(0)
		if n == 0 {
			return true
		}
		mean := float64(ns) / float64(n) / 1e9
		if hosts == 0 || mean > maxMean {
			maxMean = mean
		}
		if hosts == 0 || mean < minMean {
			minMean = mean
		}
		hosts++
		return true
	})
	return maxMean, minMean, hosts, errs
}
