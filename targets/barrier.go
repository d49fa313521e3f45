package targets

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/soakd/soakd/internal/term"
)

// Barrier is implemented by targets that can hold a counter every shard
// of a run sees: the store itself is the meeting point of shards on
// different hosts. A barrier is one counter under key; each shard adds
// one when it arrives and waits until the counter reaches the shard
// count. Keys are unique per run and point (the engine builds them from
// the run id); implementations expire or keep them, never reuse them.
type Barrier interface {
	// Arrive adds this shard to the barrier and returns how many shards
	// (this one included) have arrived so far.
	Arrive(ctx context.Context, key string) (arrived int, err error)
	// Arrived returns how many shards have arrived; 0 when none has.
	Arrived(ctx context.Context, key string) (int, error)
}

// BarrierTTL is how long a store keeps a barrier counter where it can
// expire keys (redis): longer than any wait, short enough to leave no
// litter.
const BarrierTTL = 24 * time.Hour

// DefaultBarrierPoll is how often WaitBarrier polls the counter.
const DefaultBarrierPoll = 25 * time.Millisecond

// ErrBarrierTimeout is wrapped by the error WaitBarrier returns when the
// shards did not all arrive in time.
var ErrBarrierTimeout = errors.New("barrier timed out")

// BarrierWait configures WaitBarrier.
type BarrierWait struct {
	N       int           // shards that must arrive
	Timeout time.Duration // give up after this long (0 = wait for ctx)
	Poll    time.Duration // poll interval (default DefaultBarrierPoll)
	// Report, when set, is called with the arrival count when the wait
	// starts (the shards have not all arrived yet) and then every
	// ReportEvery while it lasts.
	Report      func(arrived int)
	ReportEvery time.Duration
	// Rejoin waits without arriving: this shard arrived before (a
	// resumed run that was killed at the barrier).
	Rejoin bool
	// OnArrive, when set, is called once this shard has arrived (a run
	// notes it in its checkpoint).
	OnArrive func()
}

// WaitBarrier arrives at barrier key and returns once N shards have
// arrived. It returns ctx's error when ctx ends first, and an error
// wrapping ErrBarrierTimeout, with how many of N arrived, after Timeout.
// An arrival beyond N means the key was used before (a reused run id or
// a restarted shard): that is an error, not a pass.
func WaitBarrier(ctx context.Context, b Barrier, key string, w BarrierWait) error {
	if w.Poll <= 0 {
		w.Poll = DefaultBarrierPoll
	}
	start := time.Now()
	wctx := ctx
	if w.Timeout > 0 {
		var cancel context.CancelFunc
		wctx, cancel = context.WithTimeout(ctx, w.Timeout)
		defer cancel()
	}
	var arrived int
	var err error
	if w.Rejoin {
		arrived, err = b.Arrived(wctx, key)
	} else {
		arrived, err = b.Arrive(wctx, key)
		if err == nil && w.OnArrive != nil {
			w.OnArrive()
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if wctx.Err() != nil {
			return fmt.Errorf("%w after %s: arriving: %v", ErrBarrierTimeout, w.Timeout, err)
		}
		return fmt.Errorf("arriving at the barrier: %w", err)
	}
	if arrived > w.N {
		return fmt.Errorf("barrier counter is %d, more than the %d shards: the run id was used before or a shard ran twice (give each run its own --run-id)", arrived, w.N)
	}
	if arrived == w.N {
		return nil
	}
	if w.Report != nil {
		w.Report(arrived)
	}
	lastReport := time.Now()
	var pollErr error // the last failed poll, for the timeout error
	tk := time.NewTicker(w.Poll)
	defer tk.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-wctx.Done():
			err := fmt.Errorf("%w after %s: %d of %d shards arrived", ErrBarrierTimeout, term.Duration(time.Since(start)), arrived, w.N)
			if pollErr != nil {
				err = fmt.Errorf("%w (last poll: %v)", err, pollErr)
			}
			return err
		case <-tk.C:
		}
		n, err := b.Arrived(wctx, key)
		if err != nil {
			// Retried on the next tick: the store may be briefly busy.
			if wctx.Err() == nil {
				pollErr = err
			}
			continue
		}
		if n > arrived {
			arrived = n
		}
		if arrived >= w.N {
			return nil
		}
		if w.Report != nil && w.ReportEvery > 0 && time.Since(lastReport) >= w.ReportEvery {
			w.Report(arrived)
			lastReport = time.Now()
		}
	}
}
