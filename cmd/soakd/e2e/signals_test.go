package e2e

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/soakd/soakd/rundir"
)

// closedPipe is the write end of a pipe whose reader has gone, like
// stdout of `soakd run ... | head -3` after head exits.
func closedPipe(t *testing.T) *os.File {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	t.Cleanup(func() { w.Close() })
	return w
}

// TestBinarySignalsAndClosedOutput runs the built binary: a run whose
// stdout and stderr are closed pipes completes and writes its run
// directory (exit 0); SIGHUP (also with the outputs closed, as when the
// terminal goes), SIGQUIT and SIGTERM end a run through the clean path
// like SIGINT: summary.json written, status interrupted, exit 1.
func TestBinarySignalsAndClosedOutput(t *testing.T) {
	bin := buildSoakd(t)
	dir := t.TempDir()
	short := write(t, dir, "short.yaml", "name: sig-short\nkeyspace: {records: 100}\nphases: [{name: s, kind: steady, rate: 50, duration: 1s, mix: {get: 100}}]\n")
	long := write(t, dir, "long.yaml", "name: sig-long\nkeyspace: {records: 100}\nphases: [{name: s, kind: steady, rate: 50, duration: 60s, mix: {get: 100}}]\n")
	for _, tc := range []struct {
		name     string
		file     string
		sig      os.Signal // nil: let it complete
		closed   bool      // stdout and stderr are closed pipes
		wantCode int
		status   string
	}{
		{"closed stdout and stderr", short, nil, true, exitOK, rundir.StatusCompleted},
		{"SIGHUP", long, syscall.SIGHUP, false, exitFailed, rundir.StatusInterrupted},
		{"SIGHUP, terminal gone", long, syscall.SIGHUP, true, exitFailed, rundir.StatusInterrupted},
		{"SIGQUIT", long, syscall.SIGQUIT, false, exitFailed, rundir.StatusInterrupted},
		{"SIGTERM", long, syscall.SIGTERM, false, exitFailed, rundir.StatusInterrupted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "run")
			cmd := exec.Command(bin, "run", tc.file, "--listen", "", "--out", out)
			var errb bytes.Buffer
			if tc.closed {
				w := closedPipe(t)
				cmd.Stdout, cmd.Stderr = w, w
			} else {
				cmd.Stdout, cmd.Stderr = &errb, &errb
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			if tc.sig != nil {
				// The run has started once its latency log exists.
				deadline := time.Now().Add(30 * time.Second)
				for {
					if _, err := os.Stat(filepath.Join(out, rundir.PartialLog)); err == nil {
						break
					}
					if time.Now().After(deadline) {
						cmd.Process.Kill()
						t.Fatalf("the run did not start\n%s", errb.String())
					}
					time.Sleep(20 * time.Millisecond)
				}
				if err := cmd.Process.Signal(tc.sig); err != nil {
					t.Fatal(err)
				}
			}
			var err error
			select {
			case err = <-done:
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("soakd did not end\n%s", errb.String())
			}
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
					t.Fatalf("killed by %v: the run was lost\n%s", ws.Signal(), errb.String())
				}
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tc.wantCode {
				t.Errorf("exit %d, want %d\n%s", code, tc.wantCode, errb.String())
			}
			s, err := rundir.ReadSummary(out)
			if err != nil {
				t.Fatalf("no summary: %v\n%s", err, errb.String())
			}
			if s.Status != tc.status {
				t.Errorf("status %q, want %q", s.Status, tc.status)
			}
			if !tc.closed && !strings.Contains(errb.String(), "soakd: wrote "+out) {
				t.Errorf("no 'wrote' line:\n%s", errb.String())
			}
		})
	}
}
