package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	soaktest "github.com/soakd/soakd/internal/testutil"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
	_ "github.com/soakd/soakd/targets/embedded"
)

const testToken = "s3cret-token-value"

// syncBuf is a writer safe for concurrent goroutines.
type syncBuf = soaktest.SyncBuffer

func writeFile(t *testing.T, path, body string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// shortScenario: embedded target, one steady phase.
func shortScenario(name string, rate int, dur string) string {
	return "name: " + name + `
keyspace: {records: 100}
phases:
  - {name: steady, kind: steady, rate: ` + itoa(rate) + `, duration: ` + dur + `, concurrency: 2, mix: {get: 100}}
`
}

func itoa(n int) string { return jsonNum(n) }

func jsonNum(n int) string { b, _ := json.Marshal(n); return string(b) }

func getenv(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

type harness struct {
	t      *testing.T
	dir    string
	cfg    string
	base   string
	log    *syncBuf
	reload chan os.Signal
	cancel context.CancelFunc
	done   chan error
	env    map[string]string
}

func startDaemon(t *testing.T, dir, configBody string, env map[string]string) *harness {
	t.Helper()
	return startDaemonOpts(t, dir, configBody, env, nil)
}

// startDaemonOpts is startDaemon with a hook to change the Options.
func startDaemonOpts(t *testing.T, dir, configBody string, env map[string]string, opt func(*Options)) *harness {
	t.Helper()
	h := &harness{t: t, dir: dir, log: &syncBuf{}, reload: make(chan os.Signal, 1), done: make(chan error, 1), env: env}
	if h.env == nil {
		h.env = map[string]string{}
	}
	h.env["SOAKD_TEST_TOKEN"] = testToken
	h.cfg = writeFile(t, filepath.Join(dir, "soakd.yaml"), configBody)
	cfg, err := LoadConfig(h.cfg, getenv(h.env))
	if err != nil {
		t.Fatal(err)
	}
	addr := make(chan net.Addr, 1)
	o := Options{ConfigPath: h.cfg, Getenv: getenv(h.env), Log: h.log, Reload: h.reload,
		OnListen: func(a net.Addr) { addr <- a }, checkpointEvery: time.Second}
	if opt != nil {
		opt(&o)
	}
	d, err := New(cfg, o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	go func() { h.done <- d.Run(ctx) }()
	select {
	case a := <-addr:
		h.base = "http://" + a.String()
	case err := <-h.done:
		t.Fatalf("daemon exited: %v", err)
	case <-time.After(5 * time.Second):
		t.Fatal("daemon did not listen")
	}
	t.Cleanup(func() { h.stop() })
	return h
}

func (h *harness) stop() {
	if h.cancel == nil {
		return
	}
	h.cancel()
	h.cancel = nil
	select {
	case err := <-h.done:
		if err != nil {
			h.t.Errorf("daemon Run: %v", err)
		}
	case <-time.After(20 * time.Second):
		h.t.Error("daemon did not stop")
	}
	if strings.Contains(h.log.String(), testToken) {
		h.t.Error("the token appeared in the log")
	}
}

func (h *harness) do(method, path, token string, body any, out any) int {
	h.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, h.base+path, rd)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			h.t.Fatalf("%s %s: %v in %s", method, path, err, data)
		}
	}
	if strings.Contains(string(data), testToken) {
		h.t.Errorf("%s %s: response contains the token", method, path)
	}
	return resp.StatusCode
}

func (h *harness) waitState(id string, want string, within time.Duration) RunView {
	h.t.Helper()
	deadline := time.Now().Add(within)
	var v RunView
	for time.Now().Before(deadline) {
		v = RunView{}
		h.do("GET", "/api/v1/runs/"+id, "", nil, &v)
		if v.State == want {
			return v
		}
		time.Sleep(50 * time.Millisecond)
	}
	h.t.Fatalf("run %s: state %q after %s, want %q", id, v.State, within, want)
	return v
}

func baseConfig(dir string) string {
	return "listen: 127.0.0.1:0\ntoken_env: SOAKD_TEST_TOKEN\ndata_dir: " + filepath.Join(dir, "data") + "\nmax_concurrent: 2\n"
}

