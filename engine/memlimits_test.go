package engine

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/soakd/soakd/report"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/targets"
)

// limitedTarget is the embedded store reporting memory limits, as the
// redis adapter does.
type limitedTarget struct {
	targets.Target
	ml *targets.MemoryLimits
}

func (t limitedTarget) MemoryLimits() *targets.MemoryLimits { return t.ml }

// TestMemoryLimitsInReports: the target's memory limits reach
// summary.json, summary.txt and report.html as one line.
func TestMemoryLimitsInReports(t *testing.T) {
	sc := scenario(t, `
keyspace: {records: 100}
phases:
  - {name: steady, kind: steady, rate: 200, duration: 1s, concurrency: 2, mix: {get: 100}}
`)
	tg, err := targets.Open(context.Background(), sc.Target, targets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	off := int64(0)
	ml := &targets.MemoryLimits{MaxMemoryBytes: 1 << 30, Policy: "noeviction", Managed: true, CgroupMemoryBytes: 256 << 20,
		CgroupNote: "cgroup memory cap not available: cgroup v2 has no memory controller; cgroup v1 memory not mounted", HostSwapBytes: &off}
	dir := t.TempDir()
	if _, err := runWritten(context.Background(), Options{Scenario: sc, Target: limitedTarget{tg, ml}, TargetKind: "embedded", OutDir: dir}); err != nil {
		t.Fatal(err)
	}
	const line = "memory limits: maxmemory 1.0 GB (noeviction); cgroup memory cap not available: cgroup v2 has no memory controller; cgroup v1 memory not mounted; host swap off"
	txt, err := os.ReadFile(filepath.Join(dir, "summary.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(txt), line+"\n") {
		t.Errorf("summary.txt lacks %q:\n%s", line, txt)
	}
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Target struct {
			MemoryLimits map[string]any `json:"memory_limits"`
		} `json:"target"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	got := raw.Target.MemoryLimits
	if got["max_memory_bytes"] != float64(1<<30) || got["cgroup_memory_bytes"] != float64(256<<20) || got["host_swap_bytes"] != 0.0 || got["policy"] != "noeviction" {
		t.Errorf("summary.json memory_limits = %v", got)
	}
	if _, ok := got["cgroup"]; ok {
		t.Errorf("cgroup version written though none was set: %v", got)
	}
	s, err := rundir.ReadSummary(dir)
	if err != nil {
		t.Fatal(err)
	}
	if h := string(report.ReportHTML([]*rundir.Summary{s}, nil)); !strings.Contains(h, "<p>"+line+"</p>") {
		t.Errorf("report.html lacks the memory limits line")
	}
}
