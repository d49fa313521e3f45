// Package metrics holds soakd's measurement: HDR recording on the hot
// path (striped, windowed, merged each interval), summaries of
// histograms, and the Prometheus exposition.
package metrics

import (
	"math"
	"sync"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/soakd/soakd/scenarios"
)

// Histogram range: 1 us .. 1 h in nanoseconds, 3 significant digits.
const (
	LowestNs  = 1000
	HighestNs = int64(3600) * 1e9
	SigFigs   = 3
)

// NewHist returns an empty histogram with soakd's range.
func NewHist() *hdr.Histogram { return hdr.New(LowestNs, HighestNs, SigFigs) }

// NumClasses bounds the number of outcome classes an op can be counted in.
const NumClasses = 16

// OpStats is what has been recorded for one op.
type OpStats struct {
	Latency *hdr.Histogram // from intended start
	Service *hdr.Histogram // from actual send
	Count   int64          // completed ops (ok + errors)
	Classes [NumClasses]int64
	Dropped int64
	// Late counts the completed ops (in Count) that completed after
	// their segment's measured window ended: scheduled in the window,
	// finished in the drain. Count-Late completed in the window.
	Late int64
}

func newOpStats() *OpStats { return &OpStats{Latency: NewHist(), Service: NewHist()} }

// Merge adds o into s.
func (s *OpStats) Merge(o *OpStats) {
	s.Latency.Merge(o.Latency)
	s.Service.Merge(o.Service)
	s.Count += o.Count
	for i := range s.Classes {
		s.Classes[i] += o.Classes[i]
	}
	s.Dropped += o.Dropped
	s.Late += o.Late
}

func (s *OpStats) reset() {
	s.Latency.Reset()
	s.Service.Reset()
	s.Count = 0
	s.Classes = [NumClasses]int64{}
	s.Dropped = 0
	s.Late = 0
}

// Set is a group of per-op stats plus schedule lag.
type Set struct {
	Ops [scenarios.NumOps]*OpStats
	Lag *hdr.Histogram
}

// NewSet returns an empty Set with histograms for the given ops only
// (a histogram is ~190 KB; ops outside the mix get none).
func NewSet(ops []scenarios.Op) *Set {
	s := &Set{Lag: NewHist()}
	for _, op := range ops {
		s.Ops[op] = newOpStats()
	}
	return s
}

// Merge adds o into s, creating op entries as needed.
func (s *Set) Merge(o *Set) {
	for i, os := range o.Ops {
		if os == nil {
			continue
		}
		if s.Ops[i] == nil {
			s.Ops[i] = newOpStats()
		}
		s.Ops[i].Merge(os)
	}
	s.Lag.Merge(o.Lag)
}

// Reset empties the set, keeping its histograms.
func (s *Set) Reset() { s.reset() }

func (s *Set) reset() {
	for _, os := range s.Ops {
		if os != nil {
			os.reset()
		}
	}
	s.Lag.Reset()
}

// Recorder is one stripe of the hot-path recording. Workers share a
// small number of stripes (not one each, which would cost 190 KB per
// histogram per worker); a stripe's mutex is rarely contended. Drain
// holds it only to swap the live window for an empty spare (as
// hdrhistogram-go's window Rotate and Java's interval Recorder do): the
// merge and reset happen outside it, so a worker never waits for one.
type Recorder struct {
	mu  sync.Mutex
	cur *Set
	// warm holds ops that belong to a warmup (by intended start); nil
	// when the recorder was made without one.
	warm *Set

	// drainMu serialises drains; the spares are touched only under it.
	drainMu             sync.Mutex
	spareCur, spareWarm *Set
}

// NewRecorder records the given ops.
func NewRecorder(ops []scenarios.Op) *Recorder {
	return &Recorder{cur: NewSet(ops), spareCur: NewSet(ops)}
}

// NewWarmupRecorder records the given ops and keeps ops recorded
// InWarmup apart from the measured ones (see DrainSplit).
func NewWarmupRecorder(ops []scenarios.Op) *Recorder {
	return &Recorder{cur: NewSet(ops), warm: NewSet(ops), spareCur: NewSet(ops), spareWarm: NewSet(ops)}
}

// Window says which part of a segment an op belongs to.
type Window uint8

const (
	// InWindow: intended in the measured window and completed in it.
	InWindow Window = iota
	// InDrain: intended in the measured window, completed after it
	// ended. Counted in Count and Late.
	InDrain
	// InWarmup: intended before the warmup ended. Kept apart from the
	// measured figures.
	InWarmup
)

