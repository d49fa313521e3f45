package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// soakd slo-rules writes the generator's rules for the scenarios named
// (files or directories), with the windows scaled on request, and refuses
// bad input with exit 2.
func TestSLORulesCommand(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a.yaml", "name: alpha\nkeyspace: {records: 100}\nphases: [{name: soak, kind: steady, rate: 100, duration: 1m, mix: {read: 100}}]\nslo: {latency: {'*': {p99: 5ms}}, max_error_ratio: 0.01}\n")
	write(t, dir, "b.yaml", quickScenario)
	out := filepath.Join(dir, "slo.yml")
	a, stdout, errb := newApp()
	if code := a.Main(context.Background(), []string{"slo-rules", "--out", out, "--daemon-url", "http://soak.example:9470", dir}); code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	rules, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`scenario: alpha`, `scenario: quick`, `slo: "p99 <= 5ms"`, `slo: "error ratio <= 0.01"`, "[1h]", "[3d]",
		`run_page: "http://soak.example:9470/#/scenario/{{ $labels.scenario }}/current"`} {
		if !strings.Contains(string(rules), want) {
			t.Errorf("rules lack %s", want)
		}
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout with --out: %q", stdout)
	}
	a, stdout, _ = newApp()
	if code := a.Main(context.Background(), []string{"slo-rules", "--window-scale", "60", filepath.Join(dir, "a.yaml")}); code != 0 ||
		!strings.Contains(stdout.String(), "[5s]") || !strings.Contains(stdout.String(), "[72m]") || strings.Contains(stdout.String(), "scenario: quick") {
		t.Errorf("--window-scale 60 of a.yaml: exit %d\n%s", code, stdout)
	}
	for _, args := range [][]string{{"slo-rules"}, {"slo-rules", "--window-scale", "0", dir}, {"slo-rules", filepath.Join(dir, "nope.yaml")},
		{"slo-rules", dir, filepath.Join(dir, "a.yaml")}} {
		a, _, errb := newApp()
		if code := a.Main(context.Background(), args); code != 2 || errb.Len() == 0 {
			t.Errorf("%v: exit %d %q, want 2 with a message", args, code, errb)
		}
	}
}
