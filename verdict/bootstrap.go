package verdict

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Bootstrap defaults.
const (
	DefaultLevel     = 0.95
	DefaultResamples = 2000
)

// Interval is an estimate with its confidence interval [Lo, Hi] at
// Level (0.95 = 95%). The zero Interval means "nothing to estimate"
// (a side without data); Valid tells.
type Interval struct {
	Estimate float64 `json:"estimate"`
	Lo       float64 `json:"lo"`
	Hi       float64 `json:"hi"`
	Level    float64 `json:"level"`
}

// Valid says whether the interval was estimated from data on both sides.
func (iv Interval) Valid() bool { return iv.Level > 0 && iv.Estimate > 0 }

// Excludes says whether v lies outside [Lo, Hi].
func (iv Interval) Excludes(v float64) bool { return iv.Valid() && (v < iv.Lo || v > iv.Hi) }

// BootstrapOptions tune the block bootstrap. The zero value is the
// default: 95%, 2000 resamples, automatic block length, seed 0.
type BootstrapOptions struct {
	Level     float64 // 0 = 0.95
	Resamples int     // 0 = 2000
	BlockLen  int     // 0 = automatic (PolitisWhiteBlockLen on the series, see commonBlockLen)
	Seed      uint64
}

func (o BootstrapOptions) withDefaults() BootstrapOptions {
	if !(o.Level > 0 && o.Level < 1) {
		o.Level = DefaultLevel
	}
	if o.Resamples <= 0 {
		o.Resamples = DefaultResamples
	}
	return o
}

// AutoBlockLen is the fallback block length for a series of n
// intervals too short (or too flat) for PolitisWhiteBlockLen:
// round(n^(1/3)), at least 1 — the rate that
// minimises the mean squared error of the block bootstrap's variance
// estimate (Hall, Horowitz & Jing 1995; Lahiri 2003, ch. 7), with the
// constant taken as 1. 30 intervals give blocks of 3, 60 give 4, 1000
// give 10.
func AutoBlockLen(n int) int {
	if n <= 1 {
		return 1
	}
	return max(1, int(math.Round(math.Cbrt(float64(n)))))
}

// sparseHist is one interval histogram as (value index, count) pairs
// over a value table shared by every interval of a comparison: summing
// a resample touches only the buckets that hold counts.
type sparseHist struct {
	idx   []int32
	cnt   []int64
	total int64
}

// valueTable maps an HDR bucket's reported value (its highest
// equivalent value, what ValueAtQuantile returns) to a dense index.
type valueTable struct {
	values []int64 // sorted
	index  map[int64]int32
}

// geometry is an HDR histogram's range and precision.
type geometry struct {
	lowest, highest, sigFigs int64
}

// bucketValues is the value each counts-array index of a histogram of
// geometry g reports (its highest equivalent value, what
// ValueAtQuantile returns), read once from the distribution of a
// histogram holding only its highest trackable value: the distribution
// walks every index up to it, in counts-array order.
func bucketValues(g geometry) []int64 {
	h := hdr.New(g.lowest, g.highest, int(g.sigFigs))
	if err := h.RecordValue(g.highest); err != nil {
		return nil
	}
	d := h.Distribution()
	vals := make([]int64, len(d))
	for i, b := range d {
		vals[i] = b.To
	}
	return vals
}

