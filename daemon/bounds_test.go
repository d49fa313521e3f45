package daemon

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestDaemonRefusesUnboundedScenarios: the daemon reads scenarios
// through the same validation as soakd validate: a 16 GiB record (it
// killed the daemon and a bystander run) and 200,000 sweep points (277
// MB per POST before refusal) are refused with 400, allocating little,
// and the daemon keeps serving.
func TestDaemonRefusesUnboundedScenarios(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "huge-record.yaml"), "name: huge\nrecord: {fields: 1000, field_bytes: 16777216}\nkeyspace: {records: 10}\nphases:\n  - {kind: steady, duration: 1s, mix: {read: 100}}\n")
	var b strings.Builder
	b.WriteString("name: points\nphases:\n  - kind: sweep\n    duration: 1s\n    mix: {read: 100}\n    sweep:\n      over: rate\n      points:\n")
	for i := 0; i < 200_000; i++ {
		fmt.Fprintf(&b, "        - {rate: %d}\n", i%9+1)
	}
	writeFile(t, filepath.Join(dir, "points.yaml"), b.String())
	writeFile(t, filepath.Join(dir, "ok.yaml"), shortScenario("ok", 100, "1s"))
	h := startDaemon(t, dir, baseConfig(dir), nil)
	for _, name := range []string{"huge-record.yaml", "points.yaml"} {
		var ms0, ms1 runtime.MemStats
		runtime.ReadMemStats(&ms0)
		var e map[string]string
		code := h.do("POST", "/api/v1/runs", testToken, StartRequest{Scenario: name}, &e)
		runtime.ReadMemStats(&ms1)
		if code != 400 || !strings.Contains(e["error"], name) {
			t.Errorf("%s: %d %q, want 400", name, code, e["error"])
		}
		if n := ms1.TotalAlloc - ms0.TotalAlloc; n > 64<<20 {
			t.Errorf("%s: refusing it allocated %d MB", name, n>>20)
		}
	}
	var ok Entry
	if code := h.do("POST", "/api/v1/runs", testToken, StartRequest{Scenario: "ok.yaml"}, &ok); code != 202 {
		t.Fatalf("a valid scenario after the refusals: %d", code)
	}
	h.waitState(ok.ID, StateCompleted, 20*time.Second)
}
