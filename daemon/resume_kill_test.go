package daemon

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/soakd/soakd/rundir"
)

// TestDaemonResumesKilledSoakRun: a daemon SIGKILLed in the middle of a
// soak's run leaves it with a checkpoint and no summary.json; the next
// daemon resumes that run, under its id and in its directory, before
// its soak starts anything new, and the run finishes completed with its
// seam recorded and every op accounted for: scheduled = completed +
// dropped + lost, per phase and per op.
func TestDaemonResumesKilledSoakRun(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "long.yaml"), shortScenario("long", 200, "5s"))
	data := filepath.Join(dir, "data")
	cfgBody := "listen: 127.0.0.1:0\ntoken_env: SOAKD_TEST_TOKEN\ndata_dir: " + data + "\nsoaks:\n  - {name: forever, scenario: long.yaml}\n"
	cfgPath := writeFile(t, filepath.Join(dir, "soakd.yaml"), cfgBody)
	runDir, ck := killSoakMidRun(t, data, cfgPath)
	id := filepath.Base(runDir)

	h := startDaemon(t, dir, cfgBody, nil)
	v := h.waitState(id, StateCompleted, 60*time.Second)
	waitLog(t, h.log, "run resumed")
	if !strings.Contains(h.log.String(), "run "+id+" was in progress when the daemon stopped: resuming it") {
		t.Errorf("the log does not say the run is resumed:\n%s", h.log)
	}
	s, err := rundir.ReadSummary(runDir)
	if err != nil {
		t.Fatal(err)
	}
	if v.Dir != "runs/"+id || v.Source != "soak:forever" || s.Status != rundir.StatusCompleted || s.Partial {
		t.Fatalf("resumed run: dir %q source %q status %s partial %v", v.Dir, v.Source, s.Status, s.Partial)
	}
	if len(s.Seams) != 1 || s.Seams[0].Phase != "steady" || !s.Seams[0].Down.Equal(ck.Written) || !s.Seams[0].Resumed.After(ck.Written) {
		t.Fatalf("seams %+v, want one in steady, down at the checkpoint %s", s.Seams, ck.Written)
	}
	// The run keeps its start: the summary's is the engine's, the
	// entry's the killed daemon's, both before the checkpoint.
	if !s.Start.Equal(ck.Start) || v.Start == nil || !v.Start.Before(ck.Written) {
		t.Errorf("start: summary %s, entry %v; want the killed run's %s", s.Start, v.Start, ck.Start)
	}
	p := s.Phases[0]
	if p.Scheduled != 1000 {
		t.Errorf("scheduled %d, want 5 s at 200 ops/s: the schedule is absolute, the downtime in it", p.Scheduled)
	}
	if int64(p.Scheduled) != p.Completed+p.Dropped+p.Lost || p.Lost != s.Seams[0].Lost || p.Lost <= 0 {
		t.Errorf("scheduled %d, completed %d + dropped %d + lost %d (seam lost %d)", p.Scheduled, p.Completed, p.Dropped, p.Lost, s.Seams[0].Lost)
	}
	for op, o := range p.Ops {
		if int64(o.Scheduled) != o.Count+o.Dropped+o.Lost || o.Scheduled == 0 {
			t.Errorf("op %s: scheduled %d, count %d + dropped %d + lost %d", op, o.Scheduled, o.Count, o.Dropped, o.Lost)
		}
	}
	// Nothing new of the soak started before the resumed run ended.
	for _, e := range h.getRuns() {
		if e.ID != id && e.Start != nil && s.End.After(*e.Start) {
			t.Errorf("run %s started at %s, before the resumed run ended at %s", e.ID, e.Start, s.End)
		}
	}
	txt, err := os.ReadFile(filepath.Join(runDir, rundir.SummaryTextFile))
	if err != nil || !strings.Contains(string(txt), "resumed once:") || !strings.Contains(string(txt), "accounting: scheduled 1000 = ") {
		t.Errorf("summary.txt does not show the seam and the accounting (%v):\n%s", err, txt)
	}
}

// killSoakMidRun serves cfgPath in a daemon process and SIGKILLs it once
// its soak's run has checkpointed a second into its steady phase: the
// run's directory and that checkpoint.
func killSoakMidRun(t *testing.T, data, cfgPath string) (string, *rundir.Checkpoint) {
	t.Helper()
	cmd, stderr := startDaemonProcess(t, cfgPath)
	defer cmd.Process.Kill()
	// Killed once the run has checkpointed inside its steady phase.
	runDir := waitSteadyCheckpoint(t, data, stderr.String)
	ck, err := rundir.ReadCheckpoint(runDir)
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if _, err := os.Stat(filepath.Join(runDir, rundir.SummaryFile)); err == nil {
		t.Fatal("the killed daemon's run has a summary.json: it finished before the kill")
	}
	return runDir, ck
}

// getRuns is the history as GET /api/v1/runs lists it.
func (h *harness) getRuns() []Entry {
	h.t.Helper()
	var out struct {
		Runs []Entry `json:"runs"`
	}
	h.do("GET", "/api/v1/runs", "", nil, &out)
	return out.Runs
}

// TestDaemonKilledRunNotResumed: when the killed run cannot be resumed
// (its scenario file changed while the daemon was down), the next
// daemon marks it as before resume existed, killed with what its log
// holds, says why in its entry and the log, and the soak starts anew.
func TestDaemonKilledRunNotResumed(t *testing.T) {
	dir := t.TempDir()
	scen := writeFile(t, filepath.Join(dir, "long.yaml"), shortScenario("long", 200, "5s"))
	data := filepath.Join(dir, "data")
	cfgBody := "listen: 127.0.0.1:0\ntoken_env: SOAKD_TEST_TOKEN\ndata_dir: " + data + "\nsoaks:\n  - {name: forever, scenario: long.yaml}\n"
	runDir, _ := killSoakMidRun(t, data, writeFile(t, filepath.Join(dir, "soakd.yaml"), cfgBody))
	id := filepath.Base(runDir)
	writeFile(t, scen, shortScenario("long", 300, "5s"))

	h := startDaemon(t, dir, cfgBody, nil)
	v := h.waitState(id, StateKilled, 30*time.Second)
	if !strings.Contains(v.Error, "not resumed: ") || !strings.Contains(v.Error, "the scenario changed") {
		t.Errorf("entry error %q does not say why the run was not resumed", v.Error)
	}
	waitLog(t, h.log, "run not resumed")
	s, err := rundir.ReadSummary(runDir)
	if err != nil || s.Status != rundir.StatusKilled || !s.Partial || len(s.Seams) != 0 {
		t.Fatalf("not resumed run's summary: %v %+v", err, s)
	}
	// The soak goes on with a new run.
	deadline := time.Now().Add(30 * time.Second)
	for {
		n := 0
		for _, e := range h.getRuns() {
			if e.ID != id && e.Source == "soak:forever" {
				n++
			}
		}
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the soak started no new run; log:\n%s", h.log)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
