package daemon

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/soakd/soakd/rundir"
)

// A soak with tick: sends each run's open-loop ops in ticks (the
// summary says so), and its runs keep the scenario's rate; changing the
// tick in a reload restarts the soak.
func TestSoakTick(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "soak.yaml"), shortScenario("soak", 200, "1s"))
	cfg := baseConfig(dir) + "soaks:\n  - {name: cheap, scenario: soak.yaml, tick: 20ms}\n"
	h := startDaemon(t, dir, cfg, nil)
	var done Entry
	deadline := time.Now().Add(30 * time.Second)
	for done.ID == "" {
		if time.Now().After(deadline) {
			t.Fatalf("no completed soak run\n%s", h.log.String())
		}
		var list struct{ Runs []Entry }
		h.do("GET", "/api/v1/runs", "", nil, &list)
		for _, e := range list.Runs {
			if e.Source == "soak:cheap" && e.State == StateCompleted {
				done = e
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	s, err := rundir.ReadSummary(filepath.Join(dir, "data", "runs", done.ID))
	if err != nil {
		t.Fatal(err)
	}
	ph := s.Phases[len(s.Phases)-1]
	if ph.TickSeconds != 0.02 || ph.TargetRate != 200 || ph.Scheduled != 200 {
		t.Fatalf("soak run %s: phase %s tick %vs, rate %v, scheduled %d; want 0.02 s ticks of the scenario's 200 ops/s, 200 ops", done.ID, ph.Name, ph.TickSeconds, ph.TargetRate, ph.Scheduled)
	}
	// A reload that changes the tick is a new soak.
	writeFile(t, h.cfg, baseConfig(dir)+"soaks:\n  - {name: cheap, scenario: soak.yaml, tick: 5ms}\n")
	h.reload <- nil
	waitLog(t, h.log, "soak stopped by reload")
}
