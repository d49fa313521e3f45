package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/soakd/soakd/internal/testutil"
)

func newApp() (*App, *bytes.Buffer, *bytes.Buffer) {
	var out, errb bytes.Buffer
	return &App{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }, Now: time.Now}, &out, &errb
}

func write(t *testing.T, dir, name, body string) string {
	t.Helper()
	return testutil.WriteFile(t, dir, name, body)
}

func TestValidateExitCodesAndPositions(t *testing.T) {
	dir := t.TempDir()
	good := write(t, dir, "good.yaml", "phases: [{kind: steady, rate: 10, duration: 1s, mix: {get: 100}}]\n")
	bad := write(t, dir, "bad.yaml", "phases:\n  - kind: steady\n    rate: 10\n    mix: {get: 60}\n    colour: blue\n")
	a, out, errb := newApp()
	if code := a.Main(context.Background(), []string{"validate", good}); code != 0 {
		t.Fatalf("good file: exit %d, %s", code, errb)
	}
	if !strings.Contains(out.String(), "good.yaml: ok") {
		t.Errorf("stdout %q", out)
	}
	a, _, errb = newApp()
	if code := a.Main(context.Background(), []string{"validate", good, bad}); code != 2 {
		t.Fatalf("bad file: exit %d", code)
	}
	if !strings.Contains(errb.String(), bad+":5: unknown key \"colour\"") {
		t.Errorf("stderr lacks file:line for unknown key:\n%s", errb)
	}
	// Fix the unknown key: now the semantic problems show, all at once.
	write(t, dir, "bad.yaml", "phases:\n  - kind: steady\n    rate: 10\n    mix: {get: 60}\n")
	a, _, errb = newApp()
	a.Main(context.Background(), []string{"validate", bad})
	for _, want := range []string{bad + ":2: phases[0].duration", bad + ":4: phases[0].mix: percentages add up to 60"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errb)
		}
	}
}

func TestRunExitCodes(t *testing.T) {
	dir := t.TempDir()
	// The test proves the exit codes (0 pass, 1 SLO failed, 2 bad usage),
	// not this host's latency: the passing SLO holds on any machine (a
	// CPU-starved -race run can lag past max_lag and drop, and the default
	// max_dropped_ratio is 0), the failing one (max 1ns) on none.
	pass := write(t, dir, "pass.yaml", "keyspace: {records: 100}\nphases: [{kind: steady, rate: 200, duration: 1s, mix: {get: 100}}]\nslo: {latency: {'*': {p99: 1m}}, max_dropped_ratio: 1}\n")
	fail := write(t, dir, "fail.yaml", "keyspace: {records: 100}\nphases: [{kind: steady, rate: 200, duration: 1s, mix: {get: 100}}]\nslo: {latency: {'*': {max: 1ns}}}\n")
	a, out, errb := newApp()
	outDir := filepath.Join(dir, "run1")
	if code := a.Main(context.Background(), []string{"run", pass, "--out", outDir, "--listen", "", "--quiet"}); code != 0 {
		t.Fatalf("passing run: exit %d\n%s\n%s", code, errb, out)
	}
	if !strings.Contains(out.String(), "target: embedded") || !strings.Contains(out.String(), "SLO PASSED") {
		t.Errorf("summary output:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(outDir, "summary.json")); err != nil {
		t.Fatal(err)
	}
	a, _, errb = newApp()
	if code := a.Main(context.Background(), []string{"run", fail, "--out", filepath.Join(dir, "run2"), "--listen", "", "--quiet"}); code != 1 {
		t.Fatalf("failing SLO: exit %d, want 1\n%s", code, errb)
	}
	a, _, errb = newApp()
	if code := a.Main(context.Background(), []string{"run", filepath.Join(dir, "missing.yaml")}); code != 2 {
		t.Fatalf("missing file: exit %d, want 2", code)
	}
	a, _, errb = newApp()
	if code := a.Main(context.Background(), []string{"run", pass, "--target", "ftp://user:pw@x", "--listen", ""}); code != 2 {
		t.Fatalf("bad target: exit %d, want 2", code)
	}
	if strings.Contains(errb.String(), ":pw@") {
		t.Errorf("credential leaked: %s", errb)
	}
	a, out, _ = newApp()
	if code := a.Main(context.Background(), []string{"report", outDir}); code != 0 || !strings.Contains(out.String(), "SLO PASSED") {
		t.Errorf("report: exit %d\n%s", code, out)
	}
}

// servingRun is a `soakd run` in the background whose /metrics a test
// reads: start it with args (a long run: the test cancels it once it
// has looked, so a slow host cannot end it first).
type servingRun struct {
	errb   syncBuf
	cancel context.CancelFunc
	done   chan int
	url    string
}

// startServingRun starts a run of args and waits (up to 2 min) for the
// metrics address it prints.
func startServingRun(t *testing.T, args ...string) *servingRun {
	t.Helper()
	r := &servingRun{done: make(chan int, 1)}
	a := &App{Stdout: &bytes.Buffer{}, Stderr: &r.errb, Getenv: func(string) string { return "" }, Now: time.Now}
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	t.Cleanup(cancel)
	go func() { r.done <- a.Main(ctx, args) }()
	giveUp := time.Now().Add(2 * time.Minute)
	for r.url == "" {
		if time.Now().After(giveUp) {
			t.Fatalf("no metrics address printed in 2 min: %s", r.errb.String())
		}
		select {
		case code := <-r.done:
			t.Fatalf("run ended (exit %d) before printing its metrics address: %s", code, r.errb.String())
		case <-time.After(50 * time.Millisecond):
		}
		if i := strings.Index(r.errb.String(), "metrics on "); i >= 0 {
			rest := r.errb.String()[i+len("metrics on "):]
			if j := strings.Index(rest, "\n"); j >= 0 {
				r.url = strings.TrimSpace(rest[:j])
			}
		}
	}
	return r
}

// stop cancels the run and checks it ended interrupted (exit 1).
func (r *servingRun) stop(t *testing.T) {
	t.Helper()
	r.cancel()
	if code := <-r.done; code != 1 {
		t.Fatalf("exit %d after cancel, want 1 (interrupted): %s", code, r.errb.String())
	}
}

// TestRunServesMetrics: a run serves its series on the address it
// prints, once it has measured its first interval (polled for up to
// 2 min; the run lasts 10).
func TestRunServesMetrics(t *testing.T) {
	dir := t.TempDir()
	sc := write(t, dir, "m.yaml", "keyspace: {records: 100}\nphases: [{kind: steady, rate: 100, duration: 10m, mix: {get: 100}}]\n")
	r := startServingRun(t, "run", sc, "--out", filepath.Join(dir, "r"), "--listen", "127.0.0.1:0")
	wants := []string{`soakd_ops_total{op="get",outcome="ok",phase="steady-1",scenario="m",shard="0"}`, "soakd_op_latency_seconds_bucket", "soakd_target_rate_ops"}
	giveUp := time.Now().Add(2 * time.Minute)
	for missing := wants; len(missing) > 0; time.Sleep(100 * time.Millisecond) {
		body := httpGet(t, r.url)
		missing = missing[:0:0]
		for _, want := range wants {
			if !strings.Contains(body, want) {
				missing = append(missing, want)
			}
		}
		if len(missing) > 0 && time.Now().After(giveUp) {
			t.Fatalf("/metrics lacks %v", missing)
		}
	}
	r.stop(t)
}
