package redis

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/soakd/soakd/internal/testutil"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// testBarrier has 4 shards, each with its own connection, arrive at one
// barrier at staggered times: none may return before the last has
// arrived.
func testBarrier(t *testing.T, open func() targets.Barrier, key string) {
	t.Helper()
	testutil.StaggeredBarrier(t, ctxT(t), open, key, 4, 150*time.Millisecond, 10*time.Second)
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
	// -short is the quick local loop; make test and CI never pass it, so this runs there.
	if testing.Short() {
		t.Skip("starts a 3-node cluster")
	}
	nodes := startCluster(t)
	addrs := []string{nodes[0].Addr(), nodes[1].Addr(), nodes[2].Addr()}
	open := func() targets.Barrier {
		return openTarget(t, scenarios.Target{Kind: "redis", URL: nodes[0].URL(), Client: scenarios.ClientOf(scenarios.ClientCommon{}, ClientConfig{Mode: "cluster", Addrs: addrs})}, targets.Options{})
	}
	testBarrier(t, open, fmt.Sprintf("soakd:barrier:cluster-%d:s:0", time.Now().UnixNano()))
}
