package metrics

import (
	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/soakd/soakd/scenarios"
)

// promTotals is what the exporter keeps of a phase's ops since the
// phase began: each op's counters and its latency and service
// histograms, and the lag histogram, as tallies. A scrape converts a
// tally from its indices in use, in place (tallyHist), where an
// hdr.Histogram has to be copied out first (HistData: ~190 KB of
// garbage per histogram per scrape, which at 20,000 ops/s with a scrape
// every 10 s was 81% of all soakd allocated).
type promTotals struct {
	ops [scenarios.NumOps]*promOp
	lag tally
}

type promOp struct {
	OpCounts
	lat, svc tally
}

func newPromTotals() *promTotals { return &promTotals{lag: *newTally()} }

func (p *promTotals) op(i int) *promOp {
	if p.ops[i] == nil {
		p.ops[i] = &promOp{lat: *newTally(), svc: *newTally()}
	}
	return p.ops[i]
}

// add folds window w in: from its tallies when it is a window set (the
// buckets in use), else from its histograms (a Set built by hand). It
// runs pause (when not nil) after each op's pair (engine/pause.go).
func (p *promTotals) add(w *Set, pause func()) {
	for i, os := range w.Ops {
		if os == nil {
			continue
		}
		o := p.op(i)
		o.OpCounts.add(&os.OpCounts)
		if w.mirror == nil {
			o.lat.addHist(os.Latency)
			o.svc.addHist(os.Service)
		}
	}
	if w.mirror == nil {
		p.lag.addHist(w.Lag)
		return
	}
	for i, t := range w.mirror.ops {
		if t != nil && (t.lat.total != 0 || t.svc.total != 0) {
			o := p.op(i)
			o.lat.merge(&t.lat)
			o.svc.merge(&t.svc)
			if pause != nil {
				pause()
			}
		}
	}
	p.lag.merge(&w.mirror.lag)
}

// addHist records h's counts into t, one record per bar.
func (t *tally) addHist(h *hdr.Histogram) {
	if h == nil || h.TotalCount() == 0 {
		return
	}
	for _, b := range h.Distribution() {
		if b.Count != 0 {
			t.record(b.From, b.Count)
		}
	}
}

// tallyHist is HistData of t, read in place: the same bars (each index
// in use, from its lowest to its highest value) without a copy.
func tallyHist(t *tally) Hist {
	d := newHistBuilder()
	if t.total == 0 {
		return d.finish()
	}
	t.each(func(i int32, n int64) {
		d.add(tallyValue(i), tallyHighest(i), n)
	})
	return d.finish()
}

// tallyOver counts t's values above limit seconds, each bar placed by its
// upper edge as tallyHist places it in the classic buckets: an op the
// le=limit bucket would not count is over.
func tallyOver(t *tally, limit float64) uint64 {
	var n uint64
	t.each(func(i int32, c int64) {
		if float64(tallyHighest(i))/1e9 > limit {
			n += uint64(c)
		}
	})
	return n
}
