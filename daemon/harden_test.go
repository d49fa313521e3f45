package daemon

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

const secretLine = "root:$6$SECRETHASH$abcdef:19000:0:99999:7:::"

// TestScenarioOnlyFromScenarioDirs: the daemon reads scenarios only from
// scenario_dirs (default: the config's directory), only regular files,
// and never echoes a file that is not a scenario.
func TestScenarioOnlyFromScenarioDirs(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	extra := t.TempDir()
	shadow := writeFile(t, filepath.Join(outside, "shadow"), secretLine+"\nbin:*:19000:0:99999:7:::\n")
	writeFile(t, filepath.Join(dir, "notes.yaml"), "password: SECRETHASH\nother: [SECRETHASH]\n")
	writeFile(t, filepath.Join(dir, "garbage.yaml"), secretLine+"\n  - : SECRETHASH: [\n")
	writeFile(t, filepath.Join(extra, "ok.yaml"), shortScenario("ok", 100, "1s"))
	if err := os.Symlink(shadow, filepath.Join(dir, "link.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "zero.yaml")); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.yaml")
	haveFIFO := syscall.Mkfifo(fifo, 0o600) == nil
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	if haveFIFO {
		// A FIFO inside a scenario dir, reached without a symlink.
		syscall.Mkfifo(filepath.Join(dir, "sub", "fifo2.yaml"), 0o600)
	}
	h := startDaemon(t, dir, baseConfig(dir)+"scenario_dirs: [., "+extra+"]\n", nil)
	for _, c := range []struct{ scenario, want string }{
		{shadow, "outside the scenario directories"},
		{"/etc/shadow", "outside the scenario directories"},
		{"../" + filepath.Base(outside) + "/shadow", "outside the scenario directories"},
		{"link.yaml", "outside the scenario directories"},
		{"zero.yaml", "outside the scenario directories"},
		{"notes.yaml", "not a valid scenario file"},
		{"garbage.yaml", "not a valid scenario file"},
		{"sub/fifo2.yaml", "not a regular file"},
		{"nope.yaml", "no such file"},
	} {
		if c.scenario == "sub/fifo2.yaml" && !haveFIFO {
			continue
		}
		start := time.Now()
		var e map[string]string
		code := h.do("POST", "/api/v1/runs", testToken, StartRequest{Scenario: c.scenario}, &e)
		if code != 400 || !strings.Contains(e["error"], c.want) {
			t.Errorf("%s: %d %q, want 400 with %q", c.scenario, code, e["error"], c.want)
		}
		if strings.Contains(e["error"], "SECRETHASH") || strings.Contains(e["error"], "99999") {
			t.Errorf("%s: the error quotes the file: %q", c.scenario, e["error"])
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: took %s", c.scenario, d)
		}
	}
	var ok Entry
	if code := h.do("POST", "/api/v1/runs", testToken, StartRequest{Scenario: filepath.Join(extra, "ok.yaml")}, &ok); code != 202 {
		t.Fatalf("a scenario in a listed scenario_dir: %d", code)
	}
	h.waitState(ok.ID, StateCompleted, 20*time.Second)
	if strings.Contains(h.log.String(), "SECRETHASH") {
		t.Error("the log quotes a file that is not a scenario")
	}
}

// TestRunQueueBounded: past max_queued waiting runs a start is refused
// with 429, not queued without bound.
func TestRunQueueBounded(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"a", "b", "c"} {
		writeFile(t, filepath.Join(dir, n+".yaml"), shortScenario(n, 50, "60s"))
	}
	cfg := "listen: 127.0.0.1:0\ntoken_env: SOAKD_TEST_TOKEN\ndata_dir: " + filepath.Join(dir, "data") + "\nmax_concurrent: 1\nmax_queued: 1\n"
	h := startDaemon(t, dir, cfg, nil)
	var a, b Entry
	if code := h.do("POST", "/api/v1/runs", testToken, StartRequest{Scenario: "a.yaml"}, &a); code != 202 {
		t.Fatalf("a: %d", code)
	}
	h.waitState(a.ID, StateRunning, 10*time.Second)
	if code := h.do("POST", "/api/v1/runs", testToken, StartRequest{Scenario: "b.yaml"}, &b); code != 202 {
		t.Fatalf("b: %d", code)
	}
	var e map[string]string
	if code := h.do("POST", "/api/v1/runs", testToken, StartRequest{Scenario: "c.yaml"}, &e); code != 429 || !strings.Contains(e["error"], "queue is full") {
		t.Fatalf("c with a full queue: %d %v", code, e)
	}
}

