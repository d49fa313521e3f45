package metrics

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"math"
	"math/bits"
	"strconv"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// The geometry of NewHist (LowestNs, HighestNs, SigFigs), worked out as
// HdrHistogram does: unit resolution up to 2*10^SigFigs units of
// 2^unitMag ns, then buckets of doubling width. tally uses the same
// counts layout, so a tally's index i is hdr's index i
// (TestTallyGeometryMatchesHdr).
const (
	unitMag    = 9  // floor(log2(LowestNs))
	subHalfMag = 10 // ceil(log2(2*10^SigFigs)) - 1
	subCount   = 1 << (subHalfMag + 1)
	subHalf    = subCount / 2
	subMask    = int64(subCount-1) << unitMag
)

// countsLen is the length of the counts array covering HighestNs.
var countsLen = func() int32 {
	buckets := int32(1)
	for smallest := int64(subCount) << unitMag; smallest <= HighestNs; smallest <<= 1 {
		buckets++
	}
	return (buckets + 1) * subHalf
}()

// tallyIndex is the counts index of v (0 <= v <= HighestNs).
func tallyIndex(v int64) int32 {
	bucket := int32(64-bits.LeadingZeros64(uint64(v|subMask))) - unitMag - (subHalfMag + 1)
	sub := int32(v >> uint(bucket+unitMag))
	return (bucket+1)<<subHalfMag + sub - subHalf
}

// tallyBucket returns index i's bucket and sub-bucket.
func tallyBucket(i int32) (bucket, sub int32) {
	bucket = i>>subHalfMag - 1
	sub = i&(subHalf-1) + subHalf
	if bucket < 0 {
		sub -= subHalf
		bucket = 0
	}
	return bucket, sub
}

// tallyValue is the lowest value counted at index i.
func tallyValue(i int32) int64 {
	bucket, sub := tallyBucket(i)
	return int64(sub) << uint(bucket+unitMag)
}

// tallyHighest is the highest value counted at index i (what hdr's Max
// reports when i is the highest index in use).
func tallyHighest(i int32) int64 {
	return tallyValue(i+1) - 1
}

// tally is the hot path's histogram: the counts of an HDR histogram of
// soakd's geometry, plus the range of indices in use. Merging and
// clearing touch that range only, and an interval's few hundred
// distinct values reach hdr.Histogram with one RecordValues each, where
// hdr.Histogram.Merge walks every index up to the maximum (~6,000 at
// 10 ms) through its iterator. Not safe for concurrent use.
//
// The counts are held in chunks of subHalf (1,024) indices, one per
// bucket past the first (which takes two), made when an op first lands
// in them: a tally of sub-millisecond latencies holds ~2,000 counts
// instead of countsLen's ~24,000, and a run holds a tally per op per
// connection. A slow op costs the one chunk it lands in (8 kB), not the
// whole range up to it; a chunk past the first bucket's that
// shrinkAfter resets in a row found unused is let go. So a tally holds
// the buckets its last shrinkAfter intervals used, whatever came
// before, and a slow reply now and then allocates 8 kB instead of a
// copy of everything below it and, 16 intervals later, a smaller copy
// back (those two were 60% of what a soak at 20,000 ops/s allocated:
// docs/capacity.md#memory).
type tally struct {
	chunks [][]int64 // chunk c counts indices [c*subHalf, (c+1)*subHalf); nil: all zero
	lo, hi int32     // indices in use are within [lo, hi]; lo > hi when none
	total  int64
	used   uint64           // bit c: chunk c was counted into since the last reset
	idle   [maxChunks]uint8 // resets in a row chunk c (made) went unused
}

// numChunks is how many chunks cover countsLen; maxChunks bounds it
// (the used mask's bits; TestTallyChunksFitTheMask).
var numChunks = countsLen / subHalf

const maxChunks = 64

// keptChunks are the first bucket's chunks, never let go once made: a
// tally's sub-millisecond counts are in use nearly every interval.
const keptChunks = subCount / subHalf

// shrinkAfter is how many resets in a row must find a chunk unused
// before it is let go: one slow op in a while costs at most one 8 kB
// chunk every shrinkAfter intervals.
const shrinkAfter = 16

func newTally() *tally { return &tally{lo: countsLen, hi: -1} }