// compactHists turns every histogram of every side into a sparse
// vector over one shared, sorted value table.
func compactHists(sides ...[][]*hdr.Histogram) (*valueTable, [][][]sparseHist) {
	type bar struct {
		v int64
		n int64
	}
	bars := make([][][][]bar, len(sides))
	seen := map[int64]bool{}
	geoms := map[geometry][]int64{}
	for s, reps := range sides {
		bars[s] = make([][][]bar, len(reps))
		for r, ivs := range reps {
			bars[s][r] = make([][]bar, len(ivs))
			for i, h := range ivs {
				if h == nil || h.TotalCount() == 0 {
					continue
				}
				snap := h.Export()
				g := geometry{snap.LowestTrackableValue, snap.HighestTrackableValue, snap.SignificantFigures}
				vals, ok := geoms[g]
				if !ok {
					vals = bucketValues(g)
					geoms[g] = vals
				}
				var bs []bar
				for k, c := range snap.Counts {
					if c == 0 {
						continue
					}
					if k >= len(vals) { // not expected: read the slow way
						bs = nil
						for _, b := range h.Distribution() {
							if b.Count > 0 {
								bs = append(bs, bar{b.To, b.Count})
							}
						}
						break
					}
					bs = append(bs, bar{vals[k], c})
				}
				for _, b := range bs {
					seen[b.v] = true
				}
				bars[s][r][i] = bs
			}
		}
	}
	vt := &valueTable{index: make(map[int64]int32, len(seen))}
	for v := range seen {
		vt.values = append(vt.values, v)
	}
	slices.Sort(vt.values)
	for i, v := range vt.values {
		vt.index[v] = int32(i)
	}
	out := make([][][]sparseHist, len(sides))
	for s := range bars {
		out[s] = make([][]sparseHist, len(bars[s]))
		for r := range bars[s] {
			out[s][r] = make([]sparseHist, len(bars[s][r]))
			for i, bs := range bars[s][r] {
				sh := sparseHist{idx: make([]int32, len(bs)), cnt: make([]int64, len(bs))}
				for k, b := range bs {
					sh.idx[k] = vt.index[b.v]
					sh.cnt[k] = b.n
					sh.total += b.n
				}
				out[s][r][i] = sh
			}
		}
	}
	return vt, out
}

// quantilesOf reads percentiles qs (ascending) from dense summed
// counts the way hdrhistogram-go's ValueAtQuantile does: the value of
// the first bucket whose cumulative count reaches round(q/100 x total),
// at least 1.
func (vt *valueTable) quantilesOf(acc []int64, total int64, qs []float64, out []float64) {
	if total == 0 {
		for i := range out {
			out[i] = 0
		}
		return
	}
	k := 0
	rank := hdrRank(qs[0], total)
	var cum int64
	for i, c := range acc {
		cum += c
		for k < len(qs) && cum >= rank {
			out[k] = float64(vt.values[i])
			k++
			if k < len(qs) {
				rank = hdrRank(qs[k], total)
			}
		}
		if k == len(qs) {
			return
		}
	}
	for ; k < len(qs); k++ {
		out[k] = float64(vt.values[len(vt.values)-1])
	}
}

func hdrRank(q float64, total int64) int64 {
	q = min(max(q, 0), 100)
	rank := q/100*float64(total) + 0.5
	if !(rank >= 1) {
		return 1
	}
	if rank >= float64(total) {
		return total
	}
	return int64(rank)
}

// resampler draws one bootstrap resample of a side's intervals: with
// more than one repeat, repeats with replacement; within each drawn
// repeat, a circular block bootstrap (Politis & Romano 1992) of its
// intervals to the repeat's own length.
type resampler struct {
	rng      *rand.Rand
	blockLen int // fixed, or 0 = AutoBlockLen per repeat
}

// draw calls visit(repeat, interval) for each interval of one resample
// of a side with the given per-repeat lengths.
func (rs *resampler) draw(lens []int, visit func(r, i int)) {
	nrep := len(lens)
	for k := 0; k < nrep; k++ {
		r := k
		if nrep > 1 {
			r = rs.rng.IntN(nrep)
		}
		n := lens[r]
		if n == 0 {
			continue
		}
		b := rs.blockLen
		if b <= 0 {
			b = AutoBlockLen(n)
		}
		b = min(b, n)
		for got := 0; got < n; {
			start := rs.rng.IntN(n)
			for j := 0; j < b && got < n; j++ {
				visit(r, (start+j)%n)
				got++
			}
		}
	}
}

