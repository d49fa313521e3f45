package engine

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// segment is one stretch at one rate: a steady phase, a ramp step, a
// load, a growth stage's measurement or a capacity probe.
type segment struct {
	Phase       string
	Stage       string // "" for a phase that is one segment
	StageIndex  int    // 1-based number of Stage; 0 when Stage is ""
	Kind        string
	Rate        float64 // 0 = closed loop
	Duration    time.Duration
	Limit       uint64 // ops to run (load); 0 = by duration
	Mix         *scenarios.Mix
	Concurrency int
	MaxLag      time.Duration
	Warmup      time.Duration
	// Sequential: op i touches record KeyBase+i (load/insert stages).
	Sequential bool
	KeyBase    int64
	Seed       uint64
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
	Total      *metrics.Set
	Scheduled  uint64 // ops the schedule called for
	Completed  int64
	Elapsed    time.Duration // measured part (after warmup)
	Stats      map[string]float64
	MaxLag     time.Duration
	Canceled   bool
	// Retimed: the rate was changed live (Control.SetRate); the target
	// rate reported is then scheduled ops over the schedule's duration.
	Retimed bool
}

// minSleep is the shortest pacer sleep: at high rates the pacer wakes at
// most every 100 us and dispatches everything due in a burst.
const minSleep = 100 * time.Microsecond

// intervalSink receives each interval's merged window.
type intervalSink interface {
	onInterval(seg *segment, from, to time.Time, elapsed time.Duration, window *metrics.Set, completed int64)
}

func (r *runner) runSegment(ctx context.Context, seg *segment, sink intervalSink) *segResult {
	ops := seg.Mix.Ops()
	nStripes := seg.Concurrency
	if nStripes > 8 {
		nStripes = 8
	}
	stripes := make([]*metrics.Recorder, nStripes)
	for i := range stripes {
		stripes[i] = metrics.NewRecorder(ops)
	}
	res := &segResult{Total: metrics.NewSet(ops), Start: time.Now()}
	t0 := res.Start
	var completed atomic.Int64

	chunkMax := 1
	batcher, _ := r.target.(targets.Batcher)
	if batcher != nil && batcher.MaxBatch() > 1 {
		chunkMax = batcher.MaxBatch()
	}

	stop := make(chan struct{})
	var stopOnce sync.Once
	halt := func() { stopOnce.Do(func() { close(stop) }) }
	opCtx := context.WithoutCancel(ctx)

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
	for w := 0; w < seg.Concurrency; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			wk := r.newWorker(seg, w, stripes[w%nStripes], batcher, chunkMax, t0, &completed)
			if work != nil {
				for c := range work {
					wk.runChunk(opCtx, c)
				}
				return
			}
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
				if seg.Duration > 0 && time.Since(t0) >= seg.Duration {
					halt()
					return
				}
				scheduled.Add(1)
				wk.runClosed(opCtx, i)
			}
		}(w)
	}

	// Collector: merge stripes each interval, feed the sink.
	collectDone := make(chan struct{})
	var collectWG sync.WaitGroup
	collectWG.Add(1)
	go func() {
		defer collectWG.Done()
		last := t0
		var lastCompleted int64
		tick := time.NewTicker(r.interval)
		defer tick.Stop()
		flush := func(now time.Time) {
			window := metrics.NewSet(ops)
			for _, s := range stripes {
				s.Drain(window)
			}
			c := completed.Load()
			el := now.Sub(t0)
			if el > seg.Warmup {
				res.Total.Merge(window)
			} else {
				// Inside warmup: keep counting completions for the measured rate base.
				lastCompleted = c
			}
			sink.onInterval(seg, last, now, el, window, c-lastCompleted)
			if el > seg.Warmup {
				lastCompleted = c
			}
			last = now
		}
		for {
			select {
			case now := <-tick.C:
				flush(now)
			case <-collectDone:
				flush(time.Now())
				return
			}
		}
	}()

	r.opts.Control.setCurrent(currentName(seg), seg.Rate)
	if work != nil {
		res.Retimed = r.dispatch(ctx, seg, t0, work, chunkMax, stripes, &scheduled)
		close(work)
	} else {
		select {
		case <-stop:
		case <-ctx.Done():
			halt()
		}
	}
	r.opts.Control.setCurrent("", 0)
	wg.Wait()
	res.End = time.Now()
	close(collectDone)
	collectWG.Wait()
	res.Scheduled = scheduled.Load()
	res.Completed = 0
	for _, os := range res.Total.Ops {
		if os != nil {
			res.Completed += os.Count
		}
	}
	res.Elapsed = res.End.Sub(res.Start) - seg.Warmup
	if seg.Duration > 0 && res.Elapsed > seg.Duration-seg.Warmup && seg.Rate > 0 {
		// The measured window is the schedule's, not the drain after it.
		res.Elapsed = seg.Duration - seg.Warmup
	}
	res.MaxLag = time.Duration(res.Total.Lag.Max())
	res.Canceled = ctx.Err() != nil
	return res
}

