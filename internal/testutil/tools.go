package testutil

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
)

// RequireToolsEnv names the variable .ci/run sets to 1: CI installs every
// external tool the tests use, so there a missing one fails the test
// instead of skipping it (a skipped test proves nothing and reads green).
const RequireToolsEnv = "SOAKD_REQUIRE_TOOLS"

// RequireTools reports whether SOAKD_REQUIRE_TOOLS=1 is set.
func RequireTools() bool { return os.Getenv(RequireToolsEnv) == "1" }

// Missing ends t because something it needs from the host (a binary, a
// jar, a module) is not installed: a skip normally, a failure under
// SOAKD_REQUIRE_TOOLS=1.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if RequireTools() {
		t.Fatalf("%s (%s=1: CI must have it)", msg, RequireToolsEnv)
	}
	t.Skip(msg)
}

// SkipLogEnv names the file HostSkip appends its skips to (make test
// sets it and prints the file at the end, so CI's output says what the
// host could not test).
const SkipLogEnv = "SOAKD_SKIP_LOG"

// HostSkip skips t for a property of the host that CI cannot install
// and tests must not turn on (host swap, a kernel without VmSwap, a
// non-root account): a skip even under SOAKD_REQUIRE_TOOLS=1, but never
// a silent one: with SOAKD_SKIP_LOG set, the test's name and the reason
// are appended to that file.
func HostSkip(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if p := os.Getenv(SkipLogEnv); p != "" {
		if f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			fmt.Fprintf(f, "%s: %s\n", t.Name(), msg)
			f.Close()
		}
	}
	t.Skip(msg)
}

// HostLacks ends t because the host does not offer a capability it
// needs (a memory cgroup, swap, root): like Missing, a skip normally
// and a failure under SOAKD_REQUIRE_TOOLS=1, where a capability CI's
// machines have must not quietly read green when it is gone.
func HostLacks(t testing.TB, format string, args ...any) {
	t.Helper()
	Missing(t, "host capability: "+format, args...)
}

// NeedTool returns the path of the first of names found on PATH; when
// none is, it calls Missing (skip, or fail under SOAKD_REQUIRE_TOOLS=1).
func NeedTool(t testing.TB, names ...string) string {
	t.Helper()
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	Missing(t, "%v not on PATH", names)
	return ""
}

// NeedFile returns path if it exists, else calls Missing (skip, or fail
// under SOAKD_REQUIRE_TOOLS=1). For installed files that are not on PATH
// (a jar, a redis module).
func NeedFile(t testing.TB, path string) string {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		Missing(t, "%s not installed: %v", path, err)
	}
	return path
}
