package testutil

import (
	"context"
	"sync"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// Sent is what a Recorder saw of one request.
type Sent struct {
	Op     scenarios.Op
	KeyNum int64
	Query  string
}

// Recorder is a target for engine.Run that records every request the
// engine sends and passes it on to Inner (a real adapter), or succeeds
// when Inner is nil. It batches when Inner does, or, with no Inner, in
// batches of up to 16, so both engine paths are seen.
type Recorder struct {
	Inner targets.Target
	mu    sync.Mutex
	sent  []Sent
}

var (
	_ targets.Target   = (*Recorder)(nil)
	_ targets.Batcher  = (*Recorder)(nil)
	_ targets.Preparer = (*Recorder)(nil)
)

func (r *Recorder) record(q *targets.Request) {
	r.mu.Lock()
	r.sent = append(r.sent, Sent{Op: q.Op, KeyNum: q.KeyNum, Query: q.Query})
	r.mu.Unlock()
}

// Sent returns the requests seen so far, in the order they arrived.
func (r *Recorder) Sent() []Sent {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Sent(nil), r.sent...)
}

// Do records q and runs it on Inner.
func (r *Recorder) Do(ctx context.Context, q *targets.Request) error {
	r.record(q)
	if r.Inner == nil {
		return nil
	}
	return r.Inner.Do(ctx, q)
}

// MaxBatch is Inner's, or 16 without an Inner that batches.
func (r *Recorder) MaxBatch() int {
	if b, ok := r.Inner.(targets.Batcher); ok {
		return b.MaxBatch()
	}
	return 16
}

// Batchable is Inner's, or every op without an Inner that batches.
func (r *Recorder) Batchable(op scenarios.Op) bool {
	if b, ok := r.Inner.(targets.Batcher); ok {
		return b.Batchable(op)
	}
	return true
}

// DoBatch records reqs and runs them on Inner, as a batch if it batches.
func (r *Recorder) DoBatch(ctx context.Context, reqs []*targets.Request, errs []error) {
	for _, q := range reqs {
		r.record(q)
	}
	if b, ok := r.Inner.(targets.Batcher); ok {
		b.DoBatch(ctx, reqs, errs)
		return
	}
	for i, q := range reqs {
		errs[i] = nil
		if r.Inner != nil {
			errs[i] = r.Inner.Do(ctx, q)
		}
	}
}

// Prepare runs Inner's Prepare where it has one.
func (r *Recorder) Prepare(ctx context.Context, sc *scenarios.Scenario) error {
	if p, ok := r.Inner.(targets.Preparer); ok {
		return p.Prepare(ctx, sc)
	}
	return nil
}

// Close closes Inner.
func (r *Recorder) Close() error {
	if r.Inner == nil {
		return nil
	}
	return r.Inner.Close()
}

// Searches returns the search requests among sent.
func Searches(sent []Sent) []Sent {
	var out []Sent
	for _, s := range sent {
		if s.Op == scenarios.OpSearch {
			out = append(out, s)
		}
	}
	return out
}
