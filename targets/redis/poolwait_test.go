package redis

import (
	"context"
	"errors"
	"net"
	"os"
	"testing"
	"testing/synctest"
	"time"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// pipePool is a pool of size connections to nothing: each dial hands out
// one end of an in-memory pipe (no setup commands are sent).
func pipePool(t *testing.T, size int, rt time.Duration) *connPool {
	dial := func(ctx context.Context) (net.Conn, error) {
		a, b := net.Pipe()
		t.Cleanup(func() { a.Close(); b.Close() })
		return a, nil
	}
	return newConnPool(size, dial, nil, rt, 0)
}

// TestPoolWaitEndsAtOpTimeout: with the only connection held, a second
// get gives up after the op's (read) timeout, not at the run's end, and
// its error is classed as a timeout by the redis target.
func TestPoolWaitEndsAtOpTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := pipePool(t, 1, 50*time.Millisecond)
		held, err := p.get(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		c, err := p.get(t.Context()) // the run's context: no deadline
		if err == nil {
			t.Fatalf("second get of a pool of 1 got a connection %v", c)
		}
		if waited := time.Since(start); waited != 50*time.Millisecond {
			t.Errorf("waited %s (bubble time), want the read timeout 50ms", waited)
		}
		var pw *poolWaitError
		if !errors.As(err, &pw) || !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("error %v (%T), want a poolWaitError wrapping os.ErrDeadlineExceeded", err, err)
		}
		if cl := targets.Classify(&Target{}, err); cl != targets.ClassTimeout {
			t.Errorf("classified %q, want %q: %v", cl, targets.ClassTimeout, err)
		}
		// The held connection still comes back and is handed out again.
		p.put(held, false)
		again, err := p.get(t.Context())
		if err != nil || again != held {
			t.Fatalf("get after put: %v %v, want the held connection", again, err)
		}
		p.put(again, false)
	})
}

// TestPoolWaitHandsOverInTime: a connection put back before the timeout
// goes to the waiting get, which then succeeds.
func TestPoolWaitHandsOverInTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := pipePool(t, 1, 50*time.Millisecond)
		held, err := p.get(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			time.Sleep(30 * time.Millisecond)
			p.put(held, false)
		}()
		start := time.Now()
		c, err := p.get(t.Context())
		if err != nil {
			t.Fatalf("get while the connection came back after 30ms of a 50ms timeout: %v", err)
		}
		if c != held || time.Since(start) != 30*time.Millisecond {
			t.Errorf("got %p after %s, want the held %p after 30ms", c, time.Since(start), held)
		}
		p.put(c, false)
	})
}

// TestPoolWaitEndsAtContextDeadline: an op's context deadline earlier
// than the read timeout ends the wait at that deadline (as a timeout);
// a cancelled run ends it at once.
func TestPoolWaitEndsAtContextDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := pipePool(t, 1, time.Second)
		if _, err := p.get(t.Context()); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := p.get(ctx)
		if time.Since(start) != 20*time.Millisecond || targets.Classify(&Target{}, err) != targets.ClassTimeout {
			t.Errorf("after %s: %v (%s), want a timeout at the context's 20ms deadline",
				time.Since(start), err, targets.Classify(&Target{}, err))
		}
		run, stop := context.WithCancel(t.Context())
		stop()
		if _, err := p.get(run); !errors.Is(err, context.Canceled) {
			t.Errorf("get on a cancelled run: %v, want context.Canceled", err)
		}
	})
}

// TestFastOpPoolWaitIsTimeout: on a real redis-server, a GET over the
// fast path while the pool's only connection is held fails within its
// read timeout, as a timeout (the outcome the engine records).
func TestFastOpPoolWaitIsTimeout(t *testing.T) {
	s := mustRedis(t)
	tg := openTarget(t, scenarios.Target{URL: s.URL(), Client: scenarios.ClientOf(scenarios.ClientCommon{PoolSize: 1, ReadTimeout: scenarios.Duration(50 * time.Millisecond)}, ClientConfig{Protocol: ProtocolFast})}, targets.Options{})
	held, err := tg.own.get(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	defer tg.own.put(held, false)
	done := make(chan error, 1)
	go func() { done <- tg.Do(context.Background(), &targets.Request{Op: scenarios.OpGet, Key: key(1)}) }()
	select {
	case err := <-done:
		if cl := targets.Classify(tg, err); cl != targets.ClassTimeout {
			t.Errorf("GET with the pool's only connection held: %v, classed %q, want %q", err, cl, targets.ClassTimeout)
		}
	case <-time.After(time.Minute): // a hang, not a latency bound
		t.Fatal("GET waited for a connection past its 50ms read timeout (a minute)")
	}
}
