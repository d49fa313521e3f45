package capture

import (
	"math/rand/v2"
	"testing"
)

// Every op's line comes back from the packed locations, in and across
// blocks, with gaps (skipped lines) and lengths of one to four varint
// bytes, in any order.
func TestLocsRandomAccess(t *testing.T) {
	var l locs
	type loc struct {
		off int64
		n   int
	}
	var want []loc
	rng := rand.New(rand.NewPCG(1, 2))
	off := int64(0)
	for i := range 1000 {
		n := rng.IntN(200)
		if i%97 == 0 {
			n = 1 << 22 // a long line
		}
		off += int64(1 + rng.IntN(3)*rng.IntN(5000)) // the newline, sometimes skipped lines
		l.add(off, n)
		want = append(want, loc{off, n})
		off += int64(n)
	}
	for _, i := range rng.Perm(len(want)) {
		o, n, ok := l.at(uint32(i))
		if !ok || o != want[i].off || n != want[i].n {
			t.Fatalf("op %d: %d+%d (%v), want %d+%d", i, o, n, ok, want[i].off, want[i].n)
		}
	}
	if _, _, ok := l.at(uint32(len(want))); ok {
		t.Error("an op past the last found")
	}
}
