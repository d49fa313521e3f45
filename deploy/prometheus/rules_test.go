// Package prometheus holds no Go code of its own: this test checks the
// shipped Prometheus config and rules with promtool.
package prometheus

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/soakd/soakd/internal/testutil"
)

func promtool(t *testing.T, args ...string) {
	t.Helper()
	bin := testutil.NeedTool(t, "promtool")
	cmd := exec.Command(bin, args...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("promtool %v: %v\n%s", args, err, out)
	}
}

func TestCheckConfig(t *testing.T) { promtool(t, "check", "config", "prometheus.yml") }

func TestCheckRules(t *testing.T) {
	files, _ := filepath.Glob("rules/*.yml")
	if len(files) < 2 {
		t.Fatalf("rule files: %v", files)
	}
	promtool(t, append([]string{"check", "rules"}, files...)...)
}

func TestRuleUnitTests(t *testing.T) {
	files, _ := filepath.Glob("tests/*.yml")
	if len(files) < 2 {
		t.Fatalf("rule test files: %v", files)
	}
	promtool(t, append([]string{"test", "rules"}, files...)...)
}
