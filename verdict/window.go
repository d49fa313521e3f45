package verdict

import (
	"sort"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/rundir"
)

// Windows judges one phase's latency limits over each window of
// slo.window, fed one closed window at a time (a 12-hour log is never
// held whole): one window_latency check per op and limit, its Actual
// the worst window's figure, passing only when no window broke the
// limit. Windows without ops are not judged; an op with none gets no
// check.
type Windows struct {
	l     *Limits
	phase string
	width time.Duration
	ops   map[string][]*windowState
}

// windowState is one op's one limit over the windows seen so far.
type windowState struct {
	ll    LatencyLimit
	st    rundir.WindowStats
	worst float64
	run   int
}

// Windows starts the window checks of phase, each window width long.
func (l *Limits) Windows(phase string, width time.Duration) *Windows {
	return &Windows{l: l, phase: phase, width: width, ops: map[string][]*windowState{}}
}

// Add judges op's window starting at after the phase's start, its ops'
// latency from intended start in h. Windows of an op come in order.
func (w *Windows) Add(op string, at time.Duration, h *hdr.Histogram) {
	if h == nil || h.TotalCount() == 0 {
		return
	}
	sts, ok := w.ops[op]
	if !ok {
		for _, ll := range w.l.For(op) {
			sts = append(sts, &windowState{ll: ll, worst: -1, st: rundir.WindowStats{Seconds: w.width.Seconds()}})
		}
		w.ops[op] = sts
	}
	for _, s := range sts {
		v := metrics.Quantile(h, s.ll.Percentile.Value)
		s.st.Judged++
		if v > s.worst {
			s.worst, s.st.WorstAtSeconds = v, at.Seconds()
		}
		if v <= s.ll.Limit.Seconds() {
			s.run = 0
			continue
		}
		s.st.Breached++
		s.run++
		s.st.LongestBreach = max(s.st.LongestBreach, s.run)
	}
}

// Checks are the window checks, by op then percentile.
func (w *Windows) Checks() []rundir.Check {
	names := make([]string, 0, len(w.ops))
	for op := range w.ops {
		names = append(names, op)
	}
	sort.Strings(names)
	var out []rundir.Check
	for _, op := range names {
		for _, s := range w.ops[op] {
			c := rundir.Check{Phase: w.phase, Op: op, What: "latency " + s.ll.Percentile.Name + " per " + w.width.String() + " window",
				Metric: WindowLatency, Percentile: s.ll.Percentile.Value, Cmp: WindowLatency.Cmp(), Limit: s.ll.Limit.Seconds()}
			c.Judge(s.worst)
			st := s.st
			c.Window = &st
			out = append(out, c)
		}
	}
	return out
}
