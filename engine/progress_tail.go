package engine

import (
	"fmt"
	"io"
	"time"
)

// LiveLine is a Progress writer that shows one line in place: a
// terminal's status line (internal/term.Line). It gets every
// interval's line through Live, and a segment's last line stays, written
// as a line of its own when the segment ends; anything else written to
// it (a barrier's wait) goes above the live line.
type LiveLine interface {
	io.Writer
	// Live replaces the line shown in place with s ("" removes it).
	Live(s string)
}

// progressGate decides whether an interval gets a progress line, and
// prints it. A segment's last interval ends when the segment does, not
// on a tick: it is often a few milliseconds long, right after the tick
// that already printed that second, and its rate over so short a time
// means nothing ("achieved 0/s" or "achieved 2024/s" at 100/s). Such a
// tail is folded into the figures (latency.hlog, counts.csv,
// Prometheus, the summary) but gets no line of its own. A segment whose
// only interval is short still gets one line.
//
// With every > 0 (a log or a pipe: Options.ProgressEvery) the lines are
// thinned: a segment's first line, one each every of its time, and its
// last line (end), so a 12-hour soak writes ~720 lines, not 43,200.
//
// Used by the collector goroutine only (one segment at a time), and by
// runSegment once that goroutine is done (end).
type progressGate struct {
	seg   *segment // the segment the last line was printed for
	every time.Duration
	// next is the elapsed time of seg at which the next thinned line is
	// due.
	next time.Duration
	// last is seg's latest line; pending says it has not been written
	// as a line of its own (thinned out, or only shown live).
	last    string
	pending bool
}

// show reports whether the interval of seg lasting d gets a line.
func (g *progressGate) show(seg *segment, d, interval time.Duration) bool {
	if g.seg == seg && d < interval/2 {
		return false
	}
	if g.seg != seg {
		*g = progressGate{seg: seg, every: g.every}
	}
	return true
}

// print writes line, the line of an interval show let through that
// ends elapsed into the segment, as w takes it.
func (g *progressGate) print(w io.Writer, elapsed time.Duration, line string) {
	g.last = line
	if l, ok := w.(LiveLine); ok {
		l.Live(line)
		g.pending = true
		return
	}
	if g.every > 0 && elapsed < g.next {
		g.pending = true
		return
	}
	fmt.Fprintln(w, line)
	g.pending = false
	if g.every > 0 {
		g.next = (elapsed/g.every + 1) * g.every
	}
}

// end writes the segment's last line if it has not been written as
// one: a segment ends on a line that says where it got to.
func (g *progressGate) end(w io.Writer) {
	if g.pending {
		if l, ok := w.(LiveLine); ok {
			l.Live("")
		}
		fmt.Fprintln(w, g.last)
	}
	*g = progressGate{every: g.every}
}
