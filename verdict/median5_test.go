package verdict

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestMedian5: median5 agrees with sorting, ties included.
func TestMedian5(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for range 20000 {
		var v [5]float64
		for i := range v {
			v[i] = float64(rng.IntN(4))
		}
		s := v
		slices.Sort(s[:])
		if got := median5(v[0], v[1], v[2], v[3], v[4]); got != s[2] {
			t.Fatalf("median5%v = %v, want %v", v, got, s[2])
		}
	}
}
