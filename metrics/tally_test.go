package metrics

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/soakd/soakd/scenarios"
)

// The tally's counts layout is hdr's: the value tallyValue(i) lands at
// index i of an hdr.Histogram of soakd's range, for every index.
func TestTallyGeometryMatchesHdr(t *testing.T) {
	h := NewHist()
	if got, want := h.ByteSize(), 6*8+5*4+int(countsLen)*8; got != want {
		t.Fatalf("countsLen %d: hdr's ByteSize %d, want %d", countsLen, got, want)
	}
	for i := int32(0); i < countsLen; i++ {
		if err := h.RecordValues(tallyValue(i), int64(i)+1); err != nil {
			t.Fatalf("index %d: value %d: %v", i, tallyValue(i), err)
		}
		if got := tallyIndex(tallyValue(i)); got != i {
			t.Fatalf("tallyIndex(tallyValue(%d)) = %d", i, got)
		}
		if got := tallyIndex(tallyHighest(i)); got != i {
			t.Fatalf("tallyIndex(tallyHighest(%d)) = %d", i, got)
		}
	}
	counts := h.Export().Counts
	for i, c := range counts {
		if c != int64(i)+1 {
			t.Fatalf("hdr index %d holds %d, want %d: the layouts differ", i, c, i+1)
		}
	}
	if tallyIndex(HighestNs) >= countsLen {
		t.Fatalf("HighestNs maps past the counts")
	}
}

// randomNs draws latencies over the whole range, log-uniform, with the
// edges (0, below the lowest, above the highest) mixed in.
func randomNs(rng *rand.Rand) int64 {
	switch rng.IntN(50) {
	case 0:
		return 0
	case 1:
		return int64(rng.IntN(1000))
	case 2:
		return HighestNs + int64(rng.IntN(1e9))
	}
	return int64(math.Exp(rng.Float64() * math.Log(float64(HighestNs))))
}

// What a Recorder drains is exactly what hdr.Histogram would have
// recorded, op by op: counts per index, totals, classes, drops, lag.
func TestRecorderDrainMatchesHdr(t *testing.T) {
	ops := []scenarios.Op{scenarios.OpGet, scenarios.OpSet}
	rec := NewWarmupRecorder(ops)
	rng := rand.New(rand.NewPCG(1, 2))
	want, wantWarm := NewSet(ops), NewSet(ops)
	for round := 0; round < 3; round++ {
		for i := 0; i < 20000; i++ {
			op := ops[rng.IntN(2)]
			w := Window(rng.IntN(3))
			lat, svc, lag := randomNs(rng), randomNs(rng), randomNs(rng)
			class := uint8(rng.IntN(4))
			ref := want
			if w == InWarmup {
				ref = wantWarm
			}
			if rng.IntN(10) == 0 {
				n := int64(rng.IntN(5) + 1)
				rec.DropIn(w, op, n, lag)
				ref.Ops[op].Dropped += n
				_ = ref.Lag.RecordValues(clamp(lag), n)
				continue
			}
			rec.RecordIn(w, op, lat, svc, lag, class)
			o := ref.Ops[op]
			_ = o.Latency.RecordValue(clamp(lat))
			_ = o.Service.RecordValue(clamp(svc))
			o.Count++
			o.Classes[class]++
			if w == InDrain {
				o.Late++
			}
			_ = ref.Lag.RecordValue(clamp(lag))
		}
		got, gotWarm := NewWindowSet(ops), NewSet(ops)
		rec.DrainSplit(got, gotWarm)
		got.Sync(nil)
		for _, pair := range []struct {
			name      string
			got, want *Set
		}{{"measured", got, want}, {"warmup", gotWarm, wantWarm}} {
			for _, op := range ops {
				g, w := pair.got.Ops[op], pair.want.Ops[op]
				if !g.Latency.Equals(w.Latency) || !g.Service.Equals(w.Service) {
					t.Fatalf("round %d %s %s: histograms differ from hdr's", round, pair.name, op)
				}
				if g.Count != w.Count || g.Classes != w.Classes || g.Dropped != w.Dropped || g.Late != w.Late {
					t.Fatalf("round %d %s %s: counts %d/%v/%d/%d, want %d/%v/%d/%d", round, pair.name, op,
						g.Count, g.Classes, g.Dropped, g.Late, w.Count, w.Classes, w.Dropped, w.Late)
				}
			}
			if !pair.got.Lag.Equals(pair.want.Lag) {
				t.Fatalf("round %d %s: lag differs from hdr's", round, pair.name)
			}
		}
		// The window's mirror holds the same counts as its histograms.
		for _, op := range ops {
			m := got.mirror.ops[op]
			if !equalsTally(got.Ops[op].Latency, &m.lat) || !equalsTally(got.Ops[op].Service, &m.svc) {
				t.Fatalf("round %d %s: the window's mirror differs from its histograms", round, op)
			}
		}
		want, wantWarm = NewSet(ops), NewSet(ops)
	}
	// A drained stripe is empty: the next drain adds nothing.
	got := NewSet(ops)
	rec.Drain(got)
	if !got.Empty() || got.Lag.TotalCount() != 0 || got.Ops[scenarios.OpGet].Latency.TotalCount() != 0 {
		t.Fatal("a drained recorder still held values")
	}
}

