package daemon

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/soakd/soakd/internal/testutil"
)

// TestRunLogsScenarioWarnings: a scheduled or API run of a scenario with
// an rdb interval longer than its phases logs the same warning soakd
// validate prints (file:line: field: warning: ...), and runs anyway.
func TestRunLogsScenarioWarnings(t *testing.T) {
	testutil.NeedTool(t, "redis-server")
	dir := t.TempDir()
	path := writeFile(t, filepath.Join(dir, "rdb.yaml"), `name: rdb-warn
target: {kind: redis, managed: {persistence: "rdb:300"}}
keyspace: {records: 100}
phases:
  - {name: steady, kind: steady, rate: 50, duration: 1s, concurrency: 2, mix: {get: 100}}
`)
	h := startDaemon(t, dir, baseConfig(dir), nil)
	var e Entry
	if code := h.do("POST", "/api/v1/runs", testToken, StartRequest{Scenario: "rdb.yaml"}, &e); code != 202 {
		t.Fatalf("POST run: %d", code)
	}
	h.waitState(e.ID, StateCompleted, 30*time.Second)
	want := path + ":2: target.managed.persistence: warning: rdb:300 snapshots 300 s after the last save, but the phases are scheduled for 1 s per variant"
	if log := h.log.String(); !strings.Contains(log, want) {
		t.Errorf("log lacks %q:\n%s", want, log)
	}
}
