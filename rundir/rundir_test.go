package rundir

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// A summary written is read back as written; its checks keep their
// metric, percentile and comparison kind; no temp file is left behind.
func TestWriteReadSummary(t *testing.T) {
	dir := t.TempDir()
	c := Check{Phase: "steady", Op: "read", What: "latency p95", Metric: Latency, Percentile: 95, Cmp: AtMost, Limit: 0.005, Actual: 0.004, Passed: true}
	s := &Summary{SchemaVersion: SchemaVersion, Scenario: "sc", Shard: Shard{Count: 1}, Status: StatusCompleted,
		Phases: []PhaseResult{{Name: "steady", Kind: "steady", SLO: &Verdict{Passed: true, Checks: []Check{c}}}},
		SLO:    Verdict{Passed: true, Checks: []Check{c}}}
	if err := Write(dir, s, "table\n"); err != nil {
		t.Fatal(err)
	}
	back, err := ReadSummary(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Phases[0].SLO.Checks[0], c) || !reflect.DeepEqual(back.SLO, s.SLO) {
		t.Errorf("read back %+v", back.Phases[0].SLO)
	}
	if txt, _ := os.ReadFile(filepath.Join(dir, SummaryTextFile)); string(txt) != "table\n" {
		t.Errorf("summary.txt %q", txt)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temp file left: %s", e.Name())
		}
	}
	bad := filepath.Join(t.TempDir(), SummaryFile)
	if err := os.WriteFile(bad, []byte(`{"schema_version": 2}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadSummary(filepath.Dir(bad)); err == nil || !strings.Contains(err.Error(), "schema_version 2") {
		t.Errorf("schema 2 read: %v", err)
	}
}

// Checks of a summary.json written before they carried a metric and a
// comparison kind are upgraded at read.
func TestReadUpgradesOldChecks(t *testing.T) {
	dir := t.TempDir()
	old := `{"schema_version": 1, "scenario": "sc", "status": "completed", "phases": [{"name": "cap", "kind": "capacity",
  "slo": {"passed": false, "checks": [{"phase": "cap", "what": "highest_rate_held", "limit": 0, "actual": 0, "passed": false}]}}],
  "slo": {"passed": false, "checks": [{"phase": "p", "op": "get", "what": "latency p99.9", "limit": 0.01, "actual": 0.02, "passed": false}]}}`
	if err := os.WriteFile(filepath.Join(dir, SummaryFile), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := ReadSummary(dir)
	if err != nil {
		t.Fatal(err)
	}
	if c := s.Phases[0].SLO.Checks[0]; c.Metric != HighestRateHeld || c.Cmp != Above {
		t.Errorf("capacity check %+v", c)
	}
	if c := s.SLO.Checks[0]; c.Metric != Latency || c.Percentile != 99.9 || c.Cmp != AtMost {
		t.Errorf("latency check %+v", c)
	}
}

func TestParseShard(t *testing.T) {
	for in, want := range map[string]string{"": "0/1", "1/4": "1/4", " 3/4 ": "3/4"} {
		if sh, err := ParseShard(in); err != nil || sh.String() != want {
			t.Errorf("ParseShard(%q) = %v, %v", in, sh, err)
		}
	}
	for _, in := range []string{"4/4", "-1/2", "x", "1/0"} {
		if _, err := ParseShard(in); err == nil {
			t.Errorf("ParseShard(%q) accepted", in)
		}
	}
}
