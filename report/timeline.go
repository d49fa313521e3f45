package report

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/rundir"

	"github.com/soakd/soakd/regfile"
)

// MaxTimelinePoints bounds the points per op and phase in a timeline: a
// 12-hour run's 43,200 one-second intervals are merged into buckets of
// equal width (percentiles from the merged histograms, not averaged).
const MaxTimelinePoints = 600

// TimePoint is one bucket of a phase's latency over time for one op.
type TimePoint struct {
	At    time.Time // bucket start
	Count int64
	P50   float64 // seconds, from intended start
	P99   float64
	P999  float64
	Max   float64
}

// Timeline is latency from intended start over time, per phase and op,
// read from a run's latency.hlog.
type Timeline struct {
	// Width is each phase's bucket width.
	Width  map[string]time.Duration
	Phases map[string]map[string][]TimePoint
}

// ReadTimeline reads dir's latency.hlog into buckets sized from the
// summary's phase durations. Only .latency tags are read.
func ReadTimeline(dir string, s *rundir.Summary) (*Timeline, error) {
	path := dir + string(os.PathSeparator) + "latency.hlog"
	f, err := regfile.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return readPartialTimeline(dir, s)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readTimeline(f, path, s, timelineWidth)
}

// readPartialTimeline is ReadTimeline on a killed run's (or a full
// disk's) latency.hlog.partial: its whole lines, a torn last one left
// out.
func readPartialTimeline(dir string, s *rundir.Summary) (*Timeline, error) {
	path := dir + string(os.PathSeparator) + rundir.PartialLog
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if i := bytes.LastIndexByte(data, '\n'); i >= 0 {
		data = data[:i+1]
	}
	return readTimeline(bytes.NewReader(data), path, s, timelineWidth)
}

// timelineWidth is the bucket width for a phase of duration d: 1 s, or
// wider so the phase has at most MaxTimelinePoints buckets.
func timelineWidth(d time.Duration) time.Duration {
	w := time.Second
	if d > MaxTimelinePoints*time.Second {
		w = (d/MaxTimelinePoints + time.Second - 1).Truncate(time.Second)
	}
	return w
}

type tlAcc struct {
	bucket int64
	start  time.Time
	h      *hdr.Histogram
}

// readTimeline buckets rd's .latency intervals per phase and op, each
// phase's buckets width(phase duration) wide.
func readTimeline(rd io.Reader, name string, s *rundir.Summary, width func(time.Duration) time.Duration) (*Timeline, error) {
	return readTimelines([]io.Reader{rd}, []string{name}, s, width)
}

// logSource is one interval log read in order, its next .latency
// interval held back so several logs can be read in time order.
type logSource struct {
	lr   *hdr.HistogramLogReader
	name string
	next *hdr.Histogram
}

// advance reads the source's next .latency interval (nil at the end).
func (src *logSource) advance() error {
	for {
		h, err := src.lr.NextIntervalHistogram()
		if err != nil {
			return fmt.Errorf("%s: %w", src.name, err)
		}
		if h == nil || strings.HasSuffix(h.Tag(), ".latency") {
			src.next = h
			return nil
		}
	}
}

// readTimelines is readTimeline over several logs of one run (its
// shards): their intervals are read in order of start time and merged
// into the same buckets, so each bucket's percentiles come from all the
// shards' histograms. Only one histogram per phase and op is held.
func readTimelines(rds []io.Reader, names []string, s *rundir.Summary, width func(time.Duration) time.Duration) (*Timeline, error) {
	tl := &Timeline{Width: map[string]time.Duration{}, Phases: map[string]map[string][]TimePoint{}}
	starts := map[string]time.Time{}
	for _, p := range s.Phases {
		tl.Width[p.Name], starts[p.Name] = width(p.End.Sub(p.Start)), p.Start
	}
	accs := map[string]map[string]*tlAcc{}
	flush := func(phase, op string, a *tlAcc) {
		if a == nil || a.h.TotalCount() == 0 {
			return
		}
		if tl.Phases[phase] == nil {
			tl.Phases[phase] = map[string][]TimePoint{}
		}
		q := func(p float64) float64 { return float64(a.h.ValueAtQuantile(p)) / 1e9 }
		tl.Phases[phase][op] = append(tl.Phases[phase][op], TimePoint{At: a.start, Count: a.h.TotalCount(),
			P50: q(50), P99: q(99), P999: q(99.9), Max: float64(a.h.Max()) / 1e9})
	}
	srcs := make([]*logSource, len(rds))
	for i, rd := range rds {
		srcs[i] = &logSource{lr: hdr.NewHistogramLogReader(rd), name: names[i]}
		if err := srcs[i].advance(); err != nil {
			return nil, err
		}
	}
	for {
		var src *logSource
		for _, c := range srcs {
			if c.next != nil && (src == nil || c.next.StartTimeMs() < src.next.StartTimeMs()) {
				src = c
			}
		}
		if src == nil {
			break
		}
		h := src.next
		if err := src.advance(); err != nil {
			return nil, err
		}
		tag := strings.TrimSuffix(h.Tag(), ".latency")
		i := strings.LastIndexByte(tag, '.')
		if i < 0 {
			continue
		}
		phase, op := tag[:i], tag[i+1:]
		w, known := tl.Width[phase]
		if !known {
			continue // a phase the summary does not hold
		}
		at := time.UnixMilli(h.StartTimeMs()).UTC()
		b := int64(at.Sub(starts[phase]) / w)
		if accs[phase] == nil {
			accs[phase] = map[string]*tlAcc{}
		}
		a := accs[phase][op]
		if a == nil || a.bucket != b {
			flush(phase, op, a)
			a = &tlAcc{bucket: b, start: starts[phase].Add(time.Duration(b) * w), h: metrics.NewHist()}
			accs[phase][op] = a
		}
		if dropped := a.h.Merge(h); dropped != 0 {
			return nil, fmt.Errorf("%s: tag %s: %d values outside the histogram range", src.name, h.Tag(), dropped)
		}
	}
	for phase, ops := range accs {
		for op, a := range ops {
			flush(phase, op, a)
		}
	}
	return tl, nil
}

