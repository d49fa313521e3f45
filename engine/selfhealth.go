package engine

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/soakd/soakd/internal/selfhealth"
	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/verdict"
)

// selfSource is what samples soakd's own health: a selfhealth.Sampler
// (tests give a fake).
type selfSource interface {
	Sample(now time.Time) (selfhealth.Sample, bool)
	Close()
}

// selfRecorder keeps soakd's own health (internal/selfhealth), sampled
// once an interval in the background and at each stage's end (a stage
// may be shorter than an interval): each sample goes to Prometheus, to
// the run directory's self.csv (rundir.SelfLog) and to the running
// phase's and stage's accumulators, whose records say whether the phase
// was generator- or host-bound (verdict.SelfAcc). Samples between
// phases count for none.
type selfRecorder struct {
	cores int
	exp   *metrics.Exporter
	// srcMu serialises the source's samples (the ticker's, a stage's
	// end) and the log's lines.
	srcMu sync.Mutex
	src   selfSource // nil: not sampled
	log   *os.File   // self.csv; nil when it could not be created
	line  []byte     // the log line being written, reused
	mu    sync.Mutex
	// phase and stage are nil when none is running.
	phase, stage *verdict.SelfAcc
}

// startSelf starts sampling soakd's own health (from the test's source,
// or Options.SelfHealthRoot; none when it is empty or cannot be read)
// and returns its stop.
func (r *runner) startSelf(ctx context.Context, cores int) func() {
	h := &r.self
	h.cores, h.exp = cores, r.opts.Exporter
	h.src = r.opts.selfSource
	if h.src == nil && r.opts.SelfHealthRoot != "" {
		if s, err := selfhealth.Open(r.opts.SelfHealthRoot); err == nil {
			h.src = s
		}
	}
	if h.src == nil {
		return func() {}
	}
	if f, err := os.Create(filepath.Join(r.opts.OutDir, rundir.SelfLog)); err == nil {
		if _, err := f.WriteString(rundir.SelfLogHeader); err == nil {
			h.log, h.line = f, make([]byte, 0, 128)
		} else {
			f.Close()
		}
	}
	stop := everyInterval(ctx, r.opts.Interval, func(context.Context) { h.sample(r.time.now()) })
	return func() {
		stop()
		h.srcMu.Lock()
		h.src.Close()
		h.src = nil
		if h.log != nil {
			h.log.Close()
			h.log = nil
		}
		h.srcMu.Unlock()
	}
}

// sample takes a sample at now and hands it on.
func (h *selfRecorder) sample(now time.Time) {
	h.srcMu.Lock()
	if h.src == nil {
		h.srcMu.Unlock()
		return
	}
	s, ok := h.src.Sample(now)
	if ok && h.log != nil {
		h.line = rundir.AppendSelfLine(h.line[:0], now, s)
		if _, err := h.log.Write(h.line); err != nil {
			h.log.Close() // best effort: the log ends at a failed write
			h.log = nil
		}
	}
	h.srcMu.Unlock()
	if !ok {
		return
	}
	if h.exp != nil {
		h.exp.SetSelfHealth(s)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.phase != nil {
		h.phase.Add(s)
	}
	if h.stage != nil {
		h.stage.Add(s)
	}
}

// beginPhase starts a phase's record; endPhase samples once more (at
// now) and returns it (nil without samples) with lagP99, the phase's
// schedule lag p99, beside it.
func (h *selfRecorder) beginPhase() {
	h.mu.Lock()
	h.phase = verdict.NewSelfAcc(h.cores)
	h.mu.Unlock()
}

func (h *selfRecorder) endPhase(now time.Time, lagP99 float64) *rundir.SelfHealth {
	h.sample(now)
	h.mu.Lock()
	defer h.mu.Unlock()
	rec := h.phase.Health(lagP99)
	h.phase = nil
	return rec
}

// beginStage starts a stage's record; endStage samples once more (at
// now) and returns the stage's samples.
func (h *selfRecorder) beginStage() {
	h.mu.Lock()
	h.stage = verdict.NewSelfAcc(h.cores)
	h.mu.Unlock()
}

func (h *selfRecorder) endStage(now time.Time) *verdict.SelfAcc {
	h.sample(now)
	h.mu.Lock()
	defer h.mu.Unlock()
	acc := h.stage
	h.stage = nil
	return acc
}