func equalsTally(h *hdr.Histogram, tl *tally) bool {
	x := NewHist()
	tl.addTo(x)
	return x.Equals(h) && x.TotalCount() == tl.total
}

// latency.hlog lines written from a window's tallies read back, with
// hdrhistogram-go's log reader, as the histograms hdr's own log writer
// gives for the same interval; the text before the payload is the same.
func TestAppendHlogMatchesHdrWriter(t *testing.T) {
	ops := []scenarios.Op{scenarios.OpGet, scenarios.OpSet, scenarios.OpDel}
	rng := rand.New(rand.NewPCG(3, 4))
	rec := NewRecorder(ops)
	for i := 0; i < 50000; i++ {
		op := ops[rng.IntN(2)] // del stays empty: no line
		rec.RecordIn(InWindow, op, randomNs(rng), randomNs(rng), randomNs(rng), 0)
	}
	rec.RecordIn(InWindow, scenarios.OpGet, 0, 0, 0, 0)
	rec.RecordIn(InWindow, scenarios.OpSet, HighestNs, HighestNs, 0, 0)
	// A huge count at one value exercises the long varints.
	rec.cur.ops[scenarios.OpGet].lat.record(5000, 1<<45)
	rec.cur.ops[scenarios.OpGet].Count += 1 << 45
	window := NewWindowSet(ops)
	rec.Drain(window)
	window.Sync(nil)
	plain := NewSet(ops) // no mirror: the slow path
	plain.Merge(window)

	const base = int64(1_700_000_000_000)
	fromMs, toMs := base+1234, base+2241
	var ref bytes.Buffer
	lw := hdr.NewHistogramLogWriter(&ref)
	lw.SetBaseTime(base)
	for o, st := range window.Ops {
		if st == nil || st.Count == 0 {
			continue
		}
		op := scenarios.Op(o)
		for _, part := range []struct {
			name string
			h    *hdr.Histogram
		}{{"latency", window.Ops[op].Latency}, {"service", window.Ops[op].Service}} {
			c := part.h.Clone()
			c.SetTag("steady." + op.String() + "." + part.name)
			c.SetStartTimeMs(fromMs)
			c.SetEndTimeMs(toMs)
			if err := lw.OutputIntervalHistogram(c); err != nil {
				t.Fatal(err)
			}
		}
	}
	start := float64(fromMs-base) / 1000
	length := float64(toMs-base)/1000 - start
	var enc HlogEncoder
	for name, set := range map[string]*Set{"mirror": window, "no mirror": plain} {
		got := set.AppendHlog(nil, "steady", nil, start, length, &enc)
		gl, rl := strings.Split(string(got), "\n"), strings.Split(ref.String(), "\n")
		if len(gl) != len(rl) || len(gl) != 5 {
			t.Fatalf("%s: %d lines, hdr wrote %d:\n%s", name, len(gl), len(rl), got)
		}
		for i := range rl[:4] {
			gp, rp := gl[i][:strings.LastIndex(gl[i], ",")], rl[i][:strings.LastIndex(rl[i], ",")]
			if gp != rp {
				t.Fatalf("%s: line %d starts %q, hdr's %q", name, i, gp, rp)
			}
		}
		gh, rh := readLog(t, got, base), readLog(t, ref.Bytes(), base)
		for i := range rh {
			if gh[i].Tag() != rh[i].Tag() || !gh[i].Equals(rh[i]) || gh[i].TotalCount() != rh[i].TotalCount() {
				t.Fatalf("%s: histogram %d (%s) reads back different from hdr's", name, i, rh[i].Tag())
			}
		}
	}
}

