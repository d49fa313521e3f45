package redis

import "testing"

// A buffer that one burst grew is let go once a span of uses has needed
// less than half of it; one that keeps needing its size keeps it; a
// small one is never let go.
func TestKeepLetsABurstGo(t *testing.T) {
	var k keep
	b := make([]byte, 64<<10) // one long pipeline
	b = k.fit(b)
	for i := 1; i < keepSpan; i++ {
		b = k.fit(b[:100])
	}
	// The first span held the burst itself: kept.
	if cap(b) != 64<<10 {
		t.Fatalf("after the burst's own span: cap %d, want it kept", cap(b))
	}
	for i := 0; i < keepSpan-1; i++ {
		b = k.fit(b[:100])
		if b == nil {
			t.Fatalf("let go after %d of %d quiet uses", i+1, keepSpan)
		}
	}
	if b = k.fit(b[:100]); b != nil {
		t.Fatalf("after a span of 100-byte uses: cap %d, want the buffer let go", cap(b))
	}
	b = append(b[:0], make([]byte, 100)...) // the next round trip builds it afresh
	if cap(b) >= 4<<10 {
		t.Fatalf("rebuilt buffer: cap %d", cap(b))
	}

	// Needed at its size once a span: kept, the same array.
	busy := make([]byte, 64<<10)
	first := &busy[0]
	var kb keep
	for i := 0; i < 5*keepSpan; i++ {
		n := 100
		if i%(keepSpan/2) == 0 {
			n = 40 << 10
		}
		busy = kb.fit(busy[:n])
	}
	if busy == nil || &busy[:1][0] != first {
		t.Fatalf("a buffer used past half its size every half span was let go")
	}

	// Small: kept however little it is used.
	var ks keep
	small := make([]byte, keepMin)
	for i := 0; i < 3*keepSpan; i++ {
		small = ks.fit(small[:1])
	}
	if cap(small) != keepMin {
		t.Fatalf("a %d-byte buffer: cap %d after quiet spans, want kept", keepMin, cap(small))
	}
}