// timelinePlots draws a phase's over-time charts from tl: the
// throughput of each op (ops completed per second in each bucket lying
// wholly inside the phase), then one panel per op of its p99 per bucket
// with its avg p99 over the run (after the warmup) as a flat line. The
// warmup is shaded on every chart; stage starts, live rate changes and
// change points are dashed marks (an op's change points on its own
// panel).
func timelinePlots(p *rundir.PhaseResult, tl *Timeline) []Plot {
	ops := tl.Phases[p.Name]
	if len(ops) == 0 {
		return nil
	}
	w := tl.Width[p.Name]
	var stageMarks []Point
	for _, st := range p.Stages {
		if !st.Start.IsZero() {
			stageMarks = append(stageMarks, Point{X: round6(math.Max(0, st.Start.Sub(p.Start).Seconds())), Label: st.Name})
		}
	}
	// Live rate changes, marked where they took effect (the target
	// rate's step line shows the new rate on the throughput chart).
	stageMarks = append(stageMarks, rateChangeMarks(p)...)
	var shades []Span
	if p.WarmupSeconds > 0 {
		shades = append(shades, Span{From: 0, To: p.WarmupSeconds, Label: "warmup"})
	}
	// BGSAVE and AOF rewrite periods, shaded on each op's latency panel.
	var spans []Span
	for _, e := range p.PersistenceEvents {
		spans = append(spans, Span{From: e.StartOffsetSeconds, To: e.EndOffsetSeconds, Label: e.Kind})
	}
	x := func(tp TimePoint) float64 { return round6(tp.At.Sub(p.Start).Seconds()) }
	const xl = "seconds since phase start"
	thr := Plot{Title: fmt.Sprintf("throughput over time: ops/s per %s bucket (completed)", w), XLabel: xl, YLabel: "ops/s", Shades: shades, Marks: stageMarks}
	var panels []Plot
	for _, op := range slices.Sorted(maps.Keys(ops)) {
		tr := Series{Name: op}
		for _, tp := range ops[op] {
			if tp.At.Before(p.Start) || tp.At.Add(w).After(p.End) {
				continue // a partial bucket would look like a drop in rate
			}
			tr.Points = append(tr.Points, Point{X: x(tp), Y: round6(float64(tp.Count) / w.Seconds()), Label: fmt.Sprintf("%d ops", tp.Count)})
		}
		thr.Series = append(thr.Series, tr)
		pl := Plot{Title: fmt.Sprintf("%s latency over time: p99 per %s (from intended start)", op, w), XLabel: xl, YLabel: "latency (s)", Shades: shades, Marks: stageMarks, Spans: spans}
		sr := Series{Name: op + " p99"}
		for _, tp := range ops[op] {
			sr.Points = append(sr.Points, Point{X: x(tp), Y: tp.P99, Label: fmt.Sprintf("%d ops", tp.Count)})
		}
		if len(sr.Points) < 2 {
			continue
		}
		pl.Series = append(pl.Series, sr)
		if o, ok := p.Ops[op]; ok && o.OverTime != nil {
			first, last := sr.Points[0].X, sr.Points[len(sr.Points)-1].X
			first = math.Max(first, p.WarmupSeconds)
			pl.Series = append(pl.Series, Series{Name: "avg p99 " + fmtDur(o.OverTime.MeanP99), Points: []Point{{X: first, Y: o.OverTime.MeanP99}, {X: last, Y: o.OverTime.MeanP99}}})
		}
		pl.Targets = append(pl.Targets, sloTargets(p, op, 99)...)
		for _, m := range changeMarks(p) {
			if strings.HasPrefix(m.Label, "change: "+op+" ") {
				pl.Marks = append(pl.Marks, m)
			}
		}
		panels = append(panels, pl)
	}
	n := 0
	for _, sr := range thr.Series {
		n = max(n, len(sr.Points))
	}
	// With several ops, their sum is what the target rate is set for.
	if len(thr.Series) > 1 {
		sum := map[float64]float64{}
		var xs []float64
		for _, sr := range thr.Series {
			for _, pt := range sr.Points {
				if _, ok := sum[pt.X]; !ok {
					xs = append(xs, pt.X)
				}
				sum[pt.X] += pt.Y
			}
		}
		slices.Sort(xs)
		all := Series{Name: "all ops"}
		for _, x := range xs {
			all.Points = append(all.Points, Point{X: x, Y: round6(sum[x])})
		}
		thr.Series = append(thr.Series, all)
	}
	addTargetRate(&thr, p)
	var out []Plot
	// A per-op growth phase runs each op alone, closed loop, between
	// fills: its throughput over time is a 0/peak zigzag, not a rate.
	if n >= 2 && !perOpPhase(p) {
		out = append(out, thr)
	}
	return append(out, panels...)
}

// perOpPhase says whether a growth phase measured each op alone.
func perOpPhase(p *rundir.PhaseResult) bool {
	for _, st := range p.Stages {
		if len(st.PerOp) > 0 {
			return true
		}
	}
	return false
}