func TestConfigReportsEveryProblemWithLines(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "ok.yaml"), shortScenario("ok", 100, "1s"))
	src := `listen: nonsense
max_concurrent: 0
retention: {max_runs: -1}
schedules:
  - name: a
    cron: "61 * * * *"
    scenario: missing.yaml
    overlap: sometimes
  - name: a
    cron: "@daily"
    scenario: ok.yaml
    target: ftp://x
soaks:
  - name: s
    scenario: ok.yaml
    bogus: 1
  - name: t
    scenario: ok.yaml
    tick: 500us
`
	_, err := ParseConfig(filepath.Join(dir, "soakd.yaml"), []byte(src), getenv(nil))
	if err == nil {
		t.Fatal("bad config accepted")
	}
	// Unknown keys are reported first (decode stage), with their line.
	if !strings.Contains(err.Error(), `soakd.yaml:16: unknown key "bogus"`) {
		t.Errorf("unknown key not reported with its line:\n%v", err)
	}
	src = strings.Replace(src, "    bogus: 1\n", "", 1)
	_, err = ParseConfig(filepath.Join(dir, "soakd.yaml"), []byte(src), getenv(nil))
	if err == nil {
		t.Fatal("bad config accepted")
	}
	want := []string{
		"soakd.yaml:1: listen:",
		"soakd.yaml:1: token_file: set token_file or token_env",
		"soakd.yaml:2: max_concurrent:",
		"soakd.yaml:3: retention.max_runs:",
		"soakd.yaml:6: schedules[0].cron:",
		"soakd.yaml:7: schedules[0].scenario:",
		"soakd.yaml:8: schedules[0].overlap:",
		"soakd.yaml:9: schedules[1].name: \"a\" is already used",
		"soakd.yaml:12: schedules[1].target:",
		"soakd.yaml:18: soaks[1].tick: must be 1ms to 1s",
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("missing %q in:\n%v", w, err)
		}
	}
	var ps scenarios.Problems
	if !errorsAs(err, &ps) || len(ps) != len(want) {
		t.Errorf("want %d problems, got:\n%v", len(want), err)
	}
}

