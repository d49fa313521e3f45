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
	"path/filepath"
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
	At time.Time // bucket start
	// End is the end of the bucket's last interval (zero: the bucket's
	// full width): a phase's last bucket may cover less than the width.
	End   time.Time
	Count int64
	// Errors is how many of Count failed (from counts.csv; 0 when the
	// run left none). Their latency is in the percentiles: a bucket of
	// failures alone has no latency worth drawing.
	Errors int64
	P50    float64 // seconds, from intended start
	P99    float64
	P999   float64
	Max    float64
}

// Timeline is latency from intended start over time, per phase and op,
// read from a run's latency.hlog.
type Timeline struct {
	// Width is each phase's bucket width.
	Width  map[string]time.Duration
	Phases map[string]map[string][]TimePoint
	// Scheduled is each timed replay phase's target: its capture's ops
	// per second per bucket (replaySchedule); absent when the capture
	// could not be read back.
	Scheduled map[string][]Point
}

// ReadTimeline reads dir's latency.hlog into buckets sized from the
// summary's phase durations. Only .latency tags are read.
func ReadTimeline(dir string, s *rundir.Summary) (*Timeline, error) {
	path := dir + string(os.PathSeparator) + "latency.hlog"
	f, err := regfile.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		tl, err := readPartialTimeline(dir, s)
		if err != nil {
			return nil, err
		}
		// A killed run's failed ops are no latency either.
		counts, _ := partialCounts(dir)
		tl.addErrors(counts, s)
		return tl, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	tl, err := readTimeline(f, path, s, timelineWidth)
	if err != nil {
		return nil, err
	}
	counts, err := rundir.ReadCounts(filepath.Join(dir, rundir.CountsFile))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	tl.addErrors(counts, s)
	for i := range s.Phases {
		p := &s.Phases[i]
		if sched := replaySchedule(p, s.Target.Kind, tl.Width[p.Name]); sched != nil {
			if tl.Scheduled == nil {
				tl.Scheduled = map[string][]Point{}
			}
			tl.Scheduled[p.Name] = sched
		}
	}
	return tl, nil
}

// partialCounts is a killed run's counts: counts.csv, else
// counts.csv.partial up to its last whole line (nil when there is none).
func partialCounts(dir string) ([]rundir.IntervalCount, error) {
	path := filepath.Join(dir, rundir.CountsFile)
	c, err := rundir.ReadCounts(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return c, err
	}
	data, err := os.ReadFile(path + rundir.PartialSuffix)
	if err != nil {
		return nil, err
	}
	if i := bytes.LastIndexByte(data, '\n'); i >= 0 {
		data = data[:i+1]
	}
	return rundir.ParseCounts(bytes.NewReader(data), path+rundir.PartialSuffix)
}

