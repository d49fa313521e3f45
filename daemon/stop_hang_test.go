package daemon

import (
	"path/filepath"
	"testing"
	"time"

	soaktest "github.com/soakd/soakd/internal/testutil"
	"github.com/soakd/soakd/targets"
)

// TestStopWithHangingStore: /stop of a run whose store never answers
// (read timeout 4 minutes) ends it at the drain deadline, its in-flight
// GETs counted as interrupted; then the daemon's own stop (SIGTERM)
// ends a second such run the same way instead of waiting for the
// timeout (h.stop fails after 20 s).
func TestStopWithHangingStore(t *testing.T) {
	addr, gets := soaktest.HangingRESP(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "hang.yaml"), `name: hang
target: {kind: redis, url: "redis://`+addr+`", client: {read_timeout: 4m, write_timeout: 4m}}
keyspace: {records: 100}
phases:
  - {name: steady, kind: steady, rate: 100, duration: 10m, concurrency: 2, mix: {get: 100}}
`)
	h := startDaemon(t, dir, baseConfig(dir), nil)
	start := func() string {
		t.Helper()
		gets.Store(0)
		var started Entry
		if code := h.do("POST", "/api/v1/runs", testToken, StartRequest{Scenario: "hang.yaml"}, &started); code != 202 {
			t.Fatalf("POST run: %d", code)
		}
		// Both workers' GETs hang in the store.
		for deadline := time.Now().Add(30 * time.Second); gets.Load() < 2; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%d GETs reached the store, want 2", gets.Load())
			}
		}
		return started.ID
	}
	id := start()
	if code := h.do("POST", "/api/v1/runs/"+id+"/stop", testToken, nil, nil); code != 202 {
		t.Fatalf("stop: %d", code)
	}
	v := h.waitState(id, StateInterrupted, 30*time.Second)
	if v.Summary == nil || len(v.Summary.Phases) == 0 {
		t.Fatalf("stopped run has no phases: %+v", v.Summary)
	}
	if n := v.Summary.Phases[0].Ops["get"].Errors[targets.ClassInterrupted]; n < 2 {
		t.Errorf("%d GETs counted interrupted, want at least the 2 in flight", n)
	}
	start()
	h.stop() // fails the test when the daemon is not done within 20 s
}