func readLog(t *testing.T, b []byte, base int64) []*hdr.Histogram {
	t.Helper()
	r := hdr.NewHistogramLogReader(bytes.NewReader(b))
	var out []*hdr.Histogram
	for {
		h, err := r.NextIntervalHistogram()
		if err != nil {
			t.Fatalf("reading the log: %v", err)
		}
		if h == nil {
			return out
		}
		out = append(out, h)
	}
}

func TestAppendZigZag(t *testing.T) {
	for _, v := range []int64{0, 1, -1, 63, -64, 64, 1 << 20, -(1 << 30), 1 << 45, math.MaxInt64, math.MinInt64} {
		b := appendZigZag(nil, v)
		if len(b) > 9 {
			t.Fatalf("%d: %d bytes", v, len(b))
		}
		// Decode as HdrHistogram's LEB128-64b9B reader does.
		var u uint64
		for k, c := range b {
			if k == 8 {
				u |= uint64(c) << 56
				break
			}
			u |= uint64(c&0x7f) << (7 * k)
		}
		if got := int64(u>>1) ^ -int64(u&1); got != v {
			t.Fatalf("%d round-trips to %d (% x)", v, got, b)
		}
	}
}

// The collector's per-interval cost: drain 8 stripes of a 2-op mix
// into a window and write its hlog lines, against hdr.Histogram's
// Merge and log writer for the same data.
func BenchmarkIntervalTally(b *testing.B) {
	ops := []scenarios.Op{scenarios.OpGet, scenarios.OpSet}
	rng := rand.New(rand.NewPCG(5, 6))
	stripes := make([]*Recorder, 8)
	for i := range stripes {
		stripes[i] = NewRecorder(ops)
	}
	window := NewWindowSet(ops)
	var enc HlogEncoder
	var buf []byte
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		for k := 0; k < 6000; k++ {
			stripes[k%8].RecordIn(InWindow, ops[k%2], 50000+int64(rng.ExpFloat64()*2e5), 40000, 1000, 0)
		}
		stripes[0].RecordIn(InWindow, scenarios.OpGet, 15e6, 15e6, 1000, 0)
		b.StartTimer()
		window.Reset()
		for _, s := range stripes {
			s.Drain(window)
		}
		buf = window.AppendHlog(buf[:0], "steady", nil, 1, 1, &enc)
	}
}

// What a worker's tally allocates over a soak: each interval one
// connection's second at 20,000 ops/s over 32 connections (625 replies
// of ~0.1-0.3 ms), and in one interval of four a slow reply of 1-50 ms
// (log-uniform). B/op is bytes allocated per interval.
func BenchmarkTallySlowReplies(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	tl := newTally()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		for k := 0; k < 625; k++ {
			tl.record(100_000+int64(rng.ExpFloat64()*60_000), 1)
		}
		if rng.IntN(4) == 0 {
			tl.record(int64(1e6*math.Exp(rng.Float64()*math.Log(50))), 1)
		}
		tl.reset()
	}
}

