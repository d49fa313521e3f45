package testutil

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// A tool that exists is found whatever SOAKD_REQUIRE_TOOLS says; the
// skip-or-fail choice follows the variable.
func TestNeedTool(t *testing.T) {
	if p := NeedTool(t, "no-such-tool-soakd", "go"); p == "" {
		t.Fatal("go not found on PATH")
	}
	t.Setenv(RequireToolsEnv, "")
	if RequireTools() {
		t.Fatal("RequireTools with the variable empty")
	}
	t.Setenv(RequireToolsEnv, "1")
	if !RequireTools() {
		t.Fatal("RequireTools false with the variable 1")
	}
}

// endRecorder is a testing.TB that records how Missing ended it.
type endRecorder struct {
	testing.TB
	skipped, failed string
}

func (e *endRecorder) Helper()          {}
func (e *endRecorder) Skip(args ...any) { e.skipped = args[0].(string); runtime.Goexit() }
func (e *endRecorder) Fatalf(format string, args ...any) {
	e.failed = format
	runtime.Goexit()
}

// end runs f on a goroutine of its own, as a test, and returns how it
// ended.
func end(f func(*endRecorder)) *endRecorder {
	e := &endRecorder{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(e)
	}()
	<-done
	return e
}

// A host capability that is not there skips the test, saying what it
// lacked, and fails it under SOAKD_REQUIRE_TOOLS=1.
func TestHostLacks(t *testing.T) {
	t.Setenv(RequireToolsEnv, "")
	e := end(func(e *endRecorder) { HostLacks(e, "no memory cgroup: %s", "v2 without the controller") })
	if e.skipped != "host capability: no memory cgroup: v2 without the controller" || e.failed != "" {
		t.Errorf("without the variable: skipped %q, failed %q", e.skipped, e.failed)
	}
	t.Setenv(RequireToolsEnv, "1")
	e = end(func(e *endRecorder) { HostLacks(e, "no swap") })
	if e.failed == "" || e.skipped != "" {
		t.Errorf("under %s=1: skipped %q, failed %q", RequireToolsEnv, e.skipped, e.failed)
	}
}

// HostSkip skips even under SOAKD_REQUIRE_TOOLS=1 and writes the test's
// name and reason to SOAKD_SKIP_LOG, so the skip is said in CI output.
func TestHostSkipIsLogged(t *testing.T) {
	log := filepath.Join(t.TempDir(), "skips")
	t.Setenv(SkipLogEnv, log)
	t.Setenv(RequireToolsEnv, "1")
	var skipped bool
	t.Run("sub", func(t *testing.T) {
		defer func() { skipped = t.Skipped() }()
		HostSkip(t, "host swap %d bytes", 0)
	})
	if !skipped {
		t.Fatal("HostSkip did not skip under SOAKD_REQUIRE_TOOLS=1")
	}
	b, err := os.ReadFile(log)
	if err != nil || string(b) != "TestHostSkipIsLogged/sub: host swap 0 bytes\n" {
		t.Errorf("skip log %q (%v)", b, err)
	}
}
