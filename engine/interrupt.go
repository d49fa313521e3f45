package engine

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/soakd/soakd/targets"
)

// DrainDeadline bounds how long a cancelled run (SIGINT, the daemon's
// /stop or SIGTERM) waits for the ops it has in flight. A store that
// accepts and never answers, with a long read timeout, would otherwise
// hold the stop until the timeout (or forever). Past the deadline the
// ops still in flight, and the ones queued but not sent, are counted in
// the outcome class "interrupted" (an error, never a success) and the
// results are written; the stuck calls end when the target is closed.
const DrainDeadline = 5 * time.Second

// errDrainDeadline cancels the ops' context at the drain deadline.
var errDrainDeadline = errors.New("stopped: in-flight ops passed the drain deadline")

// Worker states (worker.state). A worker claims a send (idle -> sending)
// and releases it after (sending -> idle); at the drain deadline the
// segment marks every worker stopped (idle) or abandoned (sending).
// Whoever wins the compare-and-swap owns the in-flight ops: the worker
// records them, or the segment counts them interrupted, never both.
const (
	workerIdle int32 = iota
	workerSending
	workerStopped   // stopped while idle: it counts whatever it is handed as interrupted, then exits
	workerAbandoned // stopped in a send: the segment counted it, and it exits without a word
)

// claim marks the worker sending its filled requests; false when the
// segment has stopped it.
func (w *worker) claim() bool { return w.state.CompareAndSwap(workerIdle, workerSending) }

// release marks the send done; false when the segment abandoned it in
// the meantime (its ops are counted as interrupted already).
func (w *worker) release() bool { return w.state.CompareAndSwap(workerSending, workerIdle) }

// interrupt counts the worker's n filled requests as interrupted at now:
// latency from the intended start to now (a lower bound), lag to the
// send (sent) or to now (never sent).
func (w *worker) interrupt(n int, sent bool, now time.Time) {
	class := w.classIdx[targets.ClassInterrupted]
	for j := 0; j < n; j++ {
		intended := w.intended[j]
		sendAt := now
		if sent {
			sendAt = w.sendAt
		}
		win := w.clk.window(intended.UnixNano(), now.UnixNano())
		w.rec.RecordIn(win, w.reqs[j].Op, int64(now.Sub(intended)), int64(now.Sub(sendAt)), int64(sendAt.Sub(intended)), class)
	}
}

// waitWorkers waits for the segment's workers to finish. When ctx ends
// first, it waits at most drain more; then it stops every worker,
// counts the ops in flight and the chunks still queued in work as
// interrupted, cancels the ops' context and returns once the workers
// that are not stuck in a call have exited. work must be closed (or
// nil) before the deadline can pass.
func (r *runner) waitWorkers(ctx context.Context, wg *sync.WaitGroup, workers []*worker, work chan chunk, cancelOps context.CancelCauseFunc, drain time.Duration) {
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return
	case <-ctx.Done():
	}
	t := time.NewTimer(drain)
	defer t.Stop()
	select {
	case <-done:
		return
	case <-t.C:
	}
	now := r.time.now()
	stuck := 0
	for _, w := range workers {
		if w.state.CompareAndSwap(workerIdle, workerStopped) {
			continue
		}
		if w.state.CompareAndSwap(workerSending, workerAbandoned) {
			w.interrupt(w.inflight, true, now)
			stuck++
		}
	}
	// The abandoned workers never call Done.
	wg.Add(-stuck)
	cancelOps(errDrainDeadline)
	if work != nil && len(workers) > 0 {
		// Queued, never sent: counted on the first worker's stripe.
		for c := range work {
			interruptChunk(workers[0], c, now)
		}
	}
	<-done
}

// interruptChunk counts the ops of chunk c as interrupted (queued when
// the run stopped, never sent). Called with the worker stopped: only
// its intended times are used.
func interruptChunk(w *worker, c chunk, now time.Time) {
	class := w.classIdx[targets.ClassInterrupted]
	for k := uint32(0); k < c.n; k++ {
		i := c.first + uint64(k)
		intended := c.ep.intended(i)
		lag := now.Sub(intended)
		win := w.clk.window(intended.UnixNano(), now.UnixNano())
		w.rec.RecordIn(win, w.seg.opFor(i), int64(lag), 0, int64(lag), class)
	}
}
