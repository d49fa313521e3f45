package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/targets/embedded"
)

const reachYAML = `name: reach
target: {kind: redis, url: "redis://127.0.0.1:1/0?pool_size=3"}
record: {fields: 1, field_bytes: 3}
keyspace: {records: 100}
phases:
  - {name: set, kind: steady, concurrency: 2, requests: 200, mix: {set: 100}}
slo: {max_error_ratio: 0}
`

// TestRunTargetsReachableFirst: with several --target values, each is
// connected to before the first run starts: an unreachable second one
// exits 2 with nothing run (it was found after the first target's whole
// run). An empty --target is an error naming the flag (it silently used the
// scenario's target).
func TestRunTargetsReachableFirst(t *testing.T) {
	srv, err := embedded.Start(embedded.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dir := t.TempDir()
	sc := write(t, dir, "reach.yaml", reachYAML)

	out := filepath.Join(dir, "unreachable")
	a, stdout, errb := newApp()
	if code := a.Main(context.Background(), []string{"run", sc, "--target", srv.URL(), "--target", "redis://127.0.0.1:1", "--out", out, "--listen", "", "--quiet"}); code != 2 {
		t.Fatalf("exit %d, want 2\n%s", code, errb)
	}
	if !strings.Contains(errb.String(), "--target redis://127.0.0.1:1 unreachable") || !strings.Contains(errb.String(), "nothing ran") || stdout.Len() != 0 {
		t.Errorf("stderr %q stdout %q", errb, stdout)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a run directory was written before the targets were checked: %v", err)
	}

	for _, args := range [][]string{{"--target", ""}, {"--target", srv.URL(), "--target", " "}} {
		a, stdout, errb = newApp()
		full := append(append([]string{"run", sc}, args...), "--out", filepath.Join(dir, "empty"), "--listen", "", "--quiet")
		if code := a.Main(context.Background(), full); code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
		if !strings.Contains(errb.String(), "--target '': give a store URL") || stdout.Len() != 0 {
			t.Errorf("%q: stderr %q stdout %q", args, errb, stdout)
		}
	}
}

// TestRunTargetMergedAndPrinted: --target keeps the scenario URL's
// options (here the db and pool_size), and the run prints and records
// the effective URL.
func TestRunTargetMergedAndPrinted(t *testing.T) {
	srv, err := embedded.Start(embedded.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dir := t.TempDir()
	sc := write(t, dir, "reach.yaml", reachYAML)
	out := filepath.Join(dir, "run")
	a, stdout, errb := newApp()
	// Not --quiet: the start line names the target.
	if code := a.Main(context.Background(), []string{"run", sc, "--target", srv.URL(), "--out", out, "--listen", ""}); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, errb, stdout)
	}
	want := strings.TrimSuffix(srv.URL(), "/") + "/0?pool_size=3"
	if !strings.Contains(errb.String(), fmt.Sprintf("target: redis %s,", want)) {
		t.Errorf("stderr lacks the effective url %s:\n%s", want, errb)
	}
	s, err := rundir.ReadSummary(out)
	if err != nil {
		t.Fatal(err)
	}
	if s.Target.URL != want {
		t.Errorf("summary target %q, want %q", s.Target.URL, want)
	}
}