func TestConfigDefaults(t *testing.T) {
	c, err := ParseConfig("x.yaml", []byte("token_env: T\n"), getenv(map[string]string{"STATE_DIRECTORY": "/var/lib/soakd"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Listen != DefaultListen || c.DataDir != "/var/lib/soakd" || c.MaxConcurrent != 1 || c.Regression.Threshold != 0.2 {
		t.Errorf("defaults: %+v", c)
	}
	c, _ = ParseConfig("x.yaml", []byte("token_env: T\n"), getenv(nil))
	if c.DataDir != "./soakd-data" {
		t.Errorf("data_dir default %q", c.DataDir)
	}
}

func TestAPIStartRateStopAndRegression(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "long.yaml"), shortScenario("long", 200, "30s"))
	writeFile(t, filepath.Join(dir, "short.yaml"), shortScenario("short", 500, "1s"))
	// The sampler off: on a busy host every run is host- or
	// generator-bound and its regression verdict withheld, which is
	// tested on its own (verdict/selfbound_test.go, compare's withholding).
	h := startDaemonOpts(t, dir, baseConfig(dir)+"regression: {history: 5, threshold: 0.2, k: 3, min_history: 2}\n", nil, func(o *Options) { o.noSelfHealth = true })

	// The API listens before the daemon is ready (it prunes and loads
	// its history first): /readyz turns 200 once it is.
	code := h.do("GET", "/readyz", "", nil, nil)
	for deadline := time.Now().Add(10 * time.Second); code == 503 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
		code = h.do("GET", "/readyz", "", nil, nil)
	}
	if code != 200 {
		t.Errorf("/readyz %d", code)
	}
	var e map[string]string
	if code := h.do("POST", "/api/v1/runs", "", StartRequest{Scenario: "long.yaml"}, &e); code != 401 || e["error"] == "" {
		t.Errorf("POST without token: %d %v, want 401 with a JSON error", code, e)
	}
	if code := h.do("POST", "/api/v1/runs", "wrong", StartRequest{Scenario: "long.yaml"}, nil); code != 401 {
		t.Errorf("POST with wrong token: %d", code)
	}
	if code := h.do("POST", "/api/v1/runs", testToken, StartRequest{Scenario: "nope.yaml"}, &e); code != 400 || !strings.Contains(e["error"], "nope.yaml") {
		t.Errorf("POST missing scenario: %d %v", code, e)
	}
	var started Entry
	if code := h.do("POST", "/api/v1/runs", testToken, StartRequest{Scenario: "long.yaml"}, &started); code != 202 {
		t.Fatalf("POST run: %d", code)
	}
	h.waitState(started.ID, StateRunning, 5*time.Second)
	// Wait for the phase to be dispatching.
	deadline := time.Now().Add(5 * time.Second)
	for {
		var v RunView
		h.do("GET", "/api/v1/runs/"+started.ID, "", nil, &v)
		if v.Phase == "steady" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("phase never showed as running")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if code := h.do("POST", "/api/v1/runs/"+started.ID+"/rate", "", RateRequest{Rate: 400}, nil); code != 401 {
		t.Errorf("rate without token: %d", code)
	}
	if code := h.do("POST", "/api/v1/runs/"+started.ID+"/rate", testToken, RateRequest{Rate: -1}, nil); code != 400 {
		t.Errorf("negative rate: %d", code)
	}
	var refused map[string]string
	if code := h.do("POST", "/api/v1/runs/"+started.ID+"/rate", testToken, RateRequest{Rate: 1e12}, &refused); code != 400 || !strings.Contains(refused["error"], "10000000") {
		t.Errorf("rate above the ceiling: %d %v", code, refused)
	}
	if code := h.do("POST", "/api/v1/runs/"+started.ID+"/rate", testToken, RateRequest{Rate: 400}, nil); code != 200 {
		t.Fatalf("rate: %d", code)
	}
	var v RunView
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		h.do("GET", "/api/v1/runs/"+started.ID, "", nil, &v)
		if v.Rate == 400 {
			break
		}
	}
	if v.Rate != 400 {
		t.Errorf("live rate %v after change, want 400", v.Rate)
	}
	if code := h.do("POST", "/api/v1/runs/"+started.ID+"/stop", testToken, nil, nil); code != 202 {
		t.Fatalf("stop: %d", code)
	}
	v = h.waitState(started.ID, StateInterrupted, 10*time.Second)
	if v.Summary == nil || v.Summary.Status != rundir.StatusInterrupted {
		t.Errorf("stopped run has no interrupted summary: %+v", v.Summary)
	} else if ph := v.Summary.Phases; len(ph) == 0 || len(ph[0].RateChanges) != 1 || ph[0].RateChanges[0].Rate != 400 || ph[0].RateChanges[0].FromRate != 200 {
		t.Errorf("the live rate change is not in summary.json: %+v", ph)
	}
	if code := h.do("POST", "/api/v1/runs/"+started.ID+"/stop", testToken, nil, &e); code != 409 {
		t.Errorf("stop of a finished run: %d", code)
	}
	if code := h.do("GET", "/api/v1/runs/..%2f..", "", nil, nil); code != 400 && code != 404 {
		t.Errorf("path-ish id: %d", code)
	}

	// Three runs of "short": the second is not judged on one earlier
	// run (min_history 2), the third gets a verdict against both.
	for i := 0; i < 3; i++ {
		var s Entry
		if code := h.do("POST", "/api/v1/runs", testToken, StartRequest{Scenario: "short.yaml"}, &s); code != 202 {
			t.Fatalf("POST short: %d", code)
		}
		v = h.waitState(s.ID, StateCompleted, 15*time.Second)
		if i == 1 && (v.Regression == nil || v.Regression.NotJudged == "" || len(v.Regression.Ops) > 0) {
			t.Errorf("second run judged on a history of one: %+v", v.Regression)
		}
	}
	if v.Regression == nil || v.Regression.History != 2 || v.Regression.NotJudged != "" || len(v.Regression.Ops) == 0 {
		t.Errorf("third run has no regression verdict against the first two: %+v", v.Regression)
	}
	resp, err := http.Get(h.base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `soakd_regression{op="get",scenario="short"}`) {
		t.Errorf("/metrics lacks soakd_regression for short/get")
	}
	if !strings.Contains(string(body), `soakd_daemon_runs_total{state="completed"} 3`) {
		t.Errorf("/metrics: runs_total completed != 3")
	}
	// The stopped run's live rate change is still there for the
	// dashboards' annotations (kept.go), its live series are not.
	if !strings.Contains(string(body), `soakd_rate_changes_total{phase="steady",scenario="long",shard="0"} 1`) ||
		strings.Contains(string(body), `soakd_run_info{scenario="long"`) {
		t.Errorf("/metrics after the long run ended: want its rate change kept and its run info gone:\n%s", body)
	}
	if _, err := exec.LookPath("promtool"); err == nil || soaktest.RequireTools() {
		cmd := exec.Command(soaktest.NeedTool(t, "promtool"), "check", "metrics")
		cmd.Stdin = bytes.NewReader(body)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("promtool check metrics: %v\n%s", err, out)
		}
	}
	var list struct{ Runs []Entry }
	h.do("GET", "/api/v1/runs?scenario=short", "", nil, &list)
	if len(list.Runs) != 3 {
		t.Errorf("list filtered by scenario: %d runs", len(list.Runs))
	}
	// index.json holds all four.
	data, err := os.ReadFile(filepath.Join(dir, "data", "index.json"))
	if err != nil || strings.Count(string(data), `"id"`) != 4 {
		t.Errorf("index.json: %v\n%s", err, data)
	}
}