// addErrors adds counts.csv's failed ops to the buckets they completed
// in.
func (tl *Timeline) addErrors(counts []rundir.IntervalCount, s *rundir.Summary) {
	starts := map[string]time.Time{}
	for _, p := range s.Phases {
		starts[p.Name] = p.Start
	}
	for _, c := range counts {
		w := tl.Width[c.Phase]
		pts := tl.Phases[c.Phase][c.Op]
		if c.Errors == 0 || w <= 0 || len(pts) == 0 {
			continue
		}
		at := starts[c.Phase].Add(time.UnixMilli(c.StartMs).Sub(starts[c.Phase]) / w * w)
		i, found := slices.BinarySearchFunc(pts, at, func(tp TimePoint, t time.Time) int { return tp.At.Compare(t) })
		if found {
			pts[i].Errors += c.Errors
		}
	}
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
	end    time.Time // the end of the last interval merged
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
		tl.Phases[phase][op] = append(tl.Phases[phase][op], TimePoint{At: a.start, End: a.end, Count: a.h.TotalCount(),
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
		if end := time.UnixMilli(h.EndTimeMs()).UTC(); end.After(a.end) {
			a.end = end
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
	const xl = "seconds since phase start"
	thr := Plot{Title: fmt.Sprintf("throughput over time: ops/s per %s bucket (completed)", w), XLabel: xl, YLabel: "ops/s", Shades: shades, Marks: stageMarks}
	var panels []Plot
	// A stretch of more than two buckets without ops is left empty.
	gap := round6(2.5 * w.Seconds())
	for _, op := range slices.Sorted(maps.Keys(ops)) {
		tr := Series{Name: op, MaxGap: gap}
		sr := Series{Name: op + " p99", MaxGap: gap}
		for _, tp := range ops[op] {
			mid, secs, ok := bucketSpan(tp, w, p)
			if !ok {
				continue
			}
			lbl := fmt.Sprintf("%d ops in %s", tp.Count, fmtSecs(secs))
			if tp.Errors > 0 {
				lbl += fmt.Sprintf(", %d failed", tp.Errors)
			}
			// The rate over the time the bucket covered: a last bucket
			// of 0.3 s is its ops over 0.3 s, not over the width.
			tr.Points = append(tr.Points, Point{X: mid, Y: round6(float64(tp.Count) / secs), Label: lbl})
			if tp.Errors < tp.Count {
				sr.Points = append(sr.Points, Point{X: mid, Y: tp.P99, Label: lbl})
			} else {
				// A bucket of failures alone has no latency to show.
				sr.Breaks = append(sr.Breaks, mid)
			}
		}
		thr.Series = append(thr.Series, tr)
		pl := Plot{Title: fmt.Sprintf("%s latency over time: p99 per %s (from intended start)", op, w), XLabel: xl, YLabel: "latency (s)", Shades: shades, Marks: stageMarks, Spans: spans}
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
	// With several ops, their sum is what the target rate is set for:
	// each bucket's ops of every kind over the longest time any covered.
	if len(thr.Series) > 1 {
		type acc struct {
			n       int64
			mid, dt float64
		}
		sum := map[time.Time]*acc{}
		for _, pts := range ops {
			for _, tp := range pts {
				mid, secs, ok := bucketSpan(tp, w, p)
				if !ok {
					continue
				}
				a := sum[tp.At]
				if a == nil {
					a = &acc{}
					sum[tp.At] = a
				}
				a.n += tp.Count
				if secs > a.dt {
					a.mid, a.dt = mid, secs
				}
			}
		}
		all := Series{Name: "all ops", MaxGap: gap}
		for _, at := range slices.SortedFunc(maps.Keys(sum), time.Time.Compare) {
			a := sum[at]
			all.Points = append(all.Points, Point{X: a.mid, Y: round6(float64(a.n) / a.dt), Label: fmt.Sprintf("%d ops in %s", a.n, fmtSecs(a.dt))})
		}
		thr.Series = append(thr.Series, all)
	}
	if replayTimed(p) {
		// The target is what the capture scheduled, bucket by bucket:
		// its mean would make a replay that kept up look short.
		if sched := tl.Scheduled[p.Name]; len(sched) > 0 {
			thr.Series = append(thr.Series, Series{Name: "scheduled (the capture's timing)", Points: sched})
		}
	} else {
		addTargetRate(&thr, p)
	}
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

// bucketSpan is where a bucket is drawn (the middle of the time it
// covers, in seconds since the phase start) and how long it covers: its
// width, less what lies past the phase's end or its last interval's.
// ok is false for a bucket before the phase or covering no time.
func bucketSpan(tp TimePoint, w time.Duration, p *rundir.PhaseResult) (mid, secs float64, ok bool) {
	if tp.At.Before(p.Start) {
		return 0, 0, false
	}
	to := tp.At.Add(w)
	if !tp.End.IsZero() && tp.End.Before(to) {
		to = tp.End
	}
	if !p.End.IsZero() && p.End.Before(to) {
		to = p.End
	}
	d := to.Sub(tp.At)
	if d <= 0 {
		return 0, 0, false
	}
	return round6((tp.At.Sub(p.Start) + d/2).Seconds()), d.Seconds(), true
}

// fmtSecs is a bucket's length for a tooltip: "1s", "0.307s".
func fmtSecs(s float64) string { return fmt.Sprintf("%.3gs", s) }
