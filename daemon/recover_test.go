package daemon

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/soakd/soakd/report"
	"github.com/soakd/soakd/rundir"
)

// killHelperEnv makes the test binary a daemon serving the config the
// variable names, to be killed with SIGKILL by the test that started it.
const killHelperEnv = "SOAKD_TEST_KILLED_DAEMON"

// TestMain runs the test binary as a daemon to be killed when
// killHelperEnv is set (TestDaemonKill9Recovery's child), else the tests.
func TestMain(m *testing.M) {
	if cfgPath := os.Getenv(killHelperEnv); cfgPath != "" {
		killedDaemon(cfgPath)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// killedDaemon serves cfgPath until SIGKILL.
func killedDaemon(cfgPath string) {
	env := getenv(map[string]string{"SOAKD_TEST_TOKEN": testToken})
	cfg, err := LoadConfig(cfgPath, env)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	d, err := New(cfg, Options{ConfigPath: cfgPath, Getenv: env, Log: os.Stderr, checkpointEvery: time.Second})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	_ = d.Run(context.Background())
}

// partialIntervals counts the interval lines of a latency.hlog.partial.
func partialIntervals(path string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := sc.Text(); l != "" && l[0] != '#' && !strings.HasPrefix(l, "\"StartTimestamp\"") {
			n++
		}
	}
	return n
}

// A daemon killed with SIGKILL mid-run: the next start recovers the run
// with what it measured, read from latency.hlog.partial: its target,
// its phase with its kind and ops, status killed; the report says
// errors, drops and lag are unknown rather than 0.
func TestDaemonKill9Recovery(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "long.yaml"), shortScenario("long", 200, "60s"))
	data := filepath.Join(dir, "data")
	cfgPath := writeFile(t, filepath.Join(dir, "soakd.yaml"), "listen: 127.0.0.1:0\ntoken_env: SOAKD_TEST_TOKEN\ndata_dir: "+data+
		"\nsoaks:\n  - {name: forever, scenario: long.yaml}\n")
	cmd, stderr := startDaemonProcess(t, cfgPath)
	defer cmd.Process.Kill()
	var runDir string
	deadline := time.Now().Add(20 * time.Second)
	for {
		ms, _ := filepath.Glob(filepath.Join(data, "runs", "*", rundir.PartialLog))
		// Two ops kinds' worth of lines for at least 2 intervals.
		if len(ms) == 1 && partialIntervals(ms[0]) >= 4 {
			runDir = filepath.Dir(ms[0])
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the daemon's soak never logged intervals; its log:\n%s", stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if _, err := os.Stat(filepath.Join(runDir, rundir.SummaryFile)); err == nil {
		t.Fatal("a killed daemon's run has a summary.json before recovery")
	}

	h, notes, err := OpenHistory(data, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	id := filepath.Base(runDir)
	e, ok := h.Get(id)
	if !ok || e.State != StateKilled || e.Target == nil || e.Target.Kind != "embedded" || !strings.Contains(e.Error, rundir.PartialLog) {
		t.Fatalf("recovered entry %+v (notes %v)", e, notes)
	}
	s, err := rundir.ReadSummary(runDir)
	if err != nil {
		t.Fatal(err)
	}
	if s.Status != rundir.StatusKilled || !s.Partial || s.Target.Kind != "embedded" || s.Scenario != "long" || len(s.Phases) != 1 {
		t.Fatalf("recovered summary: status %s partial %v target %+v scenario %q phases %d", s.Status, s.Partial, s.Target, s.Scenario, len(s.Phases))
	}
	p := s.Phases[0]
	if p.Name != "steady" || p.Kind != "steady" || p.Ops["get"].Count == 0 || p.Ops["get"].Latency.P99 <= 0 || p.Completed == 0 {
		t.Errorf("recovered phase %+v", p)
	}
	txt := report.Text(s)
	for _, want := range []string{"phase steady (steady)", "errors unknown", "dropped unknown", "max lag unknown", "killed:"} {
		if !strings.Contains(txt, want) {
			t.Errorf("report lacks %q:\n%s", want, txt)
		}
	}
	if strings.Contains(txt, " 0 errors") || strings.Contains(txt, "(?)") {
		t.Errorf("report prints unknowns as 0 or the kind as (?):\n%s", txt)
	}
}

// A run dir from before run.json (only latency.hlog.partial) whose
// entry said running: the recovered summary takes the entry's scenario
// and target and the log's phases, the kind left unknown.
func TestRecoveryWithoutRunInfo(t *testing.T) {
	data := t.TempDir()
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	killedRunDir(t, data, "r1", start)
	writeFile(t, filepath.Join(data, "index.json"), `{"schema_version":1,"runs":[
 {"id":"r1","scenario":"s","scenario_file":"s.yaml","state":"running","created":"2026-01-02T03:04:05Z","start":"2026-01-02T03:04:05Z","dir":"runs/r1",
  "target":{"kind":"redis","url":"redis://db:6379/0"}}]}`)
	h, _, err := OpenHistory(data, start.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	e, _ := h.Get("r1")
	if e.State != StateKilled || e.End == nil || !e.End.Equal(start.Add(3*time.Second)) {
		t.Errorf("entry %+v, want killed ending at the log's last interval", e)
	}
	s, err := rundir.ReadSummary(filepath.Join(data, "runs", "r1"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Target.Kind != "redis" || s.Target.URL != "redis://db:6379/0" || s.Scenario != "s" || s.ScenarioFile != "s.yaml" || !s.Partial {
		t.Errorf("summary target %+v scenario %q file %q partial %v", s.Target, s.Scenario, s.ScenarioFile, s.Partial)
	}
	if len(s.Phases) != 1 || s.Phases[0].Name != "steady" || s.Phases[0].Ops["get"].Count != 200 {
		t.Fatalf("phases %+v", s.Phases)
	}
	if txt := report.Text(s); !strings.Contains(txt, "phase steady (unknown kind)") {
		t.Errorf("report:\n%s", txt)
	}
}

// startDaemonProcess starts this test binary as a daemon serving cfgPath
// (killHelperEnv), its stderr kept, for a test to SIGKILL.
func startDaemonProcess(t *testing.T, cfgPath string) (*exec.Cmd, *syncBuf) {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), killHelperEnv+"="+cfgPath)
	stderr := &syncBuf{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, stderr
}