func errorsAs(err error, ps *scenarios.Problems) bool {
	p, ok := err.(scenarios.Problems)
	if ok {
		*ps = p
	}
	return ok
}

// A daemon that died mid-run leaves "running" in the index: the next
// start marks it interrupted and writes a minimal summary.
func TestCrashRecovery(t *testing.T) {
	dir := t.TempDir()
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	idx := `{"schema_version":1,"runs":[
 {"id":"r1","scenario":"s","state":"running","created":"2026-01-02T03:04:05Z","start":"2026-01-02T03:04:05Z","dir":"runs/r1"},
 {"id":"r2","scenario":"s","state":"completed","created":"2026-01-01T03:04:05Z","dir":"runs/r2"}]}`
	os.MkdirAll(filepath.Join(dir, "runs", "r1"), 0o755)
	writeFile(t, filepath.Join(dir, "index.json"), idx)
	h, notes, err := OpenHistory(dir, start.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) == 0 {
		t.Error("no note about the interrupted run")
	}
	e, _ := h.Get("r1")
	if e.State != StateInterrupted || e.End == nil {
		t.Errorf("r1 = %+v, want interrupted with an end", e)
	}
	s, err := rundir.ReadSummary(filepath.Join(dir, "runs", "r1"))
	if err != nil || s.Status != rundir.StatusInterrupted || s.Scenario != "s" || !s.Start.Equal(start) {
		t.Errorf("minimal summary: %+v %v", s, err)
	}
	// Reopen: the state was saved.
	h2, notes, _ := OpenHistory(dir, start)
	if e, _ := h2.Get("r1"); e.State != StateInterrupted || len(notes) != 0 {
		t.Errorf("after reopen: %+v notes %v", e, notes)
	}
	if e, _ := h2.Get("r2"); e.State != StateCompleted {
		t.Errorf("r2 changed: %+v", e)
	}
}

