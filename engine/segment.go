package engine

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/soakd/soakd/capture"
	"github.com/soakd/soakd/datagen"
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
	// Replay, when set, is the capture a replay phase sends: it gives
	// each index its op, its command and its intended start.
	Replay *replayPlan
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

// clock is a segment's accounting frame, shared by the dispatcher, the
// workers and the collector. An op belongs to the warmup or to the
// measured window by its intended start; a measured op completed after
// the window's end is counted in the drain, not in the window.
type clock struct {
	t0      time.Time
	warmEnd int64 // unix ns: ops intended before it are warmup
	// winEnd (unix ns) is where the measured window ends: t0+duration,
	// or earlier when the segment is stopped; noEnd for count-bounded
	// segments.
	winEnd atomic.Int64
	// lastEnd (unix ns) is the latest completion of a measured op.
	lastEnd atomic.Int64
	// warmSched counts the ops scheduled in the warmup (closed loop:
	// claimed in it; open loop: set by the dispatcher at its end).
	warmSched atomic.Uint64
	// warmTail counts warmup ops (by intended start) that completed
	// inside the measured window: they count toward the achieved rate,
	// which goes by completion time, not toward the measured figures.
	warmTail  atomic.Int64
	warmErrs  atomic.Int64 // warmTail ops that failed
	completed atomic.Int64
}

func newClock(seg *segment, t0 time.Time) *clock {
	c := &clock{}
	c.start(seg, t0)
	return c
}

// start sets the segment's origin. The workers and the collector are
// made before it (runSegment) and read it only after it is set: the
// open-loop workers through the chunks the dispatcher sends them, the
// others after the segment's begin channel is closed.
func (c *clock) start(seg *segment, t0 time.Time) {
	c.t0, c.warmEnd = t0, t0.Add(seg.Warmup).UnixNano()
	c.winEnd.Store(noEnd)
	if seg.Duration > 0 {
		c.winEnd.Store(t0.Add(seg.Duration).UnixNano())
	}
}

// stopAt ends the measured window at t if it would end later.
func (c *clock) stopAt(t time.Time) {
	ns := t.UnixNano()
	for {
		cur := c.winEnd.Load()
		if ns >= cur || c.winEnd.CompareAndSwap(cur, ns) {
			return
		}
	}
}

// window says where an op intended at intended and completed at end
// belongs.
func (c *clock) window(intended, end int64) metrics.Window {
	switch {
	case intended < c.warmEnd:
		return metrics.InWarmup
	case end > c.winEnd.Load():
		return metrics.InDrain
	}
	return metrics.InWindow
}

// completedAt notes a measured op's completion for the drain time.
func (c *clock) completedAt(end int64) {
	for {
		cur := c.lastEnd.Load()
		if end <= cur || c.lastEnd.CompareAndSwap(cur, end) {
			return
		}
	}
}

