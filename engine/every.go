package engine

import (
	"context"
	"time"
)

// everyInterval runs f at once and then every d in a goroutine of its
// own, until the returned stop is called (or ctx ends); stop waits for
// f's last call to return. f gets a context that ends with the loop.
// The run's background samplers (server stats, soakd's own health)
// run on it.
func everyInterval(ctx context.Context, d time.Duration, f func(ctx context.Context)) (stop func()) {
	lctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(d)
		defer t.Stop()
		for {
			f(lctx)
			select {
			case <-lctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return func() {
		cancel()
		<-done
	}
}
