package scenarios

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"
)

func draw(t *testing.T, ks Keyspace, inserted *Inserted, n int) []int64 {
	t.Helper()
	ch, err := NewChooser(ks, inserted)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	out := make([]int64, n)
	for i := range out {
		v := ch.Next(r)
		if v < 0 || (inserted == nil && v >= ks.Records) {
			t.Fatalf("value %d out of range [0,%d)", v, ks.Records)
		}
		out[i] = v
	}
	return out
}

func TestUniformIsFlat(t *testing.T) {
	const buckets, n = 20, 200000
	vals := draw(t, Keyspace{Records: 1000, Distribution: "uniform"}, nil, n)
	var counts [buckets]float64
	for _, v := range vals {
		counts[v*buckets/1000]++
	}
	chi := 0.0
	exp := float64(n) / buckets
	for _, c := range counts {
		chi += (c - exp) * (c - exp) / exp
	}
	// 19 degrees of freedom: p=0.001 critical value is 43.8.
	if chi > 43.8 {
		t.Fatalf("chi-square %.1f: not uniform (%v)", chi, counts)
	}
}

func TestZipfianRankFrequency(t *testing.T) {
	const records, n = 10000, 400000
	vals := draw(t, Keyspace{Records: records, Distribution: "zipfian", ZipfTheta: 0.99}, nil, n)
	freq := map[int64]int{}
	for _, v := range vals {
		freq[v]++
	}
	counts := make([]int, 0, len(freq))
	for _, c := range freq {
		counts = append(counts, c)
	}
	sort.Sort(sort.Reverse(sort.IntSlice(counts)))
	// P(rank k) ~ 1/k^0.99: the most popular key is ~10x the 10th.
	ratio := float64(counts[0]) / float64(counts[9])
	if ratio < 6 || ratio > 16 {
		t.Errorf("rank1/rank10 = %.2f, want ~10", ratio)
	}
	// Expected share of the top key: 1/zeta(n, theta).
	want := 1 / zetaRange(0, records, 0.99)
	got := float64(counts[0]) / n
	if math.Abs(got-want)/want > 0.1 {
		t.Errorf("top key share %.4f, want %.4f", got, want)
	}
	// Scrambled: the hottest key is not simply record 0.
	hottest := int64(-1)
	for k, c := range freq {
		if c == counts[0] {
			hottest = k
		}
	}
	if hottest == 0 {
		t.Errorf("hottest key is record 0: not scrambled")
	}
}

func TestHotspotShare(t *testing.T) {
	const n = 200000
	vals := draw(t, Keyspace{Records: 1000, Distribution: "hotspot", HotFraction: 0.2, HotOps: 0.8}, nil, n)
	hot := 0
	for _, v := range vals {
		if v < 200 {
			hot++
		}
	}
	share := float64(hot) / n
	if math.Abs(share-0.8) > 0.01 {
		t.Fatalf("hot share %.3f, want 0.80", share)
	}
}

func TestLatestFavoursRecentAndFollowsInserts(t *testing.T) {
	ins := &Inserted{}
	ins.Store(10000)
	vals := draw(t, Keyspace{Records: 10000, Distribution: "latest", ZipfTheta: 0.99}, ins, 100000)
	recent := 0
	for _, v := range vals {
		if v >= 10000 {
			t.Fatalf("latest returned %d beyond inserted count", v)
		}
		if v >= 9900 {
			recent++
		}
	}
	// The newest 1% of records get far more than 1% of ops (~40% for theta 0.99).
	if share := float64(recent) / 100000; share < 0.3 {
		t.Fatalf("newest 1%% got %.2f of ops", share)
	}
	ch, _ := NewChooser(Keyspace{Records: 10000, Distribution: "latest", ZipfTheta: 0.99}, ins)
	r := rand.New(rand.NewPCG(3, 4))
	ins.Store(20000)
	max := int64(0)
	for i := 0; i < 10000; i++ {
		if v := ch.Next(r); v > max {
			max = v
		}
	}
	if max < 19900 {
		t.Fatalf("after inserts, latest max is %d; should reach the new records", max)
	}
}

func TestChooserDeterministicPerSeed(t *testing.T) {
	ks := Keyspace{Records: 100000, Distribution: "zipfian", ZipfTheta: 0.99}
	a := draw(t, ks, nil, 1000)
	b := draw(t, ks, nil, 1000)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("same seed, different draw at %d", i)
		}
	}
}

func TestZetaTailApproximation(t *testing.T) {
	n := int64(exactZetaTerms) * 3
	exact := 0.0
	for i := int64(1); i <= n; i++ {
		exact += 1 / math.Pow(float64(i), 0.99)
	}
	if got := zetaRange(0, n, 0.99); math.Abs(got-exact)/exact > 1e-9 {
		t.Fatalf("zeta approx %.12f, exact %.12f", got, exact)
	}
}

func TestMixShares(t *testing.T) {
	m, err := NewMix(map[string]float64{"read": 95, "update": 5}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var reads int
	const n = 100000
	for i := uint64(0); i < n; i++ {
		if m.Pick(Mix64(i)) == OpRead {
			reads++
		}
	}
	if share := float64(reads) / n; math.Abs(share-0.95) > 0.005 {
		t.Fatalf("read share %.4f, want 0.95", share)
	}
}

func TestAppendKey(t *testing.T) {
	if got := string(AppendKey(nil, "user", 42, true)); got != "user000000000042" {
		t.Errorf("ordered key %q", got)
	}
	a, b := string(AppendKey(nil, "user", 1, false)), string(AppendKey(nil, "user", 2, false))
	if a == b || a[:4] != "user" {
		t.Errorf("hashed keys %q %q", a, b)
	}
}
