package redis

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// testBarrier has n goroutines, each with its own connection, arrive at
// one barrier at staggered times: none may return before the last has
// arrived.
func testBarrier(t *testing.T, open func() targets.Barrier, key string) {
	t.Helper()
	const n = 4
	ctx := ctxT(t)
	var arrivedAll atomic.Int64 // UnixNano of the last arrival
	var wg sync.WaitGroup
	errs := make(chan error, n)
	returned := make([]time.Time, n)
	for i := 0; i < n; i++ {
		b := open()
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(time.Duration(i) * 150 * time.Millisecond)
			if i == n-1 {
				arrivedAll.Store(time.Now().UnixNano())
			}
			err := targets.WaitBarrier(ctx, b, key, targets.BarrierWait{N: n, Timeout: 10 * time.Second})
			returned[i] = time.Now()
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	last := time.Unix(0, arrivedAll.Load())
	for i, r := range returned {
		if r.Before(last) {
			t.Fatalf("shard %d returned %s before the last shard arrived", i, last.Sub(r))
		}
	}
}

func TestBarrier(t *testing.T) {
	s := startRedis(t)
	key := fmt.Sprintf("soakd:barrier:test-%d:s:0", time.Now().UnixNano())
	testBarrier(t, func() targets.Barrier { return openURL(t, s) }, key)

	// The counter expires, and says 4.
	rc := rawClient(t, s)
	ctx := ctxT(t)
	if ttl := rc.TTL(ctx, key).Val(); ttl <= 23*time.Hour || ttl > targets.BarrierTTL {
		t.Fatalf("barrier key TTL %s, want about %s", ttl, targets.BarrierTTL)
	}
	tg := openURL(t, s)
	if n, err := tg.Arrived(ctx, key); n != 4 || err != nil {
		t.Fatalf("Arrived = %d, %v", n, err)
	}
	if n, err := tg.Arrived(ctx, key+":none"); n != 0 || err != nil {
		t.Fatalf("Arrived on an absent key = %d, %v", n, err)
	}
	// Arriving again at a full barrier (a reused run id) is an error.
	err := targets.WaitBarrier(ctx, tg, key, targets.BarrierWait{N: 4, Timeout: time.Second})
	if err == nil || !strings.Contains(err.Error(), "more than the 4 shards") {
		t.Fatalf("reused barrier: %v", err)
	}
}

// TestBarrierTimeout: with N-1 of N shards arriving, every wait ends at
// the timeout with an error that says how many arrived.
func TestBarrierTimeout(t *testing.T) {
	s := startRedis(t)
	key := fmt.Sprintf("soakd:barrier:test-%d:s:1", time.Now().UnixNano())
	ctx := ctxT(t)
	var wg sync.WaitGroup
	errs := make([]error, 2)
	took := make([]time.Duration, 2)
	for i := range errs {
		tg := openURL(t, s)
		wg.Add(1)
		go func() {
			defer wg.Done()
			t0 := time.Now()
			errs[i] = targets.WaitBarrier(ctx, tg, key, targets.BarrierWait{N: 3, Timeout: 400 * time.Millisecond})
			took[i] = time.Since(t0)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if !errors.Is(err, targets.ErrBarrierTimeout) || !strings.Contains(err.Error(), "2 of 3 shards arrived") {
			t.Fatalf("waiter %d: %v", i, err)
		}
		if took[i] < 400*time.Millisecond || took[i] > 3*time.Second {
			t.Fatalf("waiter %d gave up after %s, want 400ms", i, took[i])
		}
	}

	// A cancelled ctx ends the wait promptly with ctx's error.
	cctx, cancel := context.WithCancel(ctx)
	time.AfterFunc(100*time.Millisecond, cancel)
	t0 := time.Now()
	err := targets.WaitBarrier(cctx, openURL(t, s), key+":cancel", targets.BarrierWait{N: 3, Timeout: time.Minute})
	if !errors.Is(err, context.Canceled) || time.Since(t0) > 2*time.Second {
		t.Fatalf("cancelled wait: %v after %s", err, time.Since(t0))
	}
}

func TestBarrierCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a 3-node cluster")
	}
	nodes := startCluster(t)
	addrs := []string{nodes[0].Addr(), nodes[1].Addr(), nodes[2].Addr()}
	open := func() targets.Barrier {
		return openTarget(t, scenarios.Target{Kind: "redis", URL: nodes[0].URL(), Client: scenarios.ClientOptions{Mode: "cluster", Addrs: addrs}}, targets.Options{})
	}
	testBarrier(t, open, fmt.Sprintf("soakd:barrier:cluster-%d:s:0", time.Now().UnixNano()))
}
