package corpus

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// Distribution is how queries draw terms from the term table.
type Distribution string

// Term distributions.
const (
	// Zipfian draws the term of rank r (1 = most frequent) with weight
	// 1/r^0.99, YCSB's constant.
	Zipfian Distribution = "zipfian"
	// Frequency draws each term with weight its count in the corpus.
	Frequency Distribution = "frequency"
	// Uniform draws every term alike.
	Uniform Distribution = "uniform"
)

// Distributions lists the term distributions.
var Distributions = []Distribution{Zipfian, Frequency, Uniform}

// ParseDistribution returns the distribution named s.
func ParseDistribution(s string) (Distribution, error) {
	for _, d := range Distributions {
		if string(d) == s {
			return d, nil
		}
	}
	return "", fmt.Errorf("unknown term distribution %q (use zipfian, frequency or uniform)", s)
}

// Queries makes search queries from a term table. Read-only once built.
type Queries struct {
	terms []Term
	cum   []float64 // cumulative weights; nil for uniform
	n     int       // terms a query
}

// NewQueries builds the query generator: n distinct terms a query
// (fewer when the table holds fewer), drawn with d.
func (c *Corpus) NewQueries(n int, d Distribution) (*Queries, error) {
	ts := c.Terms()
	if len(ts) == 0 {
		return nil, fmt.Errorf("corpus %s: no term table (no text fields)", c.name)
	}
	q := &Queries{terms: ts, n: min(max(n, 1), len(ts))}
	switch d {
	case Zipfian, "":
		q.cum = make([]float64, len(ts))
		acc := 0.0
		for i := range ts {
			acc += 1 / math.Pow(float64(i+1), 0.99)
			q.cum[i] = acc
		}
	case Frequency:
		q.cum = make([]float64, len(ts))
		acc := 0.0
		for i, t := range ts {
			acc += float64(t.Count)
			q.cum[i] = acc
		}
	case Uniform:
	default:
		_, err := ParseDistribution(string(d))
		return nil, err
	}
	return q, nil
}

// Query returns the query for (seed, i): its terms separated by
// spaces, a pure function of the two, so every store gets the same
// queries for the same file and seed.
func (q *Queries) Query(seed, i uint64) string {
	h := mix64(seed ^ mix64(i+0x9e3779b97f4a7c15))
	var picked [16]int
	k := 0
	var sb strings.Builder
	for tries := 0; k < q.n && k < len(picked) && tries < 8*q.n; tries++ {
		h = mix64(h)
		t := q.pick(h)
		dup := false
		for _, p := range picked[:k] {
			dup = dup || p == t
		}
		if dup {
			continue
		}
		picked[k] = t
		k++
		if sb.Len() > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(q.terms[t].Word)
	}
	return sb.String()
}

func (q *Queries) pick(h uint64) int {
	u := float64(h>>11) / (1 << 53)
	if q.cum == nil {
		return int(u * float64(len(q.terms)))
	}
	i := sort.SearchFloat64s(q.cum, u*q.cum[len(q.cum)-1])
	return min(i, len(q.terms)-1)
}

// mix64 is SplitMix64's finaliser.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}
