package metrics

import (
	"math/rand/v2"
	"runtime"
	"testing"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/soakd/soakd/scenarios"
)

// histDataRef converts h through Distribution's bars, the conversion
// the exporter made from its hdr histograms before it kept tallies:
// tallyHist must give the same Hist.
func histDataRef(h *hdr.Histogram) Hist {
	d := newHistBuilder()
	for _, b := range h.Distribution() {
		if b.Count != 0 {
			d.add(b.From, b.To, b.Count)
		}
	}
	return d.finish()
}

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

// TestTallyHistMatchesDistribution: a tally read in place gives what the
// same values' hdr histogram gives through Distribution, bar for bar, on
// histograms from a few microseconds to the top of the range.
func TestTallyHistMatchesDistribution(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 20; round++ {
		h, tl := NewHist(), newTally()
		top := int64(1) << (12 + round)
		for i := 0; i < 2000; i++ {
			v := LowestNs + r.Int64N(top)
			if v > HighestNs {
				v = HighestNs
			}
			n := 1 + r.Int64N(5)
			_ = h.RecordValues(v, n)
			tl.record(v, n)
		}
		if round == 19 {
			_ = h.RecordValue(HighestNs)
			tl.record(HighestNs, 1)
		}
		sameHist(t, "round "+itoa(round), tallyHist(tl), histDataRef(h))
	}
	sameHist(t, "empty", tallyHist(newTally()), histDataRef(NewHist()))
}

// TestTallyHistAllocatesNoCopy: a scrape converts every exported
// histogram. From an hdr histogram with a max near 1 s that cost ~1 MB
// through Distribution, ~0.2 MB from a copy of its counts; from a tally
// it is the Hist's own maps, a few kB whatever the range.
func TestTallyHistAllocatesNoCopy(t *testing.T) {
	tl := newTally()
	for v := int64(100_000); v < 800_000_000; v = v*101/100 + 1 {
		tl.record(v, 1)
	}
	const n = 20
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	for i := 0; i < n; i++ {
		_ = tallyHist(tl)
	}
	runtime.ReadMemStats(&b)
	per := (b.TotalAlloc - a.TotalAlloc) / n
	if limit := uint64(32 << 10); per > limit {
		t.Errorf("tallyHist allocated %d kB per call, want at most %d kB (the Hist's maps; the counts are read in place)", per>>10, limit>>10)
	}
}

// TestPromTotalsFromPlainSet: a Set built by hand (no tallies) reaches
// the exporter's totals through its histograms, with its counters.
func TestPromTotalsFromPlainSet(t *testing.T) {
	w := window(t)
	p := newPromTotals()
	p.add(w, nil)
	p.add(window(t), nil)
	for i, os := range w.Ops {
		if os == nil {
			continue
		}
		o := p.ops[i]
		if o == nil || o.Count != 2*os.Count || o.lat.total != 2*os.Latency.TotalCount() || o.svc.total != 2*os.Service.TotalCount() {
			t.Fatalf("op %d: totals %+v, want twice the window's %d ops", i, o, os.Count)
		}
		h := NewHist()
		h.Merge(os.Latency)
		h.Merge(os.Latency)
		sameHist(t, "latency", tallyHist(&o.lat), histDataRef(h))
	}
	if p.lag.total != 2*w.Lag.TotalCount() {
		t.Errorf("lag total %d, want %d", p.lag.total, 2*w.Lag.TotalCount())
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

// TestPromTotalsFromWindowSets: the collector's window sets reach the
// exporter's totals from their tallies; two intervals add up to the
// histogram of all their values.
func TestPromTotalsFromWindowSets(t *testing.T) {
	ops := []scenarios.Op{scenarios.OpRead}
	p := newPromTotals()
	ref, refLag := NewHist(), NewHist()
	pauses := 0
	for k := 0; k < 2; k++ {
		r := NewRecorder(ops)
		for i := int64(1); i <= 500; i++ {
			lat := i * 7_919 * int64(k+1)
			r.Record(scenarios.OpRead, lat, lat/2, lat/3, 0)
			_ = ref.RecordValue(lat)
			_ = refLag.RecordValue(lat / 3)
		}
		w := NewWindowSet(ops)
		r.Drain(w)
		p.add(w, func() { pauses++ })
	}
	o := p.ops[scenarios.OpRead]
	if o == nil || o.Count != 1000 || o.Classes[0] != 1000 {
		t.Fatalf("read totals %+v, want 1000 ok ops", o)
	}
	sameHist(t, "latency", tallyHist(&o.lat), histDataRef(ref))
	sameHist(t, "lag", tallyHist(&p.lag), histDataRef(refLag))
	if pauses != 2 {
		t.Errorf("%d pauses, want one per op per interval (2)", pauses)
	}
}