func clamp(ns int64) int64 {
	if ns < 0 {
		return 0
	}
	if ns > HighestNs {
		return HighestNs
	}
	return ns
}

// Record records one completed op: latency from intended start, service
// time from actual send, lag (send - intended) and its outcome class.
func (r *Recorder) Record(op scenarios.Op, latencyNs, serviceNs, lagNs int64, class uint8) {
	r.RecordIn(InWindow, op, latencyNs, serviceNs, lagNs, class)
}

// set returns the set an op of window w goes to (the lock is held).
func (r *Recorder) set(w Window) *Set {
	if w == InWarmup && r.warm != nil {
		return r.warm
	}
	return r.cur
}

// RecordIn records one completed op in the part of the segment it
// belongs to.
func (r *Recorder) RecordIn(w Window, op scenarios.Op, latencyNs, serviceNs, lagNs int64, class uint8) {
	r.mu.Lock()
	set := r.set(w)
	s := set.Ops[op]
	if s != nil {
		_ = s.Latency.RecordValue(clamp(latencyNs))
		_ = s.Service.RecordValue(clamp(serviceNs))
		s.Count++
		s.Classes[class&(NumClasses-1)]++
		if w == InDrain {
			s.Late++
		}
	}
	_ = set.Lag.RecordValue(clamp(lagNs))
	r.mu.Unlock()
}

// Drop counts n ops of kind op that were not sent because they were
// later than max_lag; lag is how late the first of them was.
func (r *Recorder) Drop(op scenarios.Op, n int64, lagNs int64) {
	r.DropIn(InWindow, op, n, lagNs)
}

// DropIn is Drop for ops of window w (InWarmup keeps them apart).
func (r *Recorder) DropIn(w Window, op scenarios.Op, n int64, lagNs int64) {
	r.mu.Lock()
	set := r.set(w)
	if s := set.Ops[op]; s != nil {
		s.Dropped += n
	}
	_ = set.Lag.RecordValues(clamp(lagNs), n)
	r.mu.Unlock()
}

// Drain merges the stripe's window (warmup ops included) into dst and
// starts a new window.
func (r *Recorder) Drain(dst *Set) { r.DrainSplit(dst, dst) }

// DrainSplit merges the stripe's measured ops into dst and its warmup
// ops into warm, and starts a new window.
func (r *Recorder) DrainSplit(dst, warm *Set) {
	r.drainMu.Lock()
	defer r.drainMu.Unlock()
	r.mu.Lock()
	cur, w := r.cur, r.warm
	r.cur = r.spareCur
	if w != nil {
		r.warm = r.spareWarm
	}
	r.mu.Unlock()
	dst.Merge(cur)
	cur.reset()
	r.spareCur = cur
	if w != nil {
		warm.Merge(w)
		w.reset()
		r.spareWarm = w
	}
}

// Empty reports whether the set holds no completed or dropped op.
func (s *Set) Empty() bool {
	for _, os := range s.Ops {
		if os != nil && (os.Count > 0 || os.Dropped > 0) {
			return false
		}
	}
	return true
}

// Summary of one histogram in seconds, like Prometheus.
type Summary struct {
	Count int64   `json:"count"`
	P50   float64 `json:"p50"`
	P90   float64 `json:"p90"`
	P99   float64 `json:"p99"`
	P999  float64 `json:"p99.9"`
	P9999 float64 `json:"p99.99"`
	Max   float64 `json:"max"`
	Mean  float64 `json:"mean"`
	Min   float64 `json:"min"`
}

// Summarize reads percentiles from h.
func Summarize(h *hdr.Histogram) Summary {
	if h == nil || h.TotalCount() == 0 {
		return Summary{}
	}
	s := func(ns int64) float64 { return float64(ns) / 1e9 }
	return Summary{
		Count: h.TotalCount(),
		P50:   s(h.ValueAtQuantile(50)),
		P90:   s(h.ValueAtQuantile(90)),
		P99:   s(h.ValueAtQuantile(99)),
		P999:  s(h.ValueAtQuantile(99.9)),
		P9999: s(h.ValueAtQuantile(99.99)),
		Max:   s(h.Max()),
		Mean:  math.Round(h.Mean()) / 1e9,
		Min:   s(h.Min()),
	}
}

// Quantile returns the value at percentile p (0..100) in seconds.
func Quantile(h *hdr.Histogram, p float64) float64 {
	if h == nil || h.TotalCount() == 0 {
		return 0
	}
	if p >= 100 {
		return float64(h.Max()) / 1e9
	}
	return float64(h.ValueAtQuantile(p)) / 1e9
}
