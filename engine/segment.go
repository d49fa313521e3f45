package engine

import (
	"context"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
	"github.com/soakd/soakd/verdict"
)

// segment is one stretch at one rate: a steady phase, a ramp step, a
// load, a growth stage's measurement or a capacity probe.
type segment struct {
	Phase       string
	Stage       string // "" for a phase that is one segment
	StageIndex  int    // 1-based number of Stage; 0 when Stage is ""
	Kind        scenarios.PhaseKind
	Rate        float64 // 0 = closed loop
	Duration    time.Duration
	Limit       uint64 // ops to run (load); 0 = by duration
	Mix         *scenarios.Mix
	Concurrency int
	MaxLag      time.Duration
	Warmup      time.Duration
	// Tick groups the open-loop arrivals into ticks (Ticked); 0 = each
	// op at its own instant.
	Tick time.Duration
	// Sequential: op i touches record KeyBase+i (load/insert stages).
	Sequential bool
	KeyBase    int64
	Seed       uint64
	// Offset delays this shard's schedule: shard I of N starts at
	// t0 + I/(total rate), so the shards' ops interleave.
	Offset time.Duration
	// Values, when set, gives this segment's field values (a value-size
	// sweep point); nil = the run's (record.field_bytes).
	Values *scenarios.Values
	// Source is where the segment's requests come from (source.go): its
	// executor's pick, the run's mix for most kinds.
	Source opSource
	// Pacing, when set, is the open-loop schedule's timing when the
	// source brings its own (a capture's); nil = Rate's, in Tick's ticks
	// when set.
	Pacing pacing
	// resume, when set, continues the segment a killed run was running
	// (resume.go): same origin, its figures so far, the schedule from
	// the index due now.
	resume *segResume
}

// chunk is a run of consecutive schedule indices handed to one worker.
type chunk struct {
	first uint64
	n     uint32
	ep    *epoch // schedule the indices belong to
}

// segResult is what a segment measured.
type segResult struct {
	Start, End time.Time
	// Total holds the measured ops: intended at or after the warmup's
	// end. Ops intended in the warmup are not in it.
	Total *metrics.Set
	// Scheduled counts the measured ops the schedule called for
	// (dropped included, warmup excluded).
	Scheduled uint64
	Completed int64
	// Elapsed is the measured window: from the warmup's end to the
	// schedule's end (or to when the segment stopped early).
	Elapsed time.Duration
	// Drain is how long after the window's end the last measured op
	// completed (0 when none completed late).
	Drain time.Duration
	// WarmTail counts warmup ops that completed inside the window.
	WarmTail int64
	// WarmTailErrors are the WarmTail ops that failed (an error class).
	WarmTailErrors int64
	Stats          map[string]float64
	MaxLag         time.Duration
	// Canceled: the run's context ended the segment early.
	Canceled bool
	// CountEnded: its count (requests:) ended it, before any duration.
	CountEnded bool
	// Retimed: the rate was changed live (Control.SetRate); the target
	// rate reported is then scheduled ops over the schedule's duration.
	Retimed bool
	// self is soakd's own health over a stage (nil: not a stage, or not
	// sampled).
	self *verdict.SelfAcc
	// lost are the measured ops of a resumed segment whose outcome no
	// one knows (resume.go); zero when it was not resumed.
	lost lostOps
}

// pacerSleeper is how the dispatcher waits for the next op's intended
// start (timeSource.pacer; one per dispatch, closed at its end).
type pacerSleeper interface {
	sleep(d time.Duration)
	close()
}

// wakeable is a pacerSleeper another goroutine can cut short: wake ends
// the sleep in progress at once, or the next one when none is.
type wakeable interface{ wake() }

// pollCap is a pacer's longest sleep when nothing can wake it: it looks
// at the context and the live rate every 10 ms, so a stop or a rate
// change at a low rate takes effect promptly. wakeCap is the longest
// sleep of a wakeable pacer, woken for those (wakeOn): 100 wake-ups a
// second at 1 ops/s cost 0.4% of a core on a VM, each ~40 us.
const (
	pollCap = 10 * time.Millisecond
	wakeCap = time.Second
)

// minSleep is the shortest pacer sleep: at high rates the pacer wakes at
// most every 100 us and dispatches everything due in a burst.
const minSleep = 100 * time.Microsecond

// noEnd is a window end that never comes (segments bounded by a count).
const noEnd = math.MaxInt64