func TestRetention(t *testing.T) {
	dir := t.TempDir()
	h, _, err := OpenHistory(dir, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 6; i++ {
		id := "run" + jsonNum(i)
		os.MkdirAll(h.RunDir(id), 0o755)
		st := StateCompleted
		if i == 0 {
			st = StateRunning // oldest, but running: never pruned
		}
		h.Put(&Entry{ID: id, Scenario: "s", State: st, Created: now.Add(-time.Duration(10-i) * 24 * time.Hour)})
	}
	// max_age 7d removes run1, run2 (10d, 9d old... run0 running stays);
	// max_runs 2 keeps the 2 newest finished.
	ids, err := h.Prune(now, 2, DefaultMaxFailed, 7*24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	left := map[string]bool{}
	for _, e := range h.List() {
		left[e.ID] = true
	}
	if !left["run0"] || !left["run5"] || !left["run4"] || len(left) != 3 {
		t.Errorf("left %v after pruning %v", left, ids)
	}
	if _, err := os.Stat(h.RunDir("run1")); !os.IsNotExist(err) {
		t.Error("pruned run directory still on disk")
	}
}

// A schedule whose scenario file disappears records a failed run in the
// index and keeps the daemon up; SIGHUP with a bad config keeps the old
// one; a soak survives a reload that does not change it.
func TestScheduleMissingFileReloadAndSoak(t *testing.T) {
	dir := t.TempDir()
	sched := writeFile(t, filepath.Join(dir, "sched.yaml"), shortScenario("sched", 100, "1s"))
	writeFile(t, filepath.Join(dir, "soak.yaml"), shortScenario("soak", 100, "20s"))
	cfg := baseConfig(dir) + `schedules:
  - {name: every, cron: "@every 1s", scenario: sched.yaml, overlap: skip}
soaks:
  - {name: forever, scenario: soak.yaml, resume: false}
`
	h := startDaemon(t, dir, cfg, nil)
	if err := os.Remove(sched); err != nil {
		t.Fatal(err)
	}
	var failed Entry
	deadline := time.Now().Add(5 * time.Second)
	var soakID string
	for failed.ID == "" && time.Now().Before(deadline) {
		var list struct{ Runs []Entry }
		h.do("GET", "/api/v1/runs", "", nil, &list)
		for _, e := range list.Runs {
			if e.Source == "schedule:every" && e.State == StateFailed {
				failed = e
			}
			if e.Source == "soak:forever" && e.State == StateRunning {
				soakID = e.ID
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	if failed.ID == "" || !strings.Contains(failed.Error, "sched.yaml") {
		t.Fatalf("no failed schedule entry naming the missing file: %+v\nlog:\n%s", failed, h.log.String())
	}
	if soakID == "" {
		t.Fatal("soak not running")
	}
	// Bad reload: keeps the old config.
	writeFile(t, h.cfg, cfg+"bogus: 1\n")
	h.reload <- nil
	waitLog(t, h.log, "reload refused")
	// Good reload that drops the schedule and keeps the soak.
	writeFile(t, h.cfg, baseConfig(dir)+"soaks:\n  - {name: forever, scenario: soak.yaml, resume: false}\n")
	h.reload <- nil
	waitLog(t, h.log, "config reloaded")
	var v RunView
	h.do("GET", "/api/v1/runs/"+soakID, "", nil, &v)
	if v.State != StateRunning {
		t.Errorf("soak run %s state %s after reload, want still running", soakID, v.State)
	}
	if strings.Contains(h.log.String(), "soak stopped by reload") {
		t.Error("unchanged soak was stopped by the reload")
	}
	// SIGTERM: the soak's run (resume: false) is interrupted with a
	// written summary. (A soak that resumes is suspended instead:
	// TestDaemonStopSuspendsSoakRun.)
	h.stop()
	s, err := rundir.ReadSummary(filepath.Join(dir, "data", "runs", soakID))
	if err != nil || s.Status != rundir.StatusInterrupted {
		t.Errorf("soak run after stop: %+v %v", s, err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "data", "index.json"))
	if strings.Contains(string(data), `"state": "running"`) {
		t.Errorf("index still shows a running run after graceful stop:\n%s", data)
	}
}

func waitLog(t *testing.T, log *syncBuf, s string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(log.String(), s) {
		if time.Now().After(deadline) {
			t.Fatalf("log never said %q:\n%s", s, log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// overlap: skip drops firings while the schedule's run is busy; queue
// runs once more after it (several firings coalesce into one).
func TestScheduleOverlap(t *testing.T) {
	for _, tc := range []struct {
		overlap string
		runs    int
	}{{OverlapSkip, 1}, {OverlapQueue, 2}} {
		t.Run(tc.overlap, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "s.yaml"), shortScenario("s", 100, "700ms"))
			src := baseConfig(dir) + "schedules:\n  - {name: x, cron: \"0 0 1 1 *\", scenario: s.yaml, overlap: " + tc.overlap + "}\n"
			path := writeFile(t, filepath.Join(dir, "soakd.yaml"), src)
			env := getenv(map[string]string{"SOAKD_TEST_TOKEN": testToken})
			cfg, err := LoadConfig(path, env)
			if err != nil {
				t.Fatal(err)
			}
			d, err := New(cfg, Options{ConfigPath: path, Getenv: env})
			if err != nil {
				t.Fatal(err)
			}
			d.baseCtx, d.cancel = context.WithCancel(context.Background())
			defer d.cancel()
			d.conf.sched["x"] = &schedState{}
			for i := 0; i < 3; i++ {
				d.fire(cfg.Schedules[0])
			}
			deadline := time.Now().Add(10 * time.Second)
			for {
				d.mu.Lock()
				busy := d.conf.sched["x"].busy
				d.mu.Unlock()
				if !busy {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("schedule still busy")
				}
				time.Sleep(20 * time.Millisecond)
			}
			d.runsWG.Wait()
			list := d.hist.List()
			if len(list) != tc.runs {
				t.Errorf("%d runs, want %d", len(list), tc.runs)
			}
			wantSkipped := 0.0
			if tc.overlap == OverlapSkip {
				wantSkipped = 2
			}
			if got := testutil.ToFloat64(d.m.skipped.WithLabelValues("x")); got != wantSkipped {
				t.Errorf("soakd_schedule_skipped_total = %v, want %v", got, wantSkipped)
			}
			for _, e := range list {
				if e.State != StateCompleted || e.Source != "schedule:x" {
					t.Errorf("run %+v", e)
				}
			}
		})
	}
}

// TestSameScenarioRunsOneAtATime: two runs of one scenario started
// together go one after the other, and /metrics keeps answering while
// they are queued and running (their series would otherwise collide).
func TestSameScenarioRunsOneAtATime(t *testing.T) {
	dir := t.TempDir()
	// 3 s: /metrics is gathered at most once a second (metrics/scrape.go),
	// so a run must outlast a gather or two for a scrape to see its ops.
	writeFile(t, filepath.Join(dir, "same.yaml"), shortScenario("same", 200, "3s"))
	h := startDaemon(t, dir, baseConfig(dir), nil)
	var a, b Entry
	if code := h.do("POST", "/api/v1/runs", testToken, StartRequest{Scenario: "same.yaml"}, &a); code != 202 {
		t.Fatalf("POST run: %d", code)
	}
	if code := h.do("POST", "/api/v1/runs", testToken, StartRequest{Scenario: "same.yaml"}, &b); code != 202 {
		t.Fatalf("POST run: %d", code)
	}
	scrape := func() (int, string) {
		resp, err := http.Get(h.base + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	deadline := time.Now().Add(20 * time.Second)
	sawBoth := false
	for time.Now().Before(deadline) {
		var va, vb RunView
		h.do("GET", "/api/v1/runs/"+a.ID, "", nil, &va)
		h.do("GET", "/api/v1/runs/"+b.ID, "", nil, &vb)
		if va.State == StateRunning && vb.State == StateRunning || vb.State == StateRunning && va.State == StateQueued {
			// The two reads are not one moment: a may have ended (and b
			// started) between them. a in the same state after b's read
			// means it was in it then too.
			var again RunView
			h.do("GET", "/api/v1/runs/"+a.ID, "", nil, &again)
			if again.State == va.State {
				t.Fatalf("both runs of one scenario running: %s %s", va.State, vb.State)
			}
			continue
		}
		if (va.State == StateRunning) != (vb.State == StateRunning) {
			code, body := scrape()
			if code != 200 {
				t.Fatalf("/metrics while one runs and one waits: %d\n%.300s", code, body)
			}
			sawBoth = sawBoth || strings.Contains(body, `soakd_ops_total{`)
		}
		if va.State == StateCompleted && vb.State == StateCompleted {
			if vb.Start.Before(*va.End) {
				t.Errorf("second run started %s, before the first ended %s", vb.Start, va.End)
			}
			if !sawBoth {
				t.Error("never scraped one run's ops while the other waited")
			}
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("runs did not both complete")
}

// TestParseConfigUnknownKeyAndBadValueTogether: an unknown key and a value
// Validate refuses come back from one ParseConfig, each with its line; a
// mistyped value draws no follow-on problem for the zero it decoded to.
func TestParseConfigUnknownKeyAndBadValueTogether(t *testing.T) {
	src := "token_env: T\nmax_concurent: 3\nmax_queued: -1\nmax_concurrent: many\n"
	_, err := ParseConfig("x.yaml", []byte(src), getenv(nil))
	var ps scenarios.Problems
	if !errors.As(err, &ps) {
		t.Fatalf("want Problems, got %v", err)
	}
	found := map[int]bool{}
	for _, p := range ps {
		switch {
		case p.Line == 2 && strings.Contains(p.Msg, `unknown key "max_concurent"`):
			found[2] = true
		case p.Line == 3 && p.Field == "max_queued":
			found[3] = true
		case p.Line == 4 && strings.Contains(p.Msg, "many"):
			found[4] = true
		case p.Field == "max_concurrent":
			t.Errorf("follow-on problem for a mistyped field: %v", p)
		}
	}
	if !found[2] || !found[3] || !found[4] {
		t.Errorf("want problems on lines 2, 3 and 4, got\n%v", ps)
	}
}
