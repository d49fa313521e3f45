package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/soakd/soakd/rundir"
)

// TestPhaseErrorClosesLogs: a run that ends on a phase error (here a mix
// naming an unknown op, past validation) leaves its logs .partial, as a
// killed run's, and keeps no file of them open (a daemon runs on).
func TestPhaseErrorClosesLogs(t *testing.T) {
	sc := scenario(t, `
target: {kind: embedded}
keyspace: {records: 100}
phases:
  - {name: steady, kind: steady, rate: 100, duration: 1s, concurrency: 1, mix: {get: 100}}
`)
	sc.Phases[0].Mix = map[string]float64{"nope": 100}
	dir := t.TempDir()
	_, err := Run(context.Background(), Options{Scenario: sc, Target: &errorTarget{}, TargetKind: "fake", OutDir: dir, Interval: 100 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("Run error %v, want the unknown op", err)
	}
	for _, f := range []string{rundir.PartialLog, rundir.PartialCounts} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	for _, fd := range fds {
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && strings.HasPrefix(target, dir) {
			t.Errorf("fd %s still open on %s", fd.Name(), target)
		}
	}
}
