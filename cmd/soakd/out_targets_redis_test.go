package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/soakd/soakd/internal/testutil"
	"github.com/soakd/soakd/rundir"
	redistarget "github.com/soakd/soakd/targets/redis"
)

// TestOutCheckedForEveryTargetFirst: with several --target, a target-N
// directory under --out that already holds a run is refused before the
// first target runs (a real redis-server, twice).
func TestOutCheckedForEveryTargetFirst(t *testing.T) {
	testutil.NeedTool(t, "redis-server")
	srv, err := redistarget.StartServer(context.Background(), redistarget.ServerConfig{Persistence: "none"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Stop() })
	dir := t.TempDir()
	sc := write(t, dir, "q.yaml", quickScenario)
	out := filepath.Join(dir, "multi")
	os.MkdirAll(filepath.Join(out, "target-2"), 0o755)
	write(t, filepath.Join(out, "target-2"), rundir.SummaryFile, "{}")
	a, stdout, errb := newApp()
	code := a.Main(context.Background(), []string{"run", sc, "--target", srv.URL(), "--target", srv.URL(), "--out", out, "--listen", "", "--quiet"})
	if code != 2 || !strings.Contains(errb.String(), filepath.Join(out, "target-2")+" already holds a run") || !strings.Contains(errb.String(), "nothing ran") {
		t.Errorf("exit %d, stderr %q", code, errb)
	}
	if _, err := os.Stat(filepath.Join(out, "target-1")); !os.IsNotExist(err) || stdout.Len() != 0 {
		t.Errorf("target-1 ran before the refusal (%v):\n%s", err, stdout)
	}
}