// QuantileRatio estimates the ratio cand/base of percentile q (0..100,
// e.g. 99) of the latency in base and cand. Each side holds one element
// per repeat (run); a repeat is its op's latency as consecutive interval
// histograms (latency.hlog's windows). The estimate is the ratio of the
// percentiles of all intervals merged; the interval is the percentile
// bootstrap interval of that ratio over resamples that draw repeats
// with replacement (when there is more than one) and circular blocks of
// consecutive intervals within each repeat, so that the correlation
// between neighbouring seconds of a run is kept. Deterministic for a
// Seed. The zero Interval when a side has no ops.
func QuantileRatio(base, cand [][]*hdr.Histogram, q float64, o BootstrapOptions) Interval {
	return QuantileRatios(base, cand, []float64{q}, o)[0]
}

// QuantileRatios is QuantileRatio for several percentiles at once, from
// the same resamples (cheaper than one call per percentile).
func QuantileRatios(base, cand [][]*hdr.Histogram, qs []float64, o BootstrapOptions) []Interval {
	return quantileRatios(base, cand, qs, o, cumulativeCap)
}

// cumulativeCap bounds the cells (distinct values x intervals) of the
// cumulative tables; larger comparisons sum sparse intervals instead.
const cumulativeCap = 1 << 23

func quantileRatios(base, cand [][]*hdr.Histogram, qs []float64, o BootstrapOptions, cellCap int) []Interval {
	out, _ := quantileRatiosBlock(base, cand, qs, o, cellCap)
	return out
}

// quantileRatiosBlock is quantileRatios also returning the block length
// used (0 when nothing was resampled).
func quantileRatiosBlock(base, cand [][]*hdr.Histogram, qs []float64, o BootstrapOptions, cellCap int) ([]Interval, int) {
	o = o.withDefaults()
	out := make([]Interval, len(qs))
	if len(qs) == 0 {
		return out, 0
	}
	order := make([]int, len(qs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return qs[order[a]] < qs[order[b]] })
	sorted := make([]float64, len(qs))
	for i, k := range order {
		sorted[i] = qs[k]
	}
	vt, sp := compactHists(base, cand)
	if len(vt.values) == 0 {
		return out, 0
	}
	var sides [2]*sideCounts
	for s := range sides {
		sides[s] = newSideCounts(vt, sp[s], cellCap)
		if sides[s].total() == 0 {
			return out, 0
		}
	}
	var qv [2][]float64
	for s := range sides {
		qv[s] = make([]float64, len(sorted))
		w := sides[s].w
		for i := range w {
			w[i] = 1
		}
		sides[s].quantiles(sorted, qv[s])
	}
	if o.BlockLen <= 0 {
		var series [][]float64
		for s := range sides {
			series = append(series, sides[s].logMeanSeries()...)
		}
		o.BlockLen = commonBlockLen(series)
	}
	rs := &resampler{rng: rand.New(rand.NewPCG(o.Seed, 0x5eedb007)), blockLen: o.BlockLen}
	logs := make([][]float64, len(sorted))
	for i := range logs {
		logs[i] = make([]float64, 0, o.Resamples)
	}
	var bq [2][]float64
	bq[0] = make([]float64, len(sorted))
	bq[1] = make([]float64, len(sorted))
	for b := 0; b < o.Resamples; b++ {
		for s, sc := range sides {
			clear(sc.w)
			rs.draw(sc.lens, func(r, i int) { sc.w[sc.offset[r]+i]++ })
			sc.quantiles(sorted, bq[s])
		}
		for i := range sorted {
			if bq[0][i] > 0 && bq[1][i] > 0 {
				logs[i] = append(logs[i], math.Log(bq[1][i]/bq[0][i]))
			}
		}
	}
	per := [2][][]float64{sides[0].repeatQuantiles(sorted), sides[1].repeatQuantiles(sorted)}
	for i, k := range order {
		if qv[0][i] <= 0 {
			continue
		}
		out[k] = percentileInterval(qv[1][i]/qv[0][i], logs[i], o.Level)
		if per[0] != nil && per[1] != nil {
			if t, ok := roundsInterval(column(per[0], i), column(per[1], i), o.Level); ok {
				out[k] = widen(out[k], t)
			}
		}
	}
	return out, o.BlockLen
}