func (r *runner) runSegment(ctx context.Context, seg *segment, sink intervalSink) *segResult {
	ops := seg.Mix.Ops()
	nStripes := seg.Concurrency
	if nStripes > 8 {
		nStripes = 8
	}
	stripes := make([]*metrics.Recorder, nStripes)
	for i := range stripes {
		if seg.Warmup > 0 {
			stripes[i] = metrics.NewWarmupRecorder(ops)
		} else {
			stripes[i] = metrics.NewRecorder(ops)
		}
	}
	res := &segResult{Total: metrics.NewSet(ops)}
	// Everything the segment needs is made before its origin t0 and its
	// goroutines started: on one core (GOMAXPROCS=1) the setup, and a
	// collection its allocations start, would otherwise run after t0
	// and delay the first ops by all of it (~2-3 ms for 64 workers).
	clk := &clock{}
	var t0 time.Time
	// begin is closed once t0 is set: the closed-loop workers and the
	// collector wait for it. The open-loop workers wait for chunks.
	begin := make(chan struct{})

	chunkMax := 1
	batcher, _ := r.target.(targets.Batcher)
	var batchable [scenarios.NumOps]bool
	if batcher != nil && batcher.MaxBatch() > 1 {
		chunkMax = batcher.MaxBatch()
		for _, op := range ops {
			batchable[op] = batcher.Batchable(op)
		}
	} else {
		batcher = nil
	}

	stop := make(chan struct{})
	var stopOnce sync.Once
	halt := func() { stopOnce.Do(func() { close(stop) }) }
	// In-flight ops finish after a cancel (up to the drain deadline,
	// waitWorkers), so the run's own context does not reach them.
	opCtx, cancelOps := context.WithCancelCause(context.WithoutCancel(ctx))
	defer cancelOps(nil)

	var work chan chunk
	var next atomic.Uint64 // closed loop: next index to claim
	var scheduled atomic.Uint64
	if seg.Rate > 0 {
		capacity := seg.Concurrency * 4
		if capacity < 1024 {
			capacity = 1024
		}
		work = make(chan chunk, capacity)
	}

	var wg sync.WaitGroup
	workers := make([]*worker, seg.Concurrency)
	for w := range workers {
		workers[w] = r.newWorker(seg, w, stripes[w%nStripes], batcher, chunkMax, clk)
	}
	for w := 0; w < seg.Concurrency; w++ {
		wg.Add(1)
		go func(wk *worker) {
			defer func() {
				// An abandoned worker's Done was taken by waitWorkers.
				if wk.state.Load() != workerAbandoned {
					wg.Done()
				}
			}()
			if work != nil {
				for c := range work {
					if !wk.runChunk(opCtx, c) {
						return
					}
				}
				return
			}
			<-begin
			for {
				select {
				case <-stop:
					return
				default:
				}
				i := next.Add(1) - 1
				if seg.Limit > 0 && i >= seg.Limit {
					halt()
					return
				}
				if seg.Duration > 0 && r.time.since(t0) >= seg.Duration {
					halt()
					return
				}
				scheduled.Add(1)
				if !wk.runClosed(opCtx, i) {
					return
				}
			}
		}(workers[w])
	}

	// Collector: merge stripes each interval, feed the sink.
	collectDone := make(chan struct{})
	var collectWG sync.WaitGroup
	collectWG.Add(1)
	var warm *metrics.Set
	if seg.Warmup > 0 {
		warm = metrics.NewWindowSet(ops)
	}
	// Two windows in turn: the sink (the exporter) keeps the last one
	// it was given until the next interval, so the one before it is
	// free to reuse instead of allocating ~190 KB per histogram each
	// interval.
	windows := [2]*metrics.Set{metrics.NewWindowSet(ops), metrics.NewWindowSet(ops)}
	// The work is cut into slices so the pacer runs in between
	// (pause.go); each step below costs the buckets in use this
	// interval, not the histograms' range (metrics/window.go).
	p := r.newPauser()
	go func() {
		defer collectWG.Done()
		<-begin
		last := t0
		var lastCompleted int64
		// A ticked segment's collector runs half a tick after its
		// interval ends: the interval is a whole number of ticks, and
		// at a tick's start the pacer is due to send the whole tick.
		if seg.Tick > 0 {
			off := time.NewTimer(seg.Tick / 2)
			select {
			case <-off.C:
			case <-collectDone:
				off.Stop()
			}
		}
		tick := time.NewTicker(r.opts.Interval)
		defer tick.Stop()
		n := 0
		pause := p.pause
		// An interval ends when its stripes have been drained, not when
		// the ticker fired: on a busy host the collector can run late,
		// and ops completed in between are in this interval's window, so
		// its end must not precede them (latency.hlog, counts.csv).
		flush := func() {
			p.begin()
			window := windows[n&1]
			n++
			window.Reset()
			for _, s := range stripes {
				s.DrainSplit(window, warm)
				pause()
			}
			now := r.time.now()
			// Only measured ops reach the segment's figures; the
			// interval's window (progress, Prometheus, latency.hlog)
			// shows the warmup's ops too.
			res.Total.MergePaused(window, pause)
			if warm != nil && !warm.Empty() {
				window.Merge(warm)
				warm.Reset()
			}
			window.Sync(pause)
			c := clk.completed.Load()
			sink.onInterval(seg, last, now, now.Sub(t0), window, c-lastCompleted, c, pause)
			lastCompleted = c
			last = now
		}
		for {
			select {
			case <-tick.C:
				flush()
			case <-collectDone:
				flush()
				return
			}
		}
	}()

	// The goroutines just started run up to their first wait now, not
	// on the schedule's time.
	runtime.Gosched()
	res.Start = r.time.now()
	t0 = res.Start
	clk.start(seg, t0)
	close(begin)
	r.opts.Control.setCurrent(currentName(seg), seg.Rate)
	if work != nil {
		d := dispatcher{time: r.time, ctl: r.opts.Control, exporter: r.opts.Exporter}
		res.Retimed = d.run(ctx, seg, clk, work, chunkMax, &batchable, stripes, &scheduled)
		close(work)
	} else {
		select {
		case <-stop:
		case <-ctx.Done():
			clk.stopAt(r.time.now())
			halt()
		}
	}
	r.opts.Control.setCurrent("", 0)
	drain := r.opts.drainDeadline
	if drain <= 0 {
		drain = DrainDeadline
	}
	r.waitWorkers(ctx, &wg, workers, work, cancelOps, drain)
	res.End = r.time.now()
	if seg.Limit > 0 && scheduled.Load() >= seg.Limit {
		// The count ended it before its duration: the window is the run
		// of the count, not the whole duration.
		clk.stopAt(res.End)
		res.CountEnded = true
	}
	close(collectDone)
	collectWG.Wait()
	if r.opts.Progress != nil {
		r.progress.end(r.opts.Progress)
	}
	total := scheduled.Load()
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
	res.Elapsed = time.Duration(winEnd - clk.warmEnd)
	if res.Elapsed < 0 {
		res.Elapsed = 0
	}
	if last := clk.lastEnd.Load(); last > winEnd {
		res.Drain = time.Duration(last - winEnd)
	}
	res.WarmTail = clk.warmTail.Load()
	res.WarmTailErrors = clk.warmErrs.Load()
	res.MaxLag = time.Duration(res.Total.Lag.Max())
	res.Canceled = ctx.Err() != nil
	return res
}