func TestPruneKeepsCompletedRunsThroughFailures(t *testing.T) {
	h, _, err := OpenHistory(t.TempDir(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 3; i++ {
		id := "done" + jsonNum(i)
		os.MkdirAll(h.RunDir(id), 0o755)
		h.Put(&Entry{ID: id, Scenario: "s", State: StateCompleted, Created: now.Add(time.Duration(i) * time.Minute)})
	}
	// An outage: 100 failed attempts, all newer than the completed runs.
	for i := 0; i < 100; i++ {
		h.Put(&Entry{ID: "fail" + jsonNum(i), Scenario: "s", State: StateFailed, Created: now.Add(time.Hour + time.Duration(i)*5*time.Second)})
	}
	if _, err := h.Prune(now.Add(2*time.Hour), 3, 20, 0); err != nil {
		t.Fatal(err)
	}
	done, failed := 0, 0
	for _, e := range h.List() {
		switch e.State {
		case StateCompleted:
			done++
		case StateFailed:
			failed++
			if e.Created.Before(now.Add(time.Hour + 80*5*time.Second)) {
				t.Errorf("kept an old failure %s", e.ID)
			}
		}
	}
	if done != 3 || failed != 20 {
		t.Fatalf("kept %d completed (want 3) and %d failed (want 20)", done, failed)
	}
	for i := 0; i < 3; i++ {
		if _, err := os.Stat(h.RunDir("done" + jsonNum(i))); err != nil {
			t.Errorf("completed run directory removed: %v", err)
		}
	}
}

func TestSoakPauseBacksOff(t *testing.T) {
	for _, c := range []struct {
		pause    time.Duration
		failures int
		want     time.Duration
	}{
		{0, 0, 0},
		{time.Minute, 0, time.Minute},
		{0, 1, 5 * time.Second},
		{0, 2, 10 * time.Second},
		{0, 3, 20 * time.Second},
		{0, 7, 5 * time.Minute},
		{0, 1000, 5 * time.Minute},
		{10 * time.Minute, 3, 10 * time.Minute},
	} {
		if got := soakPause(c.pause, defaultFailBackoff, c.failures); got != c.want {
			t.Errorf("soakPause(%s, %d failures) = %s, want %s", c.pause, c.failures, got, c.want)
		}
	}
}

// TestSoakOutageKeepsHistory: a soak whose every attempt fails backs off
// (each logged pause double the last) and its failures never evict a
// completed run, even with max_runs: 1.
func TestSoakOutageKeepsHistory(t *testing.T) {
	dir := t.TempDir()
	soak := writeFile(t, filepath.Join(dir, "soak.yaml"), shortScenario("soak", 100, "1s"))
	cfg := baseConfig(dir) + "retention: {max_runs: 1, max_failed: 3}\nsoaks:\n  - {name: down, scenario: soak.yaml}\n"
	h := startDaemonOpts(t, dir, cfg, nil, func(o *Options) { o.failBackoff = 20 * time.Millisecond })
	list := func() (done, failed []Entry) {
		var l struct{ Runs []Entry }
		h.do("GET", "/api/v1/runs", "", nil, &l)
		for _, e := range l.Runs {
			switch e.State {
			case StateCompleted:
				done = append(done, e)
			case StateFailed:
				failed = append(failed, e)
			}
		}
		return done, failed
	}
	deadline := time.Now().Add(30 * time.Second)
	for done, _ := list(); len(done) == 0; done, _ = list() {
		if time.Now().After(deadline) {
			t.Fatalf("no completed soak run\n%s", h.log.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The outage: from now on every attempt fails.
	if err := os.Remove(soak); err != nil {
		t.Fatal(err)
	}
	for strings.Count(h.log.String(), "soak attempt failed") < 7 {
		if time.Now().After(deadline) {
			t.Fatalf("fewer than 7 failed attempts\n%s", h.log.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	done, failed := list()
	if len(done) != 1 || len(failed) > 3 {
		t.Fatalf("%d completed (want 1) and %d failed (want <= 3) runs in the history", len(done), len(failed))
	}
	if _, err := os.Stat(filepath.Join(dir, "data", "runs", done[0].ID, "summary.json")); err != nil {
		t.Fatalf("the completed run's directory is gone: %v", err)
	}
	var pauses []string
	for _, line := range strings.Split(h.log.String(), "\n") {
		if i := strings.Index(line, "pause="); i >= 0 && strings.Contains(line, "soak attempt failed") {
			pauses = append(pauses, line[i+len("pause="):])
		}
	}
	want := []string{"20ms", "40ms", "80ms", "160ms", "320ms", "640ms"}
	for i, w := range want {
		if i >= len(pauses) || pauses[i] != w {
			t.Fatalf("pauses %v, want them to start %v", pauses, want)
		}
	}
}

// TestPostNamingFIFOInputRefused: a scenario whose corpus or capture is
// a FIFO is refused at once by name, not left waiting for a writer that
// never comes (the POST, and the daemon's worker, hung on it).
func TestPostNamingFIFOInputRefused(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "docs.ndjson"), 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	syscall.Mkfifo(filepath.Join(dir, "capture.txt"), 0o600)
	writeFile(t, filepath.Join(dir, "corpus.yaml"), "name: c\ntarget: {kind: embedded}\nrecord: {source: docs.ndjson}\nphases: [{name: load, kind: load}]\n")
	writeFile(t, filepath.Join(dir, "replay.yaml"), "name: r\ntarget: {kind: embedded}\nphases: [{name: r, kind: replay, source: capture.txt}]\n")
	h := startDaemon(t, dir, baseConfig(dir), nil)
	for name, want := range map[string]string{"corpus.yaml": "docs.ndjson", "replay.yaml": "capture.txt"} {
		done := make(chan struct{})
		var code int
		var e map[string]string
		go func() {
			defer close(done)
			code = h.do("POST", "/api/v1/runs", testToken, StartRequest{Scenario: name}, &e)
		}()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: the POST hung on a FIFO", name)
		}
		if code != 400 || !strings.Contains(e["error"], want) || !strings.Contains(e["error"], "not a regular file") {
			t.Errorf("%s: %d %q, want 400 naming %s as not a regular file", name, code, e["error"], want)
		}
	}
}