// intervalSink receives each interval's merged window.
type intervalSink interface {
	// pause lets the pacer run between units of the sink's work
	// (pauser.pause).
	onInterval(seg *segment, from, to time.Time, elapsed time.Duration, window *metrics.Set, completed, done int64, pause func())
}

// runSegment runs seg on the run's current target, feeding sink each
// interval: its workers, its collector and its pacing (the open-loop
// dispatcher or the closed loop's wait) are segRun's three goroutine
// bodies (runWorker, collect, pace).
func (r *runner) runSegment(ctx context.Context, seg *segment, sink intervalSink) *segResult {
	ops := seg.Mix.Ops()
	nStripes := min(seg.Concurrency, 8)
	sr := &segRun{seg: seg, time: r.time, clk: &clock{}, begin: make(chan struct{}), stop: make(chan struct{}),
		stripes: make([]*metrics.Recorder, nStripes), res: &segResult{Total: metrics.NewSet(ops)}}
	for i := range sr.stripes {
		if seg.Warmup > 0 {
			sr.stripes[i] = metrics.NewWarmupRecorder(ops)
		} else {
			sr.stripes[i] = metrics.NewRecorder(ops)
		}
	}
	// Two windows in turn: the one before the sink's last is free to
	// reuse instead of allocating ~190 KB per histogram each interval.
	sr.windows = [2]*metrics.Set{metrics.NewWindowSet(ops), metrics.NewWindowSet(ops)}
	if seg.Warmup > 0 {
		sr.warm = metrics.NewWindowSet(ops)
	}
	// Everything the segment needs is made before its origin t0 and its
	// goroutines started: on one core (GOMAXPROCS=1) the setup, and a
	// collection its allocations start, would otherwise run after t0
	// and delay the first ops by all of it (~2-3 ms for 64 workers).
	c := &crew{target: r.target, slots: 1, clk: sr.clk, classIdx: r.plan.classIdx}
	if sink == intervalSink(r) && r.ck != nil {
		sr.streams = newStreamCells(seg.Concurrency)
		c.streams = sr.streams
	}
	var batchable [scenarios.NumOps]bool
	if b, _ := r.target.(targets.Batcher); b != nil && b.MaxBatch() > 1 {
		c.batcher, c.slots = b, b.MaxBatch()
		for _, op := range ops {
			batchable[op] = b.Batchable(op)
		}
	}
	// In-flight ops finish after a cancel (up to the drain deadline,
	// waitWorkers), so the run's own context does not reach them.
	opCtx, cancelOps := context.WithCancelCause(context.WithoutCancel(ctx))
	defer cancelOps(nil)
	if seg.Rate > 0 {
		sr.work = make(chan chunk, max(seg.Concurrency*4, 1024))
	}
	var wg sync.WaitGroup
	workers := make([]*worker, seg.Concurrency)
	for w := range workers {
		workers[w] = c.newWorker(seg, w, sr.stripes[w%nStripes])
	}
	if seg.resume != nil {
		sr.restored = restoreStreams(seg, seg.resume, workers)
	}
	for _, wk := range workers {
		wg.Add(1)
		go func() {
			defer func() {
				// An abandoned worker's Done was taken by waitWorkers.
				if wk.state.Load() != workerAbandoned {
					wg.Done()
				}
			}()
			sr.runWorker(opCtx, wk)
		}()
	}
	collectDone := make(chan struct{})
	var collectWG sync.WaitGroup
	collectWG.Add(1)
	p := r.newPauser()
	go func() {
		defer collectWG.Done()
		sr.collect(sink, p, r.opts.Interval, collectDone)
	}()

	// The goroutines just started run up to their first wait now, not
	// on the schedule's time.
	runtime.Gosched()
	res := sr.res
	res.Start = r.time.now()
	sr.since = res.Start
	if sink == intervalSink(r) {
		sr.ckpt = r.ck
	}
	if seg.resume != nil {
		r.resumeSegment(sr, res.Start)
	} else {
		sr.clk.start(seg, res.Start)
	}
	close(sr.begin)
	rate := seg.Rate
	if e := sr.retime.Load(); e != nil {
		rate = e.Rate // resumed: a live rate change before the kill is in force
	}
	r.opts.Control.setCurrent(currentName(seg), rate)
	sr.pace(ctx, dispatcher{time: r.time, ctl: r.opts.Control, exporter: r.opts.Exporter, seg: sr}, c.slots, &batchable)
	r.opts.Control.setCurrent("", 0)
	r.waitWorkers(ctx, &wg, workers, sr.work, cancelOps, r.opts.drainDeadline)
	res.End = r.time.now()
	if seg.Limit > 0 && sr.scheduled.Load() >= seg.Limit {
		// The count ended it before its duration: the window is the run
		// of the count, not the whole duration.
		sr.clk.stopAt(res.End)
		res.CountEnded = true
	}
	close(collectDone)
	collectWG.Wait()
	if r.opts.Progress != nil {
		r.progress.end(r.opts.Progress)
	}
	sr.settle(ctx)
	return res
}