// chunk returns chunk c, made if it was not.
func (t *tally) chunk(c int32) []int64 {
	if t.chunks == nil {
		t.chunks = make([][]int64, numChunks)
	}
	ch := t.chunks[c]
	if ch == nil {
		ch = make([]int64, subHalf)
		t.chunks[c] = ch
		t.idle[c] = 0
	}
	return ch
}

// add counts n at index i (< countsLen).
func (t *tally) add(i int32, n int64) {
	c := i >> subHalfMag
	var ch []int64
	if int(c) < len(t.chunks) {
		ch = t.chunks[c]
	}
	if ch == nil {
		ch = t.chunk(c)
	}
	ch[i&(subHalf-1)] += n
	t.used |= 1 << uint(c)
	t.total += n
	if i < t.lo {
		t.lo = i
	}
	if i > t.hi {
		t.hi = i
	}
}

// record counts n values of v (clamped into the histogram's range).
func (t *tally) record(v, n int64) {
	t.add(tallyIndex(clamp(v)), n)
}

// part returns the counts of chunk c within [lo, hi] and the index of
// the first; nil when chunk c was not counted into since the last reset.
func (t *tally) part(c int32) (first int32, s []int64) {
	if int(c) >= len(t.chunks) || t.chunks[c] == nil || t.used&(1<<uint(c)) == 0 {
		return 0, nil
	}
	base := c << subHalfMag
	a, b := max(t.lo, base), min(t.hi, base+subHalf-1)
	return a, t.chunks[c][a-base : b-base+1]
}

// merge adds o into t.
func (t *tally) merge(o *tally) {
	if o.total == 0 {
		return
	}
	for c := o.lo >> subHalfMag; c <= o.hi>>subHalfMag; c++ {
		a, src := o.part(c)
		if src == nil {
			continue
		}
		dst := t.chunk(c)[a&(subHalf-1):]
		for k, n := range src {
			dst[k] += n
		}
	}
	t.used |= o.used
	t.total += o.total
	t.lo = min(t.lo, o.lo)
	t.hi = max(t.hi, o.hi)
}

// each calls f for every index in use with a count, in order.
func (t *tally) each(f func(i int32, n int64)) {
	if t.total == 0 {
		return
	}
	for c := t.lo >> subHalfMag; c <= t.hi>>subHalfMag; c++ {
		a, s := t.part(c)
		for k, n := range s {
			if n != 0 {
				f(a+int32(k), n)
			}
		}
	}
}

// addTo records t's counts into h, one RecordValues per bucket in use,
// and returns how many that was.
func (t *tally) addTo(h *hdr.Histogram) (buckets int) {
	t.each(func(i int32, n int64) {
		_ = h.RecordValues(tallyValue(i), n)
		buckets++
	})
	return buckets
}

// reset clears the indices in use, and lets go of each chunk past the
// first bucket's that shrinkAfter resets in a row found unused.
func (t *tally) reset() {
	for c, ch := range t.chunks {
		if ch == nil {
			continue
		}
		if _, s := t.part(int32(c)); s != nil {
			clear(s)
			t.idle[c] = 0
			continue
		}
		if c < keptChunks {
			continue
		}
		if t.idle[c]++; t.idle[c] >= shrinkAfter {
			t.chunks[c], t.idle[c] = nil, 0
		}
	}
	t.used, t.total, t.lo, t.hi = 0, 0, countsLen, -1
}

// maxValue is hdr's Max for the same counts.
func (t *tally) maxValue() int64 {
	if t.total == 0 {
		return tallyHighest(0)
	}
	return tallyHighest(t.hi)
}

// hlogEncoder writes tallies in HdrHistogram's V2 compressed encoding
// (the "HISTF..." payload of a histogram log line), reusing its buffers
// and its zlib writer, where hdr.Histogram.Encode allocates ~800 KB and
// compresses at the best (slowest) level for every histogram.
type hlogEncoder struct {
	raw  []byte
	comp bytes.Buffer
	zw   *zlib.Writer
	out  []byte
	head []byte
}

const (
	v2Cookie           = 0x1c849303 | 0x10 // V2EncodingCookieBase | word size 8
	v2CompressedCookie = 0x1c849304 | 0x10 // V2CompressedEncodingCookieBase | 0x10
	v2HeaderLen        = 40
)

