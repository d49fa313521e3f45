package engine

import "time"

// progressGate decides whether an interval gets a progress line. A
// segment's last interval ends when the segment does, not on a tick:
// it is often a few milliseconds long, right after the tick that
// already printed that second, and its rate over so short a time means
// nothing ("achieved 0/s" or "achieved 2024/s" at 100/s). Such a tail
// is folded into the figures (latency.hlog, counts.csv, Prometheus,
// the summary) but gets no line of its own. A segment whose only
// interval is short still gets one line.
//
// Used by the collector goroutine only (one segment at a time).
type progressGate struct {
	seg *segment // the segment the last line was printed for
}

// show reports whether the interval of seg lasting d gets a line.
func (g *progressGate) show(seg *segment, d, interval time.Duration) bool {
	if g.seg == seg && d < interval/2 {
		return false
	}
	g.seg = seg
	return true
}
