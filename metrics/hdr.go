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
	OpCounts
}

// OpCounts are an op's counters beside its histograms.
type OpCounts struct {
	Count   int64 // completed ops (ok + errors)
	Classes [NumClasses]int64
	Dropped int64
	// Late counts the completed ops (in Count) that completed after
	// their segment's measured window ended: scheduled in the window,
	// finished in the drain. Count-Late completed in the window.
	Late int64
	// LateClasses are the Late ops by outcome class: Classes less these
	// completed in the window (goodput counts the window's successes).
	LateClasses [NumClasses]int64
}

// add adds o into c.
func (c *OpCounts) add(o *OpCounts) {
	c.Count += o.Count
	for i := range c.Classes {
		c.Classes[i] += o.Classes[i]
	}
	c.Dropped += o.Dropped
	c.Late += o.Late
	for i := range c.LateClasses {
		c.LateClasses[i] += o.LateClasses[i]
	}
}

func newOpStats() *OpStats { return &OpStats{Latency: NewHist(), Service: NewHist()} }

// Merge adds o into s.
func (s *OpStats) Merge(o *OpStats) {
	s.Latency.Merge(o.Latency)
	s.Service.Merge(o.Service)
	s.OpCounts.add(&o.OpCounts)
}

func (s *OpStats) reset() {
	s.Latency.Reset()
	s.Service.Reset()
	s.OpCounts = OpCounts{}
}