func BenchmarkIntervalHdr(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	stripes := make([]*hdr.Histogram, 8*5)
	for i := range stripes {
		stripes[i] = NewHist()
	}
	window := make([]*hdr.Histogram, 5)
	for i := range window {
		window[i] = NewHist()
	}
	var buf bytes.Buffer
	lw := hdr.NewHistogramLogWriter(&buf)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		for k := 0; k < 6000; k++ {
			s := (k % 8) * 5
			_ = stripes[s+k%2*2].RecordValue(50000 + int64(rng.ExpFloat64()*2e5))
			_ = stripes[s+k%2*2+1].RecordValue(40000)
			_ = stripes[s+4].RecordValue(1000)
		}
		_ = stripes[0].RecordValue(15e6)
		b.StartTimer()
		for _, w := range window {
			w.Reset()
		}
		for k, s := range stripes {
			window[k%5].Merge(s)
			s.Reset()
		}
		buf.Reset()
		for _, w := range window[:4] {
			_ = lw.OutputIntervalHistogram(w)
		}
	}
}

// held is how many counts t holds (its chunks made).
func (t *tally) held() int {
	n := 0
	for _, ch := range t.chunks {
		n += len(ch)
	}
	return n
}

// The used mask has a bit for every chunk of the histogram's range.
func TestTallyChunksFitTheMask(t *testing.T) {
	if numChunks*subHalf != countsLen || numChunks > maxChunks {
		t.Fatalf("%d chunks of %d for %d counts, mask of %d", numChunks, subHalf, countsLen, maxChunks)
	}
}

// A tally holds the chunks its ops landed in, not the whole range nor
// everything below its highest; merging, encoding and clearing work
// the same whatever it holds.
func TestTallyHoldsTheCountsInUse(t *testing.T) {
	var enc hlogEncoder
	empty := newTally()
	if empty.held() != 0 {
		t.Fatalf("a new tally holds %d counts, want none", empty.held())
	}
	back, err := hdr.Decode(enc.encode(empty))
	if err != nil || back.TotalCount() != 0 {
		t.Fatalf("an empty tally's encoding reads back as %v (count %d), want an empty histogram", err, back.TotalCount())
	}

	fast := newTally()
	for v := int64(1000); v <= 900_000; v += 1000 { // up to 0.9 ms
		fast.record(v, 1)
	}
	if n := fast.held(); n > 2*subHalf {
		t.Fatalf("sub-millisecond values: %d counts (hi %d), want at most %d", n, fast.hi, 2*subHalf)
	}
	slow := newTally()
	slow.record(3_000_000_000, 2) // 3 s
	if n := slow.held(); n != subHalf {
		t.Fatalf("3 s alone: %d counts, want one chunk (%d)", n, subHalf)
	}

	sum := newTally()
	sum.merge(fast)
	sum.merge(slow)
	sum.record(HighestNs, 1)
	if n := sum.held(); n != 4*subHalf {
		t.Fatalf("sub-millisecond, 3 s and HighestNs: %d counts, want 4 chunks (%d)", n, 4*subHalf)
	}
	h := NewHist()
	if n := sum.addTo(h); n != 900+2 {
		t.Fatalf("merged tally: %d buckets in use, want 902", n)
	}
	back, err = hdr.Decode(enc.encode(sum))
	if err != nil || !back.Equals(h) {
		t.Fatalf("merged tally's encoding reads back different from its histogram (%v)", err)
	}
	// A gap of chunks never made, and lone zeros between counts, encode
	// as hdr's own encoding of the same values does.
	gappy := newTally()
	hg := NewHist()
	for _, v := range []int64{600_000, 601_100, 603_000, 40_000_000, 40_100_000, 2_500_000_000} {
		gappy.record(v, 3)
		_ = hg.RecordValues(v, 3)
	}
	back, err = hdr.Decode(enc.encode(gappy))
	if err != nil || !back.Equals(hg) {
		t.Fatalf("a tally with gaps reads back different from hdr's histogram (%v)", err)
	}
	sum.reset()
	sum.record(5000, 1)
	if sum.total != 1 || sum.lo != sum.hi || sum.maxValue() != tallyHighest(tallyIndex(5000)) {
		t.Fatalf("after reset: total %d, lo %d hi %d", sum.total, sum.lo, sum.hi)
	}
}

