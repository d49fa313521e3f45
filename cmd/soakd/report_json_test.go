package main

import (
	"bufio"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/soakd/soakd/report"
	"github.com/soakd/soakd/rundir"
)

// TestReportJSON: `soakd report --json` prints one JSON line per run,
// holding summary.json's figures and the ones the table computes, the
// same as the text says: the verdict line, each phase's goodput, the
// capacity search's answer.
func TestReportJSON(t *testing.T) {
	dirs := []string{filepath.Join("..", "..", "report", "testdata", "report-capacity"), filepath.Join("..", "..", "report", "testdata", "report-growth")}
	a, out, errb := newApp()
	if code := a.Main(context.Background(), append([]string{"report", "--json"}, dirs...)); code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	sc := bufio.NewScanner(strings.NewReader(out.String()))
	sc.Buffer(nil, 16<<20)
	n := 0
	for ; sc.Scan(); n++ {
		var got struct {
			Dir     string         `json:"dir"`
			Summary rundir.Summary `json:"summary"`
			Figures report.Figures `json:"figures"`
		}
		if err := json.Unmarshal(sc.Bytes(), &got); err != nil {
			t.Fatalf("line %d: %v", n+1, err)
		}
		s, err := rundir.ReadSummary(dirs[n])
		if err != nil {
			t.Fatal(err)
		}
		text := report.Text(s)
		if got.Dir != dirs[n] || got.Summary.Scenario != s.Scenario || len(got.Summary.Phases) != len(s.Phases) {
			t.Errorf("line %d: dir %q scenario %q, %d phases", n+1, got.Dir, got.Summary.Scenario, len(got.Summary.Phases))
		}
		if !strings.HasSuffix(strings.TrimSpace(text), got.Figures.Verdict) {
			t.Errorf("verdict %q is not the text's last line", got.Figures.Verdict)
		}
		for i, pf := range got.Figures.Phases {
			p := s.Phases[i]
			if pf.Name != p.Name || pf.GoodputRate != p.Goodput() || pf.AchievedRate != p.AchievedRate {
				t.Errorf("phase %s: %+v", p.Name, pf)
			}
			if p.Capacity != nil && (pf.Capacity == nil || pf.Capacity.HighestRateHeld != p.Capacity.HighestRateHeld) {
				t.Errorf("phase %s: capacity %+v", p.Name, pf.Capacity)
			}
		}
	}
	if n != len(dirs) {
		t.Fatalf("%d JSON lines for %d runs:\n%s", n, len(dirs), out)
	}
	a, _, errb = newApp()
	if code := a.Main(context.Background(), []string{"report", "--json", "--html", "x.html", dirs[0]}); code == 0 || !strings.Contains(errb.String(), "--json") {
		t.Errorf("--json with --html: exit %d, %s", code, errb)
	}
}