// appendZigZag appends v as a ZigZag LEB128 long of at most 9 bytes
// (the 9th byte holds 8 bits), as HdrHistogram's V2 encoding does.
func appendZigZag(b []byte, v int64) []byte {
	u := uint64((v << 1) ^ (v >> 63))
	for k := 0; k < 8; k++ {
		if u>>7 == 0 {
			return append(b, byte(u))
		}
		b = append(b, byte(u)|0x80)
		u >>= 7
	}
	return append(b, byte(u))
}

// appendZeros appends a run of n zero counts as hdr writes it: nothing
// for none, 0 for one, -n for more.
func appendZeros(b []byte, n int64) []byte {
	switch {
	case n == 1:
		return appendZigZag(b, 0)
	case n > 1:
		return appendZigZag(b, -n)
	}
	return b
}

// encode returns t's V2 compressed encoding, base64 (valid until the
// next call).
func (e *hlogEncoder) encode(t *tally) []byte {
	b := e.raw[:0]
	b = binary.BigEndian.AppendUint32(b, v2Cookie)
	b = binary.BigEndian.AppendUint32(b, 0) // payload length, set below
	b = binary.BigEndian.AppendUint32(b, 0) // normalizing index offset
	b = binary.BigEndian.AppendUint32(b, SigFigs)
	b = binary.BigEndian.AppendUint64(b, LowestNs)
	b = binary.BigEndian.AppendUint64(b, uint64(HighestNs))
	b = binary.BigEndian.AppendUint64(b, math.Float64bits(1))
	// Counts up to the highest in use; a run of zeros is one negative
	// number (its length), a lone zero is a zero.
	limit := int32(0)
	if t.total != 0 {
		limit = t.hi + 1
	} else {
		b = appendZigZag(b, 0) // hdr writes index 0 of an empty histogram
	}
	zeros := int64(0)
	for i := int32(0); i < limit; {
		c := i >> subHalfMag
		end := min(limit, (c+1)<<subHalfMag)
		ch := t.chunks[c]
		if ch == nil {
			zeros += int64(end - i)
			i = end
			continue
		}
		for ; i < end; i++ {
			n := ch[i&(subHalf-1)]
			if n == 0 {
				zeros++
				continue
			}
			b = appendZeros(b, zeros)
			zeros = 0
			b = appendZigZag(b, n)
		}
	}
	b = appendZeros(b, zeros)
	binary.BigEndian.PutUint32(b[4:8], uint32(len(b)-v2HeaderLen))
	e.raw = b

	e.comp.Reset()
	if e.zw == nil {
		e.zw, _ = zlib.NewWriterLevel(&e.comp, zlib.BestSpeed)
	} else {
		e.zw.Reset(&e.comp)
	}
	_, _ = e.zw.Write(b)
	_ = e.zw.Close()

	plain := binary.BigEndian.AppendUint32(e.head[:0], v2CompressedCookie)
	plain = binary.BigEndian.AppendUint32(plain, uint32(e.comp.Len()))
	plain = append(plain, e.comp.Bytes()...)
	e.head = plain
	need := base64.StdEncoding.EncodedLen(len(plain))
	if cap(e.out) < need {
		e.out = make([]byte, need)
	}
	e.out = e.out[:need]
	base64.StdEncoding.Encode(e.out, plain)
	return e.out
}

// appendHlogLine appends one interval line of a histogram log, as
// hdrhistogram-go's HistogramLogWriter writes it: Tag=tag,start,length,
// max in ms,payload; start and length in seconds from the log's base.
func (e *hlogEncoder) appendHlogLine(dst []byte, tag string, startSec, lengthSec float64, t *tally) []byte {
	dst = append(dst, "Tag="...)
	dst = append(dst, tag...)
	dst = append(dst, ',')
	dst = strconv.AppendFloat(dst, startSec, 'f', 6, 64)
	dst = append(dst, ',')
	dst = strconv.AppendFloat(dst, lengthSec, 'f', 6, 64)
	dst = append(dst, ',')
	dst = strconv.AppendFloat(dst, float64(t.maxValue())/1e6, 'f', 6, 64)
	dst = append(dst, ',')
	dst = append(dst, e.encode(t)...)
	return append(dst, '\n')
}