// dispatch runs the open-loop schedule on its own OS thread. It never
// waits for a worker: when the queue is full the ops stay due (late) and
// are sent as soon as there is room, or counted dropped past max_lag.
//
// The schedule is absolute from t0. When Options.Control changes the
// rate, a new epoch starts at that moment: ops already sent stay counted,
// the next op is due at once and later ones follow at the new rate; a
// segment bounded by duration still ends at t0+duration. It reports
// whether the rate was changed.
func (r *runner) dispatch(ctx context.Context, seg *segment, t0 time.Time, work chan chunk, chunkMax int, stripes []*metrics.Recorder, scheduled *atomic.Uint64) (retimed bool) {
	release := pacerThread()
	defer release()
	ctl := r.opts.Control
	gen := ctl.generation()
	ep := &epoch{t0: t0, sched: Schedule{Rate: seg.Rate}}
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
	var sent uint64
	for sent < limit {
		if ctx.Err() != nil {
			break
		}
		if g := ctl.generation(); g != gen {
			gen = g
			if rate := ctl.requested(); rate > 0 {
				ep = &epoch{t0: time.Now(), base: sent, sched: Schedule{Rate: rate}}
				limit = limitFor(ep)
				retimed = true
				r.opts.Control.setCurrent(currentName(seg), rate)
			}
			continue
		}
		el := time.Since(ep.t0)
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
			for ; sent < tooLate; sent++ {
				op := r.opFor(seg, sent)
				stripes[int(sent)%len(stripes)].Drop(op, 1, int64(time.Since(ep.intended(sent))))
			}
		}
		full := false
		for sent < due {
			n := due - sent
			if n > uint64(chunkMax) {
				n = uint64(chunkMax)
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
		scheduled.Store(sent)
		if sent >= limit {
			break
		}
		wait, _ := ep.sched.Pace(time.Since(ep.t0), sent-ep.base, limit-ep.base)
		if full || wait < minSleep {
			wait = minSleep
		}
		if ctl != nil && wait > 10*time.Millisecond {
			// Look at the control often enough that a change at a low
			// rate takes effect promptly.
			wait = 10 * time.Millisecond
		}
		preciseSleep(wait)
	}
	// Scheduled counts everything the schedule called for, dropped included.
	scheduled.Store(sent)
	return retimed
}

func currentName(seg *segment) string {
	if seg.Stage != "" {
		return seg.Phase + "/" + seg.Stage
	}
	return seg.Phase
}

// opFor returns the op kind of schedule index i: a pure function of the
// index, so the dispatcher (counting drops) and a worker agree.
func (r *runner) opFor(seg *segment, i uint64) scenarios.Op {
	return seg.Mix.Pick(scenarios.Mix64(seg.Seed ^ i))
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
	t0        time.Time
	completed *atomic.Int64
	classIdx  map[string]uint8
}

func (r *runner) newWorker(seg *segment, w int, rec *metrics.Recorder, b targets.Batcher, chunkMax int, t0 time.Time, completed *atomic.Int64) *worker {
	rng := rand.New(rand.NewPCG(seg.Seed, uint64(w)+1))
	ch := r.choosers()
	wk := &worker{
		r: r, seg: seg, rec: rec, rng: rng, chooser: ch,
		values:    r.values,
		batcher:   b,
		reqs:      make([]targets.Request, chunkMax),
		reqPtrs:   make([]*targets.Request, chunkMax),
		errs:      make([]error, chunkMax),
		intended:  make([]time.Time, chunkMax),
		fields:    make([][]targets.Field, chunkMax),
		fieldName: make([]string, r.sc.Record.Fields),
		t0:        t0,
		completed: completed,
		classIdx:  r.classIdx,
	}
	for i := range wk.fieldName {
		wk.fieldName[i] = scenarios.FieldName(i)
	}
	for i := range wk.reqs {
		wk.reqPtrs[i] = &wk.reqs[i]
		wk.fields[i] = make([]targets.Field, r.sc.Record.Fields)
	}
	return wk
}

// fill prepares request slot j for schedule index i.
func (w *worker) fill(j int, i uint64) scenarios.Op {
	seg, sc := w.seg, w.r.sc
	op := w.r.opFor(seg, i)
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
	req.Key = scenarios.AppendKey(req.Key[:0], sc.Keyspace.Prefix, keyNum, sc.Keyspace.Ordered)
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
	return op
}

func (w *worker) class(err error) uint8 {
	return w.classIdx[targets.Classify(w.r.target, err)]
}

// runChunk runs schedule indices [c.first, c.first+c.n) of an open-loop
// segment, as one batch where the target batches.
func (w *worker) runChunk(ctx context.Context, c chunk) {
	n := 0
	now := time.Now()
	for k := uint32(0); k < c.n; k++ {
		i := c.first + uint64(k)
		intended := c.ep.intended(i)
		if lag := now.Sub(intended); w.seg.MaxLag > 0 && lag > w.seg.MaxLag {
			w.rec.Drop(w.r.opFor(w.seg, i), 1, int64(lag))
			continue
		}
		w.fill(n, i)
		w.intended[n] = intended
		n++
	}
	if n == 0 {
		return
	}
	w.send(ctx, n)
}

// runClosed runs index i as soon as the worker is free (closed loop):
// the intended start is the actual start.
func (w *worker) runClosed(ctx context.Context, i uint64) {
	w.fill(0, i)
	w.intended[0] = time.Now()
	w.send(ctx, 1)
}

func (w *worker) send(ctx context.Context, n int) {
	sendAt := time.Now()
	if n > 1 && w.batcher != nil {
		w.batcher.DoBatch(ctx, w.reqPtrs[:n], w.errs[:n])
	} else {
		for j := 0; j < n; j++ {
			w.errs[j] = w.r.target.Do(ctx, &w.reqs[j])
		}
	}
	end := time.Now()
	for j := 0; j < n; j++ {
		lat := end.Sub(w.intended[j])
		svc := end.Sub(sendAt)
		lag := sendAt.Sub(w.intended[j])
		w.rec.Record(w.reqs[j].Op, int64(lat), int64(svc), int64(lag), w.class(w.errs[j]))
		w.errs[j] = nil
	}
	w.completed.Add(int64(n))
}
