package testutil

import "testing"

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