// repeatQuantiles is each repeat's percentiles qs (sorted ascending)
// from its own intervals; nil with fewer than two repeats.
func (sc *sideCounts) repeatQuantiles(qs []float64) [][]float64 {
	if len(sc.lens) < 2 {
		return nil
	}
	out := make([][]float64, len(sc.lens))
	for r := range sc.lens {
		clear(sc.w)
		for i := 0; i < sc.lens[r]; i++ {
			sc.w[sc.offset[r]+i] = 1
		}
		out[r] = make([]float64, len(qs))
		sc.quantiles(qs, out[r])
	}
	return out
}

// column is element i of every row.
func column(rows [][]float64, i int) []float64 {
	out := make([]float64, len(rows))
	for r, row := range rows {
		out[r] = row[i]
	}
	return out
}

// sideCounts holds one side's intervals (all repeats, flattened) and
// the weights of a resample: how often each interval was drawn. A
// percentile of the weighted sum is found either by binary search over
// per-interval cumulative counts stored value-major (cum[j*n+i]: the
// ops of interval i at or below value j; a probe costs one pass over
// the drawn intervals) or, when that table would be too large, by
// summing the sparse intervals into a dense count vector.
type sideCounts struct {
	vt     *valueTable
	lens   []int // intervals per repeat
	offset []int // first flat index of each repeat
	ivs    []sparseHist
	w      []int32
	cum    []int32 // nil: sparse mode
	acc    []int64 // sparse mode's dense sum
	nz     []int32 // drawn intervals (cumulative mode)
}

func newSideCounts(vt *valueTable, reps [][]sparseHist, cellCap int) *sideCounts {
	sc := &sideCounts{vt: vt}
	for _, rep := range reps {
		sc.lens = append(sc.lens, len(rep))
		sc.offset = append(sc.offset, len(sc.ivs))
		sc.ivs = append(sc.ivs, rep...)
	}
	n, k := len(sc.ivs), len(vt.values)
	sc.w = make([]int32, n)
	if n*k > cellCap {
		sc.acc = make([]int64, k)
		return sc
	}
	sc.cum = make([]int32, n*k)
	row := make([]int64, k)
	for i, h := range sc.ivs {
		clear(row)
		for m, ix := range h.idx {
			row[ix] += h.cnt[m]
		}
		var c int64
		for j := 0; j < k; j++ {
			c += row[j]
			sc.cum[j*n+i] = int32(min(c, math.MaxInt32))
		}
	}
	return sc
}

// logMeanSeries is each repeat's per-interval log mean latency (an
// interval without ops repeats its predecessor's), the series the
// automatic block length is chosen from.
func (sc *sideCounts) logMeanSeries() [][]float64 {
	var out [][]float64
	for r, n := range sc.lens {
		xs := make([]float64, n)
		prev := 0.0
		for i := range xs {
			h := &sc.ivs[sc.offset[r]+i]
			if h.total > 0 {
				var sum float64
				for m, ix := range h.idx {
					sum += float64(sc.vt.values[ix]) * float64(h.cnt[m])
				}
				prev = math.Log(sum / float64(h.total))
			}
			xs[i] = prev
		}
		out = append(out, xs)
	}
	return out
}

func (sc *sideCounts) total() int64 {
	var t int64
	for _, h := range sc.ivs {
		t += h.total
	}
	return t
}