// A chunk a slow op made is let go once shrinkAfter resets in a row
// have found it unused, and not before; one that keeps being used is
// kept, and the first bucket's chunks are never let go.
func TestTallyShrinksAfterSlowOps(t *testing.T) {
	tl := newTally()
	tl.record(2_000_000_000, 1) // 2 s: one chunk
	slowChunk := tallyIndex(2_000_000_000) >> subHalfMag
	tl.reset()
	for k := 1; k < shrinkAfter; k++ {
		tl.record(100_000, 1) // 0.1 ms
		tl.reset()
		if tl.chunks[slowChunk] == nil || tl.held() != 2*subHalf {
			t.Fatalf("after %d quiet intervals: %d counts, want the 2 s chunk and 0.1 ms's kept (shrinkAfter %d)", k, tl.held(), shrinkAfter)
		}
	}
	tl.record(100_000, 1)
	tl.reset()
	if tl.chunks[slowChunk] != nil || tl.held() != subHalf {
		t.Fatalf("after %d quiet intervals: %d counts, want %d", shrinkAfter, tl.held(), subHalf)
	}
	// Counts after a shrink are right.
	tl.record(100_000, 3)
	tl.record(5_000_000, 2)
	h := NewHist()
	tl.addTo(h)
	if h.TotalCount() != 5 || h.ValueAtQuantile(50) > 110_000 || h.Max() < 5_000_000 {
		t.Fatalf("after shrinking: count %d, p50 %d, max %d", h.TotalCount(), h.ValueAtQuantile(50), h.Max())
	}

	// A slow op every few intervals: never unused for shrinkAfter in a
	// row, so its chunk is never made again.
	busy := newTally()
	busy.record(2_000_000_000, 1)
	busy.reset()
	kept := &busy.chunks[slowChunk][0]
	for k := 0; k < 5*shrinkAfter; k++ {
		if k%(shrinkAfter/2) == 0 {
			busy.record(2_000_000_000, 1)
		}
		busy.record(100_000, 1)
		busy.reset()
	}
	if &busy.chunks[slowChunk][0] != kept {
		t.Fatalf("a tally with a slow op every %d intervals made its chunk again", shrinkAfter/2)
	}
	// Reset leaves it all zero.
	for c, ch := range busy.chunks {
		for k, n := range ch {
			if n != 0 {
				t.Fatalf("chunk %d index %d: %d after reset", c, k, n)
			}
		}
	}
}

// A tally holds the chunks its last shrinkAfter intervals used: a 2 s
// op's chunk goes while a 1 s op now and then keeps its own, and a
// slow op costs its chunk only, whatever it holds below.
// (Before the chunks a tally held one array up to its highest index:
// a 2 s op cost every count below 2 s, ~20,000, and shrinking copied.)
func TestTallyShrinksToWhatRecentIntervalsNeeded(t *testing.T) {
	tl := newTally()
	tl.record(2_000_000_000, 1)
	two, one := tallyIndex(2_000_000_000)>>subHalfMag, tallyIndex(1_000_000_000)>>subHalfMag
	if two == one {
		t.Fatal("test needs 1 s and 2 s in different chunks")
	}
	tl.reset()
	for k := 1; k <= shrinkAfter; k++ {
		if k%5 == 0 {
			tl.record(1_000_000_000, 1)
		}
		tl.record(100_000, 1)
		tl.reset()
	}
	if tl.chunks[two] != nil || tl.chunks[one] == nil || tl.held() != 2*subHalf {
		t.Fatalf("after %d intervals using at most 1 s: %d counts (2 s chunk %v, 1 s chunk %v), want 0.1 ms's and 1 s's chunks",
			shrinkAfter, tl.held(), tl.chunks[two] != nil, tl.chunks[one] != nil)
	}
	// The next quiet spell takes it down to the first bucket's.
	for k := 1; k <= shrinkAfter; k++ {
		tl.record(100_000, 1)
		tl.reset()
	}
	if tl.held() != subHalf {
		t.Fatalf("after %d quiet intervals: %d counts, want %d", shrinkAfter, tl.held(), subHalf)
	}
	// At the first bucket's size nothing is ever made again.
	kept := &tl.chunks[0][0]
	for k := 0; k < 3*shrinkAfter; k++ {
		tl.record(100_000, 1)
		tl.reset()
	}
	if &tl.chunks[0][0] != kept {
		t.Fatal("a tally at its smallest was reallocated")
	}
}