// Set is a group of per-op stats plus schedule lag.
type Set struct {
	Ops [scenarios.NumOps]*OpStats
	Lag *hdr.Histogram
	// mirror holds the same latency, service and lag counts as tallies,
	// for a window set (NewWindowSet): stripes drain into it, other sets
	// merge from it, and the interval's latency.hlog lines are encoded
	// from it (AppendHlog). nil for other sets. See window.go.
	mirror *tallySet
	// stale is true when the histograms (Latency, Service, Lag) do not
	// yet hold what mirror holds: Sync rebuilds them.
	stale bool
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

// NewWindowSet returns an empty Set for an interval's window: it keeps
// its latency, service and lag counts as tallies, which drains, merges
// from it and AppendHlog read at the cost of the buckets in use; its
// histograms hold them only after Sync (window.go).
func NewWindowSet(ops []scenarios.Op) *Set {
	s := NewSet(ops)
	s.mirror = newTallySet(ops)
	return s
}

// Merge adds o into s, creating op entries as needed. From a window set
// it adds the tallies' counts in use (mergeMirror), not every bucket of
// o's histograms up to their maximum.
func (s *Set) Merge(o *Set) {
	if o.mirror != nil {
		_ = s.mergeMirror(o, nil)
		return
	}
	if s.stale {
		s.Sync(nil) // s's histograms are about to hold more than its mirror
	}
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
	s.mirror = nil // a window set's tallies no longer hold all of it
}

// Reset empties the set, keeping its histograms. A window set's
// histograms are cleared by the next Sync.
func (s *Set) Reset() { s.reset() }

func (s *Set) reset() {
	if s.mirror != nil {
		s.mirror.reset()
		for _, os := range s.Ops {
			if os != nil {
				os.OpCounts = OpCounts{}
			}
		}
		s.stale = true
		return
	}
	for _, os := range s.Ops {
		if os != nil {
			os.reset()
		}
	}
	s.Lag.Reset()
}

// HlogEncoder encodes latency.hlog interval lines; it keeps its buffers
// between calls. The zero value is ready to use. Not safe for
// concurrent use.
type HlogEncoder struct {
	e hlogEncoder
	// Pause, when not nil, runs after each line (a histogram's
	// encoding is a unit of the collector's work: engine/pause.go).
	Pause func()
}

// AppendHlog appends s's interval lines to dst in hdrhistogram-go's
// HistogramLogWriter format: for each op with completed ops, in op
// order, <prefix>.<op>.latency then <prefix>.<op>.service (the op named
// by ops, the run's table), the interval starting startSec after the
// log's base time and lasting lengthSec.
func (s *Set) AppendHlog(dst []byte, prefix string, ops *scenarios.OpTable, startSec, lengthSec float64, enc *HlogEncoder) []byte {
	for op, os := range s.Ops {
		if os == nil || os.Count == 0 {
			continue
		}
		name := prefix + "." + ops.Name(scenarios.Op(op))
		var lat, svc *tally
		if s.mirror != nil && s.mirror.ops[op] != nil {
			lat, svc = &s.mirror.ops[op].lat, &s.mirror.ops[op].svc
		} else {
			lat, svc = tallyOf(os.Latency), tallyOf(os.Service)
		}
		dst = enc.e.appendHlogLine(dst, name+".latency", startSec, lengthSec, lat)
		if enc.Pause != nil {
			enc.Pause()
		}
		dst = enc.e.appendHlogLine(dst, name+".service", startSec, lengthSec, svc)
		if enc.Pause != nil {
			enc.Pause()
		}
	}
	return dst
}

// tallyOf copies h's counts into a new tally (the slow path, for a set
// made without a mirror).
func tallyOf(h *hdr.Histogram) *tally {
	t := newTally()
	snap := h.Export()
	for i, c := range snap.Counts {
		if c != 0 {
			t.add(int32(i), c)
		}
	}
	return t
}

// tallyOp is what a Recorder stripe holds for one op.
type tallyOp struct {
	lat, svc tally
	OpCounts
}

// tallySet is a Set's hot-path form: tallies instead of hdr.Histograms.
type tallySet struct {
	ops [scenarios.NumOps]*tallyOp
	lag tally
}

func newTallySet(ops []scenarios.Op) *tallySet {
	s := &tallySet{lag: *newTally()}
	for _, op := range ops {
		s.ops[op] = &tallyOp{lat: *newTally(), svc: *newTally()}
	}
	return s
}

func (s *tallySet) merge(o *tallySet) {
	for i, os := range o.ops {
		if os == nil {
			continue
		}
		if s.ops[i] == nil {
			s.ops[i] = &tallyOp{lat: *newTally(), svc: *newTally()}
		}
		s.ops[i].lat.merge(&os.lat)
		s.ops[i].svc.merge(&os.svc)
	}
	s.lag.merge(&o.lag)
}

func (s *tallySet) reset() {
	for _, os := range s.ops {
		if os != nil {
			os.lat.reset()
			os.svc.reset()
			os.OpCounts = OpCounts{}
		}
	}
	s.lag.reset()
}

// drainInto adds s into dst and empties s. A window set gets s in its
// mirror only (drainIntoMirror).
func (s *tallySet) drainInto(dst *Set) {
	if dst.mirror != nil {
		s.drainIntoMirror(dst)
		return
	}
	for i, os := range s.ops {
		if os == nil {
			continue
		}
		d := dst.Ops[i]
		if d == nil {
			d = newOpStats()
			dst.Ops[i] = d
		}
		if os.Count == 0 && os.Dropped == 0 {
			continue
		}
		os.lat.addTo(d.Latency)
		os.svc.addTo(d.Service)
		d.OpCounts.add(&os.OpCounts)
	}
	s.lag.addTo(dst.Lag)
	s.reset()
}

// Recorder is one stripe of the hot-path recording. Workers share a
// small number of stripes (not one each); a stripe's mutex is rarely
// contended. A stripe records into tallies (hdr's counts layout without
// its iterator), so the collector's drain costs the indices in use, not
// the whole range. Drain holds the mutex only to swap the live window
// for an empty spare (as hdrhistogram-go's window Rotate and Java's
// interval Recorder do): the merge and reset happen outside it, so a
// worker never waits for one.
type Recorder struct {
	mu  sync.Mutex
	cur *tallySet
	// warm holds ops that belong to a warmup (by intended start); nil
	// when the recorder was made without one.
	warm *tallySet

	// drainMu serialises drains; the spares are touched only under it.
	drainMu             sync.Mutex
	spareCur, spareWarm *tallySet
}

// NewRecorder records the given ops.
func NewRecorder(ops []scenarios.Op) *Recorder {
	return &Recorder{cur: newTallySet(ops), spareCur: newTallySet(ops)}
}

// NewWarmupRecorder records the given ops and keeps ops recorded
// InWarmup apart from the measured ones (see DrainSplit).
func NewWarmupRecorder(ops []scenarios.Op) *Recorder {
	return &Recorder{cur: newTallySet(ops), warm: newTallySet(ops), spareCur: newTallySet(ops), spareWarm: newTallySet(ops)}
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
func (r *Recorder) set(w Window) *tallySet {
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
	s := set.ops[op]
	if s != nil {
		s.lat.record(latencyNs, 1)
		s.svc.record(serviceNs, 1)
		s.Count++
		s.Classes[class&(NumClasses-1)]++
		if w == InDrain {
			s.Late++
			s.LateClasses[class&(NumClasses-1)]++
		}
	}
	set.lag.record(lagNs, 1)
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
	if s := set.ops[op]; s != nil {
		s.Dropped += n
	}
	if n > 0 {
		set.lag.record(lagNs, n)
	}
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
	cur.drainInto(dst)
	r.spareCur = cur
	if w != nil {
		w.drainInto(warm)
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
