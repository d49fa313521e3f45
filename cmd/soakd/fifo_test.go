package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/report"
	"github.com/soakd/soakd/rundir"
)

// mkfifo makes a FIFO at dir/name; nothing ever writes to it.
func mkfifo(t *testing.T, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}
	return p
}

// TestFIFOInputsRefused: every command that reads a file refuses a FIFO
// at once with exit 2 and an error naming it, instead of blocking in
// open(2) where SIGINT cannot reach it.
func TestFIFOInputsRefused(t *testing.T) {
	dir := t.TempDir()
	scen := mkfifo(t, dir, "scenario.yaml")
	conf := mkfifo(t, dir, "soakd.yaml")
	runA := filepath.Join(dir, "a")
	sumA := mkfifo(t, runA, rundir.SummaryFile)
	good := filepath.Join(dir, "good")
	writeSummary(t, good, 0.005)
	// A FIFO as a scenario's corpus or capture: refused by name too.
	docs := mkfifo(t, dir, "docs.ndjson")
	withCorpus := filepath.Join(dir, "corpus.yaml")
	capt := mkfifo(t, dir, "capture.txt")
	withCapture := filepath.Join(dir, "capture.yaml")
	if err := os.WriteFile(withCorpus, []byte("name: c\ntarget: {kind: embedded}\nrecord: {source: docs.ndjson}\nphases: [{name: load, kind: load}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(withCapture, []byte("name: c\ntarget: {kind: embedded}\nphases: [{name: r, kind: replay, source: capture.txt}]\nslo: {latency: {GET: {p99: 1ms}}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		path string // named in the error
	}{
		{"run", []string{"run", scen, "--listen", ""}, scen},
		{"validate", []string{"validate", scen}, scen},
		{"validate corpus", []string{"validate", withCorpus}, docs},
		{"run corpus", []string{"run", withCorpus, "--listen", ""}, docs},
		{"validate capture", []string{"validate", withCapture}, capt},
		{"serve", []string{"serve", "--config", conf}, conf},
		{"report", []string{"report", runA}, sumA},
		{"compare baseline", []string{"compare", runA, good}, sumA},
		{"compare candidate", []string{"compare", good, runA}, sumA},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, _, errb := testApp(nil)
			done := make(chan int, 1)
			go func() { done <- a.Main(context.Background(), tc.args) }()
			select {
			case code := <-done:
				if code != exitRefused {
					t.Errorf("exit %d, want %d", code, exitRefused)
				}
				if msg := errb.String(); !strings.Contains(msg, tc.path) || !strings.Contains(msg, "FIFO") {
					t.Errorf("stderr does not name %s as a FIFO:\n%s", tc.path, msg)
				}
			case <-time.After(10 * time.Second):
				// Let the blocked open return so the test binary can end.
				if w, err := os.OpenFile(tc.path, os.O_WRONLY, 0); err == nil {
					w.Close()
				}
				t.Fatalf("soakd %s blocked on a FIFO", strings.Join(tc.args, " "))
			}
		})
	}
}

func writeSummary(t *testing.T, rd string, p99 float64) {
	t.Helper()
	s := &rundir.Summary{SchemaVersion: rundir.SchemaVersion, Scenario: "s", Status: rundir.StatusCompleted,
		Start: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		Phases: []rundir.PhaseResult{{Name: "steady", Kind: "steady", Result: rundir.Result{
			Ops: map[string]rundir.OpResult{"get": {Count: 100, Latency: metrics.Summary{Count: 100, P50: 0.001, P99: p99, P999: 0.02}}}}}}}
	if err := os.MkdirAll(rd, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := report.WriteRunDir(rd, s); err != nil {
		t.Fatal(err)
	}
}

// TestCompareHistoryNamesSkipped: compare --history names each run whose
// summary.json it could not read (corrupt, a FIFO) on stderr, and
// still reports over the others; a run without summary.json (still
// running) is not named.
func TestCompareHistoryNamesSkipped(t *testing.T) {
	dir := t.TempDir()
	for i := 0; i < 3; i++ {
		writeSummary(t, filepath.Join(dir, "runs", "ok-"+string(rune('a'+i))), 0.005)
	}
	corrupt := filepath.Join(dir, "runs", "corrupt", rundir.SummaryFile)
	if err := os.MkdirAll(filepath.Dir(corrupt), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(corrupt, []byte(`{"schema_version": 1, "phases": [`), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := mkfifo(t, filepath.Join(dir, "runs", "fifo"), rundir.SummaryFile)
	if err := os.MkdirAll(filepath.Join(dir, "runs", "running"), 0o755); err != nil {
		t.Fatal(err)
	}
	a, out, errb := testApp(nil)
	done := make(chan int, 1)
	go func() { done <- a.Main(context.Background(), []string{"compare", "--history", dir}) }()
	var code int
	select {
	case code = <-done:
	case <-time.After(10 * time.Second):
		if w, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			w.Close()
		}
		t.Fatal("compare --history blocked on a FIFO summary")
	}
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errb)
	}
	msg := errb.String()
	for _, p := range []string{corrupt, fifo} {
		if !strings.Contains(msg, "skipping "+p) {
			t.Errorf("stderr does not name the skipped %s:\n%s", p, msg)
		}
	}
	if strings.Contains(msg, "running") {
		t.Errorf("a run without summary.json was reported:\n%s", msg)
	}
	if !strings.Contains(msg, "2 run(s) left out") || !strings.HasPrefix(out.String(), "3 completed runs") {
		t.Errorf("want 3 runs read and 2 left out; stdout:\n%s\nstderr:\n%s", out, msg)
	}
}
