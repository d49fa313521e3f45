package engine

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/targets"
)

// worker sends a segment's requests, filled from its own op stream,
// and records each outcome in its stripe.
type worker struct {
	seg      *segment
	src      opStream
	rec      *metrics.Recorder
	target   targets.Target
	batcher  targets.Batcher // nil: one op at a time
	clk      *clock
	classIdx map[string]uint8
	okClass  uint8 // classIdx[ClassOK], read once: most ops succeed
	reqs     []targets.Request
	reqPtrs  []*targets.Request
	errs     []error
	intended []time.Time
	// state says who owns the requests in flight (interrupt.go);
	// inflight and sendAt describe them for waitWorkers.
	state    atomic.Int32
	inflight int
	sendAt   time.Time
	// id is the worker's number in its segment; streams, when the
	// segment is checkpointed, where it publishes its stream's position
	// (streams.go), answered the asks it answered, drew whether it drew
	// from its stream since it last published.
	id       int
	streams  *streamCells
	answered uint64
	drew     bool
}

// crew is what a segment's workers share: its target, the target's
// batching (nil: none) and the most ops a worker sends at once, the
// segment's clock and the run's outcome classes.
type crew struct {
	target   targets.Target
	batcher  targets.Batcher
	slots    int
	clk      *clock
	classIdx map[string]uint8
	// streams are the workers' positions for the checkpoints (nil:
	// none).
	streams *streamCells
}

// newWorker is seg's w-th worker, recording into rec.
func (c *crew) newWorker(seg *segment, w int, rec *metrics.Recorder) *worker {
	wk := &worker{
		seg: seg, src: seg.Source.stream(seg, w, c.slots), rec: rec,
		target: c.target, batcher: c.batcher, clk: c.clk,
		classIdx: c.classIdx, okClass: c.classIdx[targets.ClassOK],
		reqs:     make([]targets.Request, c.slots),
		reqPtrs:  make([]*targets.Request, c.slots),
		errs:     make([]error, c.slots),
		intended: make([]time.Time, c.slots),
		id:       w, streams: c.streams,
	}
	for i := range wk.reqs {
		wk.reqPtrs[i] = &wk.reqs[i]
	}
	return wk
}

func (w *worker) class(err error) uint8 {
	if err == nil {
		return w.okClass
	}
	return w.classIdx[targets.Classify(w.target, err)]
}

// runChunk runs schedule indices [c.first, c.first+c.n) of an open-loop
// segment, as one batch where the target batches.
func (w *worker) runChunk(ctx context.Context, c chunk) bool {
	if w.state.Load() == workerStopped {
		interruptChunk(w, c, time.Now())
		return true
	}
	w.answer()
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
		w.src.fill(n, &w.reqs[n], i)
		w.intended[n] = intended
		n++
	}
	if n == 0 {
		return true
	}
	w.drew = true
	return w.send(ctx, n)
}

// next is the next chunk of an open-loop segment's work (ok false once
// it is closed); a worker about to wait for one publishes its stream's
// position first (streams.go).
func (w *worker) next(work <-chan chunk) (c chunk, ok bool) {
	select {
	case c, ok = <-work:
		return c, ok
	default:
	}
	w.idle()
	c, ok = <-work
	return c, ok
}

// runClosed runs index i as soon as the worker is free (closed loop):
// the intended start is the actual start.
func (w *worker) runClosed(ctx context.Context, i uint64) bool {
	w.answer()
	w.src.fill(0, &w.reqs[0], i)
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
			w.errs[j] = w.target.Do(ctx, &w.reqs[j])
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
			if w.errs[j] != nil && targets.IsError(targets.Classify(w.target, w.errs[j])) {
				clk.warmErrs.Add(1)
			}
		}
		w.rec.RecordIn(win, req.Op, int64(lat), int64(svc), int64(lag), w.class(w.errs[j]))
		w.errs[j] = nil
	}
	clk.completed.Add(int64(n))
	return true
}
