package testutil

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/soakd/soakd/targets"
)

// StaggeredBarrier has n shards arrive at one barrier key step apart,
// each through its own targets.Barrier from open, and fails t unless every
// wait succeeds and none returns before the last shard has arrived.
func StaggeredBarrier(t testing.TB, ctx context.Context, open func() targets.Barrier, key string, n int, step, timeout time.Duration) {
	t.Helper()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var lastArrival time.Time
	returned := make([]time.Time, n)
	errs := make([]error, n)
	for i := 0; i < n; i++ {
		b := open()
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(time.Duration(i) * step)
			if i == n-1 {
				mu.Lock()
				lastArrival = time.Now()
				mu.Unlock()
			}
			errs[i] = targets.WaitBarrier(ctx, b, key, targets.BarrierWait{N: n, Timeout: timeout})
			returned[i] = time.Now()
		}()
	}
	wg.Wait()
	for i := range errs {
		if errs[i] != nil {
			t.Fatalf("shard %d: %v", i, errs[i])
		}
		if returned[i].Before(lastArrival) {
			t.Fatalf("shard %d returned %s before the last shard arrived", i, lastArrival.Sub(returned[i]))
		}
	}
}