// dispatcher is what the open-loop dispatch needs beyond its segment:
// the run's clock and pacer, the live rate control and the exporter.
type dispatcher struct {
	time     timeSource
	ctl      *Control          // live rate changes; nil = none
	exporter *metrics.Exporter // nil = none
}

// run runs the open-loop schedule, sleeping with a pacerSleeper. It never
// waits for a worker: when the queue is full the ops stay due (late) and
// are sent as soon as there is room, or counted dropped past max_lag.
//
// The schedule is absolute from t0 (plus the shard's offset, so the
// shards of one run interleave). When Options.Control changes the rate,
// a new epoch starts at that moment: ops already sent stay counted, the
// next op is due at once and later ones follow at the new rate; a
// segment bounded by duration still ends at t0+duration. Consecutive
// ops the target batches go to one worker as one chunk (up to
// chunkMax); any other op is a chunk of its own. It reports whether the
// rate was changed.
func (d dispatcher) run(ctx context.Context, seg *segment, clk *clock, work chan chunk, chunkMax int, batchable *[scenarios.NumOps]bool, stripes []*metrics.Recorder, scheduled *atomic.Uint64) (retimed bool) {
	pacer := d.time.pacer()
	defer pacer.close()
	t0 := clk.t0
	ctl := d.ctl
	gen := ctl.generation()
	longest := pollCap
	if w, ok := pacer.(wakeable); ok {
		defer wakeOn(ctx, ctl, gen, w)()
		longest = wakeCap
	}
	ep := &epoch{t0: t0.Add(seg.Offset), sched: seg.pacing()}
	limitFor := func(ep *epoch) uint64 {
		limit := seg.Limit
		if seg.Duration > 0 {
			left := seg.Duration - ep.t0.Sub(t0)
			if n := ep.base + ep.sched.Total(left); limit == 0 || n < limit {
				limit = n
			}
		}
		return limit
	}
	limit := limitFor(ep)
	warmEnd := time.Unix(0, clk.warmEnd)
	var sent, warm uint64
	// warmBound is the first index of the current epoch intended at or
	// after the warmup's end (the warmup is a prefix of the schedule);
	// ok is false when no index of this epoch is in the warmup.
	warmBound := func() (bound uint64, ok bool) {
		if seg.Warmup <= 0 || !warmEnd.After(ep.t0) {
			return ep.base, false
		}
		// By intended start, as the workers count (Due of the
		// instant before the warmup's end): for a ticked schedule
		// that is not Total, which cuts the last tick.
		return ep.base + ep.sched.Due(warmEnd.Sub(ep.t0)-1), true
	}
	// countWarm advances warm to the indices sent so far that belong to
	// the warmup.
	countWarm := func() {
		if b, ok := warmBound(); ok {
			warm = max(warm, min(b, sent))
		}
	}
	for {
		if ctx.Err() != nil {
			clk.stopAt(d.time.now())
			break
		}
		if g := ctl.generation(); g != gen {
			gen = g
			if rate := ctl.requested(); rate > 0 {
				ep = &epoch{t0: d.time.now(), base: sent, sched: seg.atRate(rate)}
				limit = limitFor(ep)
				retimed = true
				ctl.setCurrent(currentName(seg), rate)
				ctl.applied(seg.Phase, seg.Stage, rate, ep.t0)
				if d.exporter != nil {
					d.exporter.RateChanged(seg.Phase)
				}
			}
			continue
		}
		if sent >= limit {
			// The schedule has no op left. A count (requests:) ends the
			// segment; a duration does not end before its time: at a
			// rate whose next op falls after the end, or a live rate
			// that low, the segment waits out its duration (a rate
			// change may still come) and is judged over all of it.
			left := seg.Duration - d.time.since(t0)
			if seg.Duration <= 0 || (seg.Limit > 0 && sent >= seg.Limit) || left <= 0 {
				break
			}
			pacer.sleep(min(left, max(longest, seg.Tick)))
			continue
		}
		el := d.time.since(ep.t0)
		due := ep.base + ep.sched.Due(el)
		if due > limit {
			due = limit
		}
		// Ops later than max_lag are dropped here, counted per op kind.
		if seg.MaxLag > 0 && el > seg.MaxLag {
			tooLate := ep.base + ep.sched.Due(el-seg.MaxLag-1)
			if tooLate > due {
				tooLate = due
			}
			if tooLate > sent {
				now := d.time.now()
				// The warmup's share of them, then the measured rest.
				b, _ := warmBound()
				split := min(max(b, sent), tooLate)
				seg.countDrops(stripes[0], metrics.InWarmup, sent, split, now.Sub(ep.intended(sent)))
				seg.countDrops(stripes[0], metrics.InWindow, split, tooLate, now.Sub(ep.intended(split)))
				sent = tooLate
				countWarm()
			}
		}
		full := false
		for sent < due {
			n := due - sent
			if n > uint64(chunkMax) {
				n = uint64(chunkMax)
			}
			if n > 1 {
				n = seg.batchRun(batchable, sent, n)
			}
			select {
			case work <- chunk{first: sent, n: uint32(n), ep: ep}:
				sent += n
			default:
				full = true
			}
			if full {
				break
			}
		}
		countWarm()
		scheduled.Store(sent)
		if sent >= limit {
			continue
		}
		wait, _ := ep.sched.Pace(d.time.since(ep.t0), sent-ep.base, limit-ep.base)
		if full || wait < minSleep {
			wait = minSleep
		}
		if most := max(longest, seg.Tick); wait > most {
			// Look at the context and the control often enough that a
			// stop or a rate change at a low rate takes effect promptly
			// (pollCap) when nothing wakes the pacer for them, or once a
			// tick when ticks are longer (a wake between two ticks would
			// cost as much as the tick's own).
			wait = most
		}
		pacer.sleep(wait)
	}
	// Scheduled counts everything the schedule called for, dropped included.
	scheduled.Store(sent)
	clk.warmSched.Store(warm)
	return retimed
}

