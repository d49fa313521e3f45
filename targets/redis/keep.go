package redis

// keep bounds a reused buffer by what it has held lately. A
// connection's command bytes grow to the longest pipeline it has sent
// (a batch of late ops after a stall, say) and, reused, would stay that
// size for the life of the connection: over a soak of days each
// connection's buffer would creep up to its largest burst. keep notes
// each use's length and, every keepSpan uses, lets the buffer go when it
// is more than twice the largest of them (and over keepMin), so the next
// append allocates what the load needs now.
type keep struct {
	peak, uses int
}

const (
	// keepSpan is how many uses a buffer's size is judged over: seconds
	// of a connection's round trips at a soak's rates, and at most one
	// reallocation per span.
	keepSpan = 4096
	// keepMin is a size never given back: a few commands' worth.
	keepMin = 4 << 10
)

// fit notes b's length as one use and returns b, or nil when the last
// keepSpan uses needed less than half of b's capacity.
func (k *keep) fit(b []byte) []byte {
	k.peak = max(k.peak, len(b))
	if k.uses++; k.uses < keepSpan {
		return b
	}
	peak := k.peak
	k.peak, k.uses = 0, 0
	if cap(b) > keepMin && cap(b) > 2*peak {
		return nil
	}
	return b
}