// segRun is one running segment: what its workers, its collector and
// its pacing share.
type segRun struct {
	seg  *segment
	time timeSource
	clk  *clock
	// begin is closed once clk's origin t0 is set: the closed-loop
	// workers and the collector wait for it. The open-loop workers wait
	// for chunks.
	begin    chan struct{}
	stop     chan struct{} // closed loop: closed when the segment ends
	stopOnce sync.Once
	// work carries the open-loop chunks (nil: closed loop).
	work      chan chunk
	next      atomic.Uint64 // closed loop: next index to claim
	scheduled atomic.Uint64
	stripes   []*metrics.Recorder
	// warmSent is the open-loop indices sent so far that are in the
	// warmup, retime the schedule of the last live rate change (nil:
	// none): the dispatcher's, for the checkpoints.
	warmSent atomic.Uint64
	retime   atomic.Pointer[epochState]
	// since is the start of the collector's first interval: the
	// segment's start, or the moment it was resumed.
	since time.Time
	// ckpt writes the run's checkpoint after each interval of a
	// measured segment (nil: none); from is where a resumed segment's
	// dispatch starts (nil: at its start).
	ckpt *checkpointer
	from *dispatchFrom
	// pos is the position at the collector's last drain, for the
	// checkpoint written after the interval (the collector's own).
	pos segState
	// streams are the workers' stream positions (nil: not
	// checkpointed); restored says how a resumed segment's streams were
	// restored (restoreStreams), for its seam.
	streams  *streamCells
	restored string
	// seamLost are a resumed segment's lost ops per op, its seams'
	// (resume.go; nil: never resumed).
	seamLost *lostOps
	// windows are the collector's two interval windows in turn (the
	// sink keeps the last one it was given until the next interval);
	// warm takes the warmup's ops (nil without a warmup).
	windows [2]*metrics.Set
	warm    *metrics.Set
	res     *segResult
}

func (sr *segRun) halt() { sr.stopOnce.Do(func() { close(sr.stop) }) }

// runWorker is a worker's goroutine: open loop, it runs the chunks the
// dispatcher sends; closed loop, it claims the next index as soon as it
// is free, until the count or the duration is reached or the segment
// stops.
func (sr *segRun) runWorker(ctx context.Context, wk *worker) {
	seg := sr.seg
	if sr.work != nil {
		for {
			c, ok := wk.next(sr.work)
			if !ok || !wk.runChunk(ctx, c) {
				return
			}
		}
	}
	<-sr.begin
	for {
		select {
		case <-sr.stop:
			return
		default:
		}
		i := sr.next.Add(1) - 1
		if seg.Limit > 0 && i >= seg.Limit {
			sr.halt()
			return
		}
		if seg.Duration > 0 && sr.time.since(sr.clk.t0) >= seg.Duration {
			sr.halt()
			return
		}
		sr.scheduled.Add(1)
		if !wk.runClosed(ctx, i) {
			return
		}
	}
}

// pace is the segment's schedule, on the caller's goroutine: the
// open-loop dispatcher, or the closed loop's wait for its end (or the
// run's).
func (sr *segRun) pace(ctx context.Context, d dispatcher, chunkMax int, batchable *[scenarios.NumOps]bool) {
	if sr.work != nil {
		sr.res.Retimed = d.run(ctx, sr.seg, sr.clk, sr.work, chunkMax, batchable, sr.stripes, &sr.scheduled)
		close(sr.work)
		return
	}
	select {
	case <-sr.stop:
	case <-ctx.Done():
		sr.clk.stopAt(sr.time.now())
		sr.halt()
	}
}

