// Package prometheus holds no Go code of its own: this test checks the
// shipped Prometheus config and rules with promtool.
package prometheus

import (
	"os/exec"
	"path/filepath"
	"strings"
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

// The host's config (beside deploy/systemd/soakd.service) loads the same
// rules by the same relative paths.
func TestCheckHostConfig(t *testing.T) { promtool(t, "check", "config", "prometheus-host.yml") }

// The shipped Alertmanager config is valid, and pages and tickets reach
// their receivers.
func TestAlertmanagerConfig(t *testing.T) {
	bin := testutil.NeedTool(t, "amtool")
	const cfg = "../alertmanager/alertmanager.yml"
	if out, err := exec.Command(bin, "check-config", cfg).CombinedOutput(); err != nil {
		t.Fatalf("amtool check-config: %v\n%s", err, out)
	}
	for labels, want := range map[string]string{
		"severity=page":     "soakd-page",
		"severity=critical": "soakd-page",
		"severity=ticket":   "soakd-ticket",
		"severity=warning":  "soakd-ticket",
	} {
		out, err := exec.Command(bin, "config", "routes", "test", "--config.file="+cfg, "alertname=X", "scenario=s", "op=read", labels).Output()
		if err != nil || strings.TrimSpace(string(out)) != want {
			t.Errorf("amtool config routes test %s: %v %q, want %s", labels, err, out, want)
		}
	}
}

func TestCheckRules(t *testing.T) {
	files, _ := filepath.Glob("rules/*.yml")
	if len(files) < 3 {
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
