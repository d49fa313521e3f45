package daemon

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/soakd/soakd/rundir"
)

// TestDaemonStopSuspendsSoakRun: a daemon stopped cleanly (SIGTERM, as
// systemctl stop or a reboot sends it) in the middle of a soak's run
// suspends that run: no summary.json, the directory resumable, the
// entry still running. The next daemon resumes it under its id, and it
// finishes completed with one seam and every op accounted for. A soak
// that says resume: false ends interrupted, as before.
func TestDaemonStopSuspendsSoakRun(t *testing.T) {
	for _, tc := range []struct {
		name    string
		resume  string
		suspend bool
	}{{"resumes", "", true}, {"resume-false", ", resume: false", false}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "long.yaml"), shortScenario("long", 200, "5s"))
			data := filepath.Join(dir, "data")
			cfgBody := "listen: 127.0.0.1:0\ntoken_env: SOAKD_TEST_TOKEN\ndata_dir: " + data + "\nsoaks:\n  - {name: forever, scenario: long.yaml" + tc.resume + "}\n"
			h := startDaemon(t, dir, cfgBody, nil)
			runDir := waitSteadyCheckpoint(t, data, h.log.String)
			id := filepath.Base(runDir)
			h.stop()
			_, err := os.Stat(filepath.Join(runDir, rundir.SummaryFile))
			if !tc.suspend {
				s, rerr := rundir.ReadSummary(runDir)
				if rerr != nil || s.Status != rundir.StatusInterrupted {
					t.Fatalf("a soak with resume: false stopped: summary %v %+v, want interrupted", rerr, s)
				}
				return
			}
			if err == nil {
				t.Fatal("the stopped daemon's soak run wrote a summary.json: it was ended, not suspended")
			}
			waitLog(t, h.log, "run suspended")

			h2 := startDaemon(t, dir, cfgBody, nil)
			defer h2.stop()
			h2.waitState(id, StateCompleted, 60*time.Second)
			s, err := rundir.ReadSummary(runDir)
			if err != nil || s.Status != rundir.StatusCompleted || len(s.Seams) != 1 {
				t.Fatalf("resumed run: %v %+v", err, s)
			}
			p := s.Phases[0]
			if p.Scheduled != 1000 || int64(p.Scheduled) != p.Completed+p.Dropped+p.Lost || p.Lost != s.Seams[0].Lost {
				t.Errorf("scheduled %d, completed %d + dropped %d + lost %d (seam lost %d)", p.Scheduled, p.Completed, p.Dropped, p.Lost, s.Seams[0].Lost)
			}
		})
	}
}

// waitSteadyCheckpoint waits for the one run under data to checkpoint
// a second into its steady phase, and returns its directory; log is the
// daemon's, shown when it never does.
func waitSteadyCheckpoint(t *testing.T, data string, log func() string) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		ms, _ := filepath.Glob(filepath.Join(data, "runs", "*", rundir.CheckpointFile))
		if len(ms) == 1 {
			c, err := rundir.ReadCheckpoint(filepath.Dir(ms[0]))
			if err == nil && c.Current != nil && c.Current.Name == "steady" && c.Written.Sub(c.Current.Start) >= time.Second {
				return filepath.Dir(ms[0])
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the soak never checkpointed in its steady phase; the daemon's log:\n%s", log())
	return ""
}
