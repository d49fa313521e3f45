package main

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/report"
	"github.com/soakd/soakd/rundir"
	_ "github.com/soakd/soakd/targets/embedded"
)

func testApp(env map[string]string) (*App, *bytes.Buffer, *bytes.Buffer) {
	var out, errb bytes.Buffer
	return &App{Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return env[k] }, Now: time.Now}, &out, &errb
}

func TestServeRefusesBadConfigListingEveryProblem(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "soakd.yaml")
	os.WriteFile(cfg, []byte("listen: nope\nmax_concurrent: -3\nschedules:\n  - {name: x, cron: \"bad\", scenario: gone.yaml}\n"), 0o644)
	a, _, errb := testApp(nil)
	if code := a.Main(context.Background(), []string{"serve", "--config", cfg}); code != 2 {
		t.Fatalf("exit %d, want 2", code)
	}
	for _, w := range []string{"soakd.yaml:1: listen", "soakd.yaml:2: max_concurrent", "soakd.yaml:4: schedules[0].cron", "soakd.yaml:4: schedules[0].scenario", "token_file"} {
		if !strings.Contains(errb.String(), w) {
			t.Errorf("stderr lacks %q:\n%s", w, errb.String())
		}
	}
}

func TestServeStartsAndStopsOnCancel(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "soakd.yaml")
	os.WriteFile(cfg, []byte("listen: 127.0.0.1:0\ntoken_env: TOK\ndata_dir: "+filepath.Join(dir, "data")+"\n"), 0o644)
	a, _, errb := testApp(map[string]string{"TOK": "tok-123"})
	addr := make(chan net.Addr, 1)
	a.OnListen = func(x net.Addr) { addr <- x }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() { done <- a.Main(ctx, []string{"serve", "--config", cfg}) }()
	var base string
	select {
	case x := <-addr:
		base = "http://" + x.String()
	case c := <-done:
		t.Fatalf("serve exited %d early", c)
	case <-time.After(5 * time.Second):
		t.Fatal("serve did not listen")
	}
	resp, err := http.Get(base + "/healthz")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("/healthz: %v %v", resp, err)
	}
	resp.Body.Close()
	cancel()
	select {
	case c := <-done:
		if c != 0 {
			t.Errorf("exit %d after SIGTERM-equivalent cancel", c)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop")
	}
	if strings.Contains(errb.String(), "tok-123") {
		t.Error("token logged")
	}
	if _, err := os.Stat(filepath.Join(dir, "data", "index.json")); err != nil {
		t.Error(err)
	}
}

func runDir(t *testing.T, p99 float64) string {
	t.Helper()
	dir := t.TempDir()
	s := &rundir.Summary{SchemaVersion: rundir.SchemaVersion, Scenario: "s", Status: rundir.StatusCompleted,
		Phases: []rundir.PhaseResult{{Name: "steady", Kind: "steady", Result: rundir.Result{Ops: map[string]rundir.OpResult{
			"get": {Count: 100, Latency: metrics.Summary{Count: 100, P50: 0.001, P99: p99, P999: 0.02}},
		}}}}}
	if err := report.WriteRunDir(dir, s); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestCompareExitCodes(t *testing.T) {
	base := runDir(t, 0.005)
	a, out, _ := testApp(nil)
	if code := a.Main(context.Background(), []string{"compare", base, runDir(t, 0.0055)}); code != 0 {
		t.Errorf("10%% slower: exit %d, want 0\n%s", code, out)
	}
	a, out, _ = testApp(nil)
	if code := a.Main(context.Background(), []string{"compare", base, runDir(t, 0.010)}); code != 1 {
		t.Errorf("2x slower p99: exit %d, want 1\n%s", code, out)
	}
	if !strings.Contains(out.String(), "REGRESSION") || !strings.Contains(out.String(), "get") {
		t.Errorf("table:\n%s", out)
	}
	a, _, _ = testApp(nil)
	if code := a.Main(context.Background(), []string{"compare", base}); code != 2 {
		t.Errorf("one dir: exit %d, want 2", code)
	}
	a, _, _ = testApp(nil)
	if code := a.Main(context.Background(), []string{"compare", base, filepath.Join(t.TempDir(), "none")}); code != 2 {
		t.Errorf("missing dir: exit %d, want 2", code)
	}
}
