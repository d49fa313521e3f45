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
// counts holds the indices up to the highest recorded lately (rounded
// up to a whole bucket), not the whole range: a tally of
// sub-millisecond latencies holds ~2,000 counts instead of countsLen's
// ~10,000, and a run holds a tally per op per connection. A slow op
// grows it; when shrinkAfter resets in a row needed less than all of
// it, it shrinks back to the most any of them needed (reset). So its
// size is the most the last shrinkAfter intervals needed, whatever came
// before: a long run's memory follows its recent latencies, not the
// slowest op it ever saw, and it settles within a minute of a change.
//
// (Shrinking only when every interval needed less than half, as before,
// let a tally that one slow op had grown keep its size for as long as
// any interval needed more than half of it. Measured over two hours, the
// change did not alter the first half hour's RSS rise:
// docs/capacity.md#memory.)
type tally struct {
	counts []int64 // len(counts) > hi; indices past it count zero
	lo, hi int32   // indices in use are within [lo, hi]; lo > hi when none
	total  int64
	quiet  int32 // resets in a row that needed less than all of counts
	peak   int32 // the most counts one of those resets needed
}

// shrinkAfter is how many intervals in a row a tally must have needed
// less than its counts before it lets the rest go: one slow op in a
// while costs at most one reallocation every shrinkAfter intervals.
const shrinkAfter = 16

func newTally() *tally { return &tally{lo: countsLen, hi: -1} }

// fitLen is the counts length that reaches index i: whole buckets.
func fitLen(i int32) int32 { return min((i/subHalf+1)*subHalf, countsLen) }

// fit makes counts reach index i (< countsLen), in whole buckets.
func (t *tally) fit(i int32) {
	if int(i) < len(t.counts) {
		return
	}
	grown := make([]int64, fitLen(i))
	copy(grown, t.counts)
	t.counts = grown
}

// record counts n values of v (clamped into the histogram's range).
func (t *tally) record(v, n int64) {
	i := tallyIndex(clamp(v))
	if int(i) >= len(t.counts) {
		t.fit(i)
	}
	t.counts[i] += n
	t.total += n
	if i < t.lo {
		t.lo = i
	}
	if i > t.hi {
		t.hi = i
	}
}

// merge adds o into t.
func (t *tally) merge(o *tally) {
	if o.total == 0 {
		return
	}
	t.fit(o.hi)
	dst := t.counts[o.lo : o.hi+1]
	for k, c := range o.counts[o.lo : o.hi+1] {
		dst[k] += c
	}
	t.total += o.total
	t.lo = min(t.lo, o.lo)
	t.hi = max(t.hi, o.hi)
}

// addTo records t's counts into h, one RecordValues per bucket in use,
// and returns how many that was.
func (t *tally) addTo(h *hdr.Histogram) (buckets int) {
	if t.total == 0 {
		return 0
	}
	for k, c := range t.counts[t.lo : t.hi+1] {
		if c != 0 {
			_ = h.RecordValues(tallyValue(t.lo+int32(k)), c)
			buckets++
		}
	}
	return buckets
}

// reset clears the indices in use, and lets counts go back to the most
// the last shrinkAfter intervals needed (at least the first bucket's)
// when each needed less than all of them.
func (t *tally) reset() {
	need := int32(subCount)
	if t.hi >= 0 {
		need = max(need, fitLen(t.hi))
	}
	if int(need) < len(t.counts) {
		t.quiet++
		t.peak = max(t.peak, need)
	} else {
		t.quiet, t.peak = 0, 0
	}
	if t.quiet >= shrinkAfter {
		t.counts, t.quiet, t.peak = make([]int64, t.peak), 0, 0
	} else if t.total != 0 || t.lo <= t.hi {
		clear(t.counts[min(t.lo, t.hi+1) : t.hi+1])
	}
	t.total, t.lo, t.hi = 0, countsLen, -1
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
	// number (its length).
	limit := int32(0)
	if t.total != 0 {
		limit = t.hi + 1
	} else {
		b = appendZigZag(b, 0) // hdr writes index 0 of an empty histogram
	}
	for i := int32(0); i < limit; {
		c := t.counts[i]
		i++
		if c == 0 {
			zeros := int64(1)
			for i < limit && t.counts[i] == 0 {
				zeros++
				i++
			}
			if zeros > 1 {
				b = appendZigZag(b, -zeros)
				continue
			}
		}
		b = appendZigZag(b, c)
	}
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
