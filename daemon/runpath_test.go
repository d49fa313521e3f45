package daemon

import (
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// A schedule or soak target with a password is refused at config load,
// like a scenario's (before: accepted, then failed at every firing).
func TestConfigRefusesTargetPassword(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "ok.yaml"), shortScenario("ok", 100, "1s"))
	src := baseConfig(dir) + `schedules:
  - {name: a, cron: "@daily", scenario: ok.yaml, target: "redis://u:hunter2@db:6379"}
soaks:
  - {name: s, scenario: ok.yaml, target: "redis://db:6379"}
`
	_, err := ParseConfig(filepath.Join(dir, "soakd.yaml"), []byte(src), getenv(map[string]string{"SOAKD_TEST_TOKEN": testToken}))
	if err == nil {
		t.Fatal("schedule target with a password accepted")
	}
	if !strings.Contains(err.Error(), "schedules[0].target:") || !strings.Contains(err.Error(), "password") {
		t.Errorf("problem not reported on the schedule's target:\n%v", err)
	}
	if strings.Contains(err.Error(), "hunter2") {
		t.Errorf("password leaked: %v", err)
	}
	if strings.Contains(err.Error(), "soaks[0]") {
		t.Errorf("a target without a password refused: %v", err)
	}
}

// Daemon runs go through the same run path as `soakd run`: they export
// soakd_slo_latency_seconds ("*" merged, max as 1) and send spans where
// OTLP is configured. Before: neither.
func TestDaemonRunExportsSLOAndTraces(t *testing.T) {
	var posts atomic.Int32
	otlp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == "/v1/traces" {
			posts.Add(1)
		}
		w.WriteHeader(http.StatusOK)
	}))
	defer otlp.Close()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "slo.yaml"), shortScenario("slo", 100, "2s")+`slo:
  latency:
    "*": {p99.9: 5s, max: 10s}
    get: {p50: 2s}
`)
	h := startDaemon(t, dir, baseConfig(dir), map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": otlp.URL})
	var started Entry
	if code := h.do("POST", "/api/v1/runs", testToken, StartRequest{Scenario: "slo.yaml"}, &started); code != 202 {
		t.Fatalf("POST run: %d", code)
	}
	want := []string{`op="get",quantile="0.5",scenario="slo",shard="0"} 2`, `op="get",quantile="0.999",scenario="slo",shard="0"} 5`,
		`op="get",quantile="1",scenario="slo",shard="0"} 10`}
	var body string
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		resp, err := http.Get(h.base + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if body = string(b); strings.Contains(body, want[0]) {
			break
		}
	}
	for _, w := range want {
		if !strings.Contains(body, "soakd_slo_latency_seconds{"+w) {
			t.Errorf("daemon /metrics lacks soakd_slo_latency_seconds{%s", w)
		}
	}
	h.waitState(started.ID, StateCompleted, 15*time.Second)
	for deadline := time.Now().Add(5 * time.Second); posts.Load() == 0 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	if posts.Load() == 0 {
		t.Error("no spans exported for a daemon run")
	}
}