// wakeOn wakes the pacer when ctx ends or ctl's rate changes after
// generation gen, until the returned stop is called; stop waits for it
// to end, so the pacer can be closed after it.
func wakeOn(ctx context.Context, ctl *Control, gen uint64, w wakeable) (stop func()) {
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			// The channel before the generation: a change after the
			// comparison closes it (Control.changed).
			ch := ctl.changed()
			if g := ctl.generation(); g != gen {
				gen = g
				w.wake()
				continue
			}
			select {
			case <-ctx.Done():
				w.wake()
				return
			case <-ch:
			case <-quit:
				return
			}
		}
	}()
	return func() { close(quit); <-done }
}

// pacing is seg's open-loop schedule: its capture's for a replay, else
// its fixed rate.
func (seg *segment) pacing() pacing {
	if seg.Replay != nil {
		return seg.Replay.sched
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

// batchRun returns how many of the n ops from index first go to the
// store as one batch: the run of consecutive ops the target batches,
// or 1 when the first is one it does not.
func (seg *segment) batchRun(batchable *[scenarios.NumOps]bool, first, n uint64) uint64 {
	if !batchable[seg.opFor(first)] {
		return 1
	}
	k := uint64(1)
	for k < n && batchable[seg.opFor(first+k)] {
		k++
	}
	return k
}

// exactDrops is the largest run of dropped indices whose op kinds are
// counted one by one; longer runs are split by the mix's weights, so an
// overloaded pacer never walks a huge backlog index by index.
const exactDrops = 4096

// countDrops counts schedule indices [from, to) of seg as dropped in
// window w of rec, per op kind, with lag how late the first was.
func (seg *segment) countDrops(rec *metrics.Recorder, w metrics.Window, from, to uint64, lag time.Duration) {
	if to <= from {
		return
	}
	var n [scenarios.NumOps]int64
	if to-from <= exactDrops {
		for i := from; i < to; i++ {
			n[seg.opFor(i)]++
		}
	} else {
		seg.Mix.Split(int64(to-from), &n)
	}
	for op, k := range n {
		if k > 0 {
			rec.DropIn(w, scenarios.Op(op), k, int64(lag))
		}
	}
}

func currentName(seg *segment) string {
	if seg.Stage != "" {
		return seg.Phase + "/" + seg.Stage
	}
	return seg.Phase
}

// opFor returns the op kind of schedule index i: a pure function of the
// index, so the dispatcher (counting drops) and a worker agree.
func (seg *segment) opFor(i uint64) scenarios.Op {
	if seg.Replay != nil {
		return seg.Replay.op(i)
	}
	return seg.Mix.Pick(scenarios.Mix64(seg.Seed ^ i))
}

// cmpOr returns v, or def when v is nil.
func cmpOr[T any](v, def *T) *T {
	if v != nil {
		return v
	}
	return def
}

// worker owns its generators and request buffers.
type worker struct {
	r         *runner
	seg       *segment
	rec       *metrics.Recorder
	rng       *rand.Rand
	chooser   scenarios.Chooser
	values    *scenarios.Values
	batcher   targets.Batcher
	reqs      []targets.Request
	reqPtrs   []*targets.Request
	errs      []error
	intended  []time.Time
	fields    [][]targets.Field
	fieldName []string
	clk       *clock
	classIdx  map[string]uint8
	okClass   uint8             // classIdx[ClassOK], read once: most ops succeed
	render    *datagen.Renderer // custom ops; nil when the scenario has none
	replay    *capture.Reader   // replay phases: reads ops back from the capture
	// state says who owns the requests in flight (interrupt.go);
	// inflight and sendAt describe them for waitWorkers.
	state    atomic.Int32
	inflight int
	sendAt   time.Time
}

func (r *runner) newWorker(seg *segment, w int, rec *metrics.Recorder, b targets.Batcher, chunkMax int, clk *clock) *worker {
	rng := rand.New(rand.NewPCG(seg.Seed, uint64(w)+1))
	ch := r.choosers()
	wk := &worker{
		r: r, seg: seg, rec: rec, rng: rng, chooser: ch,
		values:    cmpOr(seg.Values, r.plan.values),
		batcher:   b,
		reqs:      make([]targets.Request, chunkMax),
		reqPtrs:   make([]*targets.Request, chunkMax),
		errs:      make([]error, chunkMax),
		intended:  make([]time.Time, chunkMax),
		fields:    make([][]targets.Field, chunkMax),
		fieldName: make([]string, r.plan.sc.Record.Fields),
		clk:       clk,
		classIdx:  r.plan.classIdx,
		okClass:   r.plan.classIdx[targets.ClassOK],
	}
	if r.plan.custom != nil {
		wk.render = datagen.NewRenderer(r.plan.custom)
	}
	for i := range wk.fieldName {
		wk.fieldName[i] = scenarios.FieldName(i)
	}
	for i := range wk.reqs {
		wk.reqPtrs[i] = &wk.reqs[i]
		wk.fields[i] = make([]targets.Field, r.plan.sc.Record.Fields)
	}
	return wk
}

// fill prepares request slot j for schedule index i.
func (w *worker) fill(j int, i uint64) scenarios.Op {
	seg, sc := w.seg, w.r.plan.sc
	if seg.Replay != nil {
		return w.fillReplay(&w.reqs[j], i)
	}
	op := seg.opFor(i)
	req := &w.reqs[j]
	req.Op = op
	var keyNum int64
	switch {
	case seg.Sequential:
		keyNum = seg.KeyBase + int64(i)
	case op == scenarios.OpInsert:
		keyNum = w.r.nextInsertKey()
	default:
		keyNum = w.chooser.Next(w.rng)
	}
	req.KeyNum = keyNum
	if k, ok := w.r.corpusKey(req.Key[:0], keyNum); ok {
		req.Key = k
	} else {
		req.Key = scenarios.AppendKey(req.Key[:0], sc.Keyspace.Prefix, keyNum, sc.Keyspace.Ordered)
	}
	if op.IsCustom() {
		w.fillCustom(req, i)
		return op
	}
	fs := w.fields[j]
	switch op {
	case scenarios.OpInsert, scenarios.OpSet, scenarios.OpHSet, scenarios.OpMSet, scenarios.OpLPush, scenarios.OpRPush:
		n := len(fs)
		if op != scenarios.OpInsert && op != scenarios.OpHSet {
			n = 1
		}
		for k := 0; k < n; k++ {
			fs[k] = targets.Field{Name: w.fieldName[k], Value: w.values.Next(w.rng)}
		}
		req.Fields = fs[:n]
	case scenarios.OpUpdate, scenarios.OpRMW:
		k := w.rng.IntN(len(fs))
		fs[0] = targets.Field{Name: w.fieldName[k], Value: w.values.Next(w.rng)}
		req.Fields = fs[:1]
	default:
		req.Fields = nil
	}
	req.Query = ""
	if op == scenarios.OpSearch {
		req.Query = scenarios.SearchQuery(keyNum) // words of record keyNum's document
	}
	req.ScanLen = sc.Keyspace.ScanLength
	req.PageSize = 10
	req.Page = int(w.rng.IntN(5))
	if w.r.plan.corpus.c != nil {
		w.fillCorpus(req, i)
	}
	return op
}

func (w *worker) class(err error) uint8 {
	if err == nil {
		return w.okClass
	}
	return w.classIdx[targets.Classify(w.r.target, err)]
}

// runChunk runs schedule indices [c.first, c.first+c.n) of an open-loop
// segment, as one batch where the target batches.
func (w *worker) runChunk(ctx context.Context, c chunk) bool {
	if w.state.Load() == workerStopped {
		interruptChunk(w, c, time.Now())
		return true
	}
	n := 0
	now := time.Now()
	for k := uint32(0); k < c.n; k++ {
		i := c.first + uint64(k)
		intended := c.ep.intended(i)
		if lag := now.Sub(intended); w.seg.MaxLag > 0 && lag > w.seg.MaxLag {
			win := metrics.InWindow
			if intended.UnixNano() < w.clk.warmEnd {
				win = metrics.InWarmup
			}
			w.rec.DropIn(win, w.seg.opFor(i), 1, int64(lag))
			continue
		}
		w.fill(n, i)
		w.intended[n] = intended
		n++
	}
	if n == 0 {
		return true
	}
	return w.send(ctx, n)
}

// runClosed runs index i as soon as the worker is free (closed loop):
// the intended start is the actual start.
func (w *worker) runClosed(ctx context.Context, i uint64) bool {
	w.fill(0, i)
	w.intended[0] = time.Now()
	if w.intended[0].UnixNano() < w.clk.warmEnd {
		w.clk.warmSched.Add(1)
	}
	return w.send(ctx, 1)
}

// send runs the n filled requests, as one batch when there are several
// (dispatch only groups ops the target batches), and records each at
// its own completion time.
func (w *worker) send(ctx context.Context, n int) bool {
	sendAt := time.Now()
	w.inflight, w.sendAt = n, sendAt
	if !w.claim() {
		// Stopped at the drain deadline while idle.
		w.interrupt(n, false, sendAt)
		return true
	}
	var batchEnd time.Time
	if n > 1 && w.batcher != nil {
		w.batcher.DoBatch(ctx, w.reqPtrs[:n], w.errs[:n])
		batchEnd = time.Now()
	} else {
		for j := 0; j < n; j++ {
			w.errs[j] = w.r.target.Do(ctx, &w.reqs[j])
			w.reqs[j].End = time.Now()
		}
	}
	if !w.release() {
		// Abandoned at the drain deadline: counted as interrupted.
		return false
	}
	clk := w.clk
	for j := 0; j < n; j++ {
		req := &w.reqs[j]
		end := req.End
		if end.IsZero() || (!batchEnd.IsZero() && end.After(batchEnd)) {
			end = batchEnd
		}
		req.End = time.Time{}
		lat := end.Sub(w.intended[j])
		svc := end.Sub(sendAt)
		lag := sendAt.Sub(w.intended[j])
		endNs := end.UnixNano()
		win := clk.window(w.intended[j].UnixNano(), endNs)
		if win != metrics.InWarmup {
			clk.completedAt(endNs)
		} else if endNs > clk.warmEnd && endNs <= clk.winEnd.Load() {
			clk.warmTail.Add(1)
			if w.errs[j] != nil && targets.IsError(targets.Classify(w.r.target, w.errs[j])) {
				clk.warmErrs.Add(1)
			}
		}
		w.rec.RecordIn(win, req.Op, int64(lat), int64(svc), int64(lag), w.class(w.errs[j]))
		w.errs[j] = nil
	}
	clk.completed.Add(int64(n))
	return true
}