// quantiles reads percentiles qs (ascending) of the intervals summed
// with weights sc.w into out (ns; 0 when the resample holds no ops).
func (sc *sideCounts) quantiles(qs []float64, out []float64) {
	var total int64
	for i, w := range sc.w {
		total += int64(w) * sc.ivs[i].total
	}
	if sc.cum == nil {
		clear(sc.acc)
		for i, w := range sc.w {
			if w == 0 {
				continue
			}
			h := &sc.ivs[i]
			for m, ix := range h.idx {
				sc.acc[ix] += int64(w) * h.cnt[m]
			}
		}
		sc.vt.quantilesOf(sc.acc, total, qs, out)
		return
	}
	if total == 0 {
		clear(out)
		return
	}
	sc.nz = sc.nz[:0]
	for i, w := range sc.w {
		if w != 0 {
			sc.nz = append(sc.nz, int32(i))
		}
	}
	n, k := len(sc.ivs), len(sc.vt.values)
	below := func(j int) int64 {
		col := sc.cum[j*n : j*n+n]
		var c int64
		for _, i := range sc.nz {
			c += int64(sc.w[i]) * int64(col[i])
		}
		return c
	}
	lo := 0
	for q, p := range qs {
		rank := hdrRank(p, total)
		// smallest j in [lo, k) with below(j) >= rank
		j := lo + sort.Search(k-lo, func(d int) bool { return below(lo+d) >= rank })
		j = min(j, k-1)
		out[q] = float64(sc.vt.values[j])
		lo = j
	}
}

// RateRatio estimates the ratio cand/base of the mean per-interval rate
// (e.g. ops/s in each second), resampling as QuantileRatio does. The
// zero Interval when a side is empty or its mean is not positive.
func RateRatio(base, cand [][]float64, o BootstrapOptions) Interval {
	o = o.withDefaults()
	var lens [2][]int
	var sums [2]float64
	var ns [2]int
	sides := [2][][]float64{base, cand}
	for s := range sides {
		for _, rep := range sides[s] {
			lens[s] = append(lens[s], len(rep))
			for _, x := range rep {
				sums[s] += x
			}
			ns[s] += len(rep)
		}
	}
	if ns[0] == 0 || ns[1] == 0 || sums[0] <= 0 {
		return Interval{}
	}
	est := (sums[1] / float64(ns[1])) / (sums[0] / float64(ns[0]))
	if !(est > 0) {
		return Interval{}
	}
	if o.BlockLen <= 0 {
		o.BlockLen = commonBlockLen(append(append([][]float64{}, base...), cand...))
	}
	rs := &resampler{rng: rand.New(rand.NewPCG(o.Seed, 0x5eedb007)), blockLen: o.BlockLen}
	logs := make([]float64, 0, o.Resamples)
	for b := 0; b < o.Resamples; b++ {
		var m [2]float64
		for s := range sides {
			var sum float64
			n := 0
			rs.draw(lens[s], func(r, i int) {
				sum += sides[s][r][i]
				n++
			})
			if n > 0 {
				m[s] = sum / float64(n)
			}
		}
		if m[0] > 0 && m[1] > 0 {
			logs = append(logs, math.Log(m[1]/m[0]))
		}
	}
	iv := percentileInterval(est, logs, o.Level)
	if t, ok := roundsInterval(repeatMeans(base), repeatMeans(cand), o.Level); ok {
		iv = widen(iv, t)
	}
	return iv
}

// percentileInterval is the percentile bootstrap interval from the
// resampled log ratios (the (1-level)/2 and (1+level)/2 empirical
// quantiles, linearly interpolated), back on the ratio scale.
func percentileInterval(est float64, logs []float64, level float64) Interval {
	iv := Interval{Estimate: est, Lo: est, Hi: est, Level: level}
	if len(logs) == 0 {
		return iv
	}
	slices.Sort(logs)
	iv.Lo = math.Exp(empiricalQuantile(logs, (1-level)/2))
	iv.Hi = math.Exp(empiricalQuantile(logs, (1+level)/2))
	return iv
}

// empiricalQuantile of sorted xs at p (0..1), interpolating between
// order statistics (type 7 of Hyndman & Fan).
func empiricalQuantile(xs []float64, p float64) float64 {
	if len(xs) == 1 {
		return xs[0]
	}
	h := p * float64(len(xs)-1)
	lo := int(math.Floor(h))
	if lo >= len(xs)-1 {
		return xs[len(xs)-1]
	}
	return xs[lo] + (h-float64(lo))*(xs[lo+1]-xs[lo])
}
