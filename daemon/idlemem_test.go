package daemon

import (
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

// TestMemoryReleasedWhenIdle: the daemon hands its free heap back to
// the OS when its last running run ends, never while another run goes
// (that run would measure the forced GC and the page faults after it).
func TestMemoryReleasedWhenIdle(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "long.yaml"), lenientScenario("long", 100, "30s"))
	writeFile(t, filepath.Join(dir, "short.yaml"), lenientScenario("short", 100, "300ms"))
	var releases atomic.Int32
	ended := make(chan struct{}, 2)
	h := startDaemonOpts(t, dir, baseConfig(dir), nil, func(o *Options) {
		o.releaseMemory = func() { releases.Add(1) }
		o.runEnded = func() { ended <- struct{}{} }
	})
	var long, short Entry
	if code := h.post(`{"scenario": "long.yaml"}`, &long); code != 202 {
		t.Fatalf("start long: %d", code)
	}
	h.waitState(long.ID, StateRunning, 10*time.Second)
	if code := h.post(`{"scenario": "short.yaml"}`, &short); code != 202 {
		t.Fatalf("start short: %d", code)
	}
	h.waitState(short.ID, StateCompleted, 20*time.Second)
	// The short run's goroutine releases (or not) after its state is
	// written: wait for it to be done; the long run still goes.
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the short run's goroutine never ended")
	}
	if n := releases.Load(); n != 0 {
		t.Fatalf("memory released %d times while the long run was going", n)
	}
	if code := h.do("POST", "/api/v1/runs/"+long.ID+"/stop", testToken, nil, nil); code != 202 {
		t.Fatalf("stop long: %d", code)
	}
	h.waitState(long.ID, StateInterrupted, 20*time.Second)
	waitCount(t, &releases, 1)
	// A run alone releases when it ends.
	if code := h.post(`{"scenario": "short.yaml"}`, &short); code != 202 {
		t.Fatalf("start short again: %d", code)
	}
	h.waitState(short.ID, StateCompleted, 20*time.Second)
	waitCount(t, &releases, 2)
}

func waitCount(t *testing.T, n *atomic.Int32, want int32) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for n.Load() < want && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if got := n.Load(); got != want {
		t.Fatalf("memory released %d times, want %d", got, want)
	}
}