// collect is the collector's goroutine: each interval it merges the
// workers' stripes into the interval's window and the segment's
// figures and hands the window to sink; once more when done closes.
func (sr *segRun) collect(sink intervalSink, p *pauser, interval time.Duration, done <-chan struct{}) {
	seg, warm := sr.seg, sr.warm
	<-sr.begin
	t0 := sr.clk.t0
	last := sr.since
	lastCompleted := sr.clk.completed.Load()
	// A ticked segment's collector runs half a tick after its
	// interval ends: the interval is a whole number of ticks, and
	// at a tick's start the pacer is due to send the whole tick.
	if seg.Tick > 0 {
		off := time.NewTimer(seg.Tick / 2)
		select {
		case <-off.C:
		case <-done:
			off.Stop()
		}
	}
	tick := time.NewTicker(interval)
	defer tick.Stop()
	n := 0
	// The work is cut into slices so the pacer runs in between
	// (pause.go); each step below costs the buckets in use this
	// interval, not the histograms' range (metrics/window.go).
	pause := p.pause
	// An interval ends when its stripes have been drained, not when
	// the ticker fired: on a busy host the collector can run late,
	// and ops completed in between are in this interval's window, so
	// its end must not precede them (latency.hlog, counts.csv).
	flush := func(final bool) {
		p.begin()
		if sr.ckpt != nil && !final {
			// Asked before the drain: the busy workers answer while it
			// runs.
			sr.streams.ask()
		}
		window := sr.windows[n&1]
		n++
		window.Reset()
		for _, s := range sr.stripes {
			s.DrainSplit(window, warm)
			pause()
		}
		if sr.ckpt != nil && !final {
			sr.pos = sr.position()
		}
		now := sr.time.now()
		// Only measured ops reach the segment's figures; the
		// interval's window (progress, Prometheus, latency.hlog)
		// shows the warmup's ops too.
		sr.res.Total.MergePaused(window, pause)
		if warm != nil && !warm.Empty() {
			window.Merge(warm)
			warm.Reset()
		}
		window.Sync(pause)
		c := sr.clk.completed.Load()
		sink.onInterval(seg, last, now, now.Sub(t0), window, c-lastCompleted, c, pause)
		if !final {
			// A segment's end is not checkpointed: its phase's end, or
			// the next segment's first interval, is (the fsyncs would
			// delay the segment's end).
			sr.ckpt.segment(sr)
		}
		lastCompleted = c
		last = now
	}
	for {
		select {
		case <-tick.C:
			flush(false)
		case <-done:
			flush(true)
			return
		}
	}
}

// settle fills the segment's result from its counters once its
// workers and collector are done.
func (sr *segRun) settle(ctx context.Context) {
	res, clk := sr.res, sr.clk
	total := sr.scheduled.Load()
	if w := clk.warmSched.Load(); w < total {
		res.Scheduled = total - w
	}
	for _, os := range res.Total.Ops {
		if os != nil {
			res.Completed += os.Count
		}
	}
	winEnd := clk.winEnd.Load()
	if winEnd == noEnd {
		// Bounded by a count: the window is the whole run of it.
		winEnd = res.End.UnixNano()
	}
	res.Elapsed = max(time.Duration(winEnd-clk.warmEnd), 0)
	if last := clk.lastEnd.Load(); last > winEnd {
		res.Drain = time.Duration(last - winEnd)
	}
	res.WarmTail = clk.warmTail.Load()
	res.WarmTailErrors = clk.warmErrs.Load()
	res.MaxLag = time.Duration(res.Total.Lag.Max())
	res.Canceled = ctx.Err() != nil
	if sr.seg.resume != nil {
		res.lost = sr.lostOps()
	}
}

// pacing is seg's open-loop schedule: its own timing when it has one,
// else its fixed rate.
func (seg *segment) pacing() pacing {
	if seg.Pacing != nil {
		return seg.Pacing
	}
	return seg.atRate(seg.Rate)
}

// atRate is seg's fixed-rate schedule at rate: in seg's ticks when it
// has them (a live rate change keeps them).
func (seg *segment) atRate(rate float64) pacing {
	if seg.Tick > 0 {
		return Ticked{Schedule: Schedule{Rate: rate}, Tick: seg.Tick}
	}
	return Schedule{Rate: rate}
}

func currentName(seg *segment) string {
	if seg.Stage != "" {
		return seg.Phase + "/" + seg.Stage
	}
	return seg.Phase
}

// opFor returns the op kind of schedule index i: a pure function of the
// index, so the dispatcher (counting drops) and a worker agree.
func (seg *segment) opFor(i uint64) scenarios.Op { return seg.Source.opFor(seg, i) }
