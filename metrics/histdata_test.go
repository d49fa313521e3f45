package metrics

import (
	"math/rand/v2"
	"runtime"
	"testing"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// histDataRef is HistData as it was, through Distribution's bars: the
// new one must give the same Hist.
func histDataRef(h *hdr.Histogram) Hist { return histFromBars(h.Distribution()) }

func sameHist(t *testing.T, what string, got, want Hist) {
	t.Helper()
	if got.Count != want.Count || got.Zero != want.Zero || got.Sum != want.Sum || len(got.Native) != len(want.Native) || len(got.Classic) != len(want.Classic) {
		t.Fatalf("%s: count %d/%d zero %d/%d sum %v/%v native %d/%d buckets", what, got.Count, want.Count, got.Zero, want.Zero, got.Sum, want.Sum, len(got.Native), len(want.Native))
	}
	for k, v := range want.Native {
		if got.Native[k] != v {
			t.Fatalf("%s: native bucket %d: %d, want %d", what, k, got.Native[k], v)
		}
	}
	for k, v := range want.Classic {
		if got.Classic[k] != v {
			t.Fatalf("%s: classic bucket %v: %d, want %d", what, k, got.Classic[k], v)
		}
	}
}

// HistData gives what Distribution gave, bar for bar, on histograms from
// a few microseconds to the top of the range.
func TestHistDataMatchesDistribution(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 20; round++ {
		h := NewHist()
		top := int64(1) << (12 + round)
		for i := 0; i < 2000; i++ {
			v := LowestNs + r.Int64N(top)
			if v > HighestNs {
				v = HighestNs
			}
			_ = h.RecordValues(v, 1+r.Int64N(5))
		}
		if round == 19 {
			_ = h.RecordValue(HighestNs)
		}
		sameHist(t, "round "+itoa(round), HistData(h), histDataRef(h))
	}
	sameHist(t, "empty", HistData(NewHist()), histDataRef(NewHist()))
}

// A scrape converts every exported histogram: with a max near 1 s, one
// conversion allocated ~1 MB through Distribution; from one copy of the
// counts it is ~0.2 MB.
func TestHistDataAllocatesOneCopy(t *testing.T) {
	h := NewHist()
	for v := int64(100_000); v < 800_000_000; v = v*101/100 + 1 {
		_ = h.RecordValue(v)
	}
	const n = 20
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	for i := 0; i < n; i++ {
		_ = HistData(h)
	}
	runtime.ReadMemStats(&b)
	per := (b.TotalAlloc - a.TotalAlloc) / n
	if limit := uint64(countsLen)*8 + 96<<10; per > limit {
		t.Errorf("HistData allocated %d kB per call, want at most %d kB (one copy of the counts and the buckets)", per>>10, limit>>10)
	}
}

// With a small maximum Distribution is the cheaper way, and is kept.
func TestHistDataSmallMaxNoDearer(t *testing.T) {
	h := NewHist()
	for v := int64(20_000); v < 900_000; v = v*101/100 + 1 {
		_ = h.RecordValue(v)
	}
	alloc := func(f func()) uint64 {
		var a, b runtime.MemStats
		runtime.ReadMemStats(&a)
		for i := 0; i < 20; i++ {
			f()
		}
		runtime.ReadMemStats(&b)
		return (b.TotalAlloc - a.TotalAlloc) / 20
	}
	got, ref := alloc(func() { _ = HistData(h) }), alloc(func() { _ = histDataRef(h) })
	if got > ref+ref/4 {
		t.Errorf("HistData allocated %d kB per call at a 0.9 ms maximum, the Distribution way %d kB", got>>10, ref>>10)
	}
}

func itoa(n int) string {
	b := []byte{}
	if n == 0 {
		return "0"
	}
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}
