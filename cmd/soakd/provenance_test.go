package main

import (
	"context"
	"strings"
	"testing"

	"github.com/soakd/soakd/report"
	"github.com/soakd/soakd/rundir"
)

// compare refuses runs from unlike hosts, naming every difference, and
// compares them with a warning under --allow-unlike-hosts; what does not
// make runs unlike (the workload's hash, soakd's version, the load) is
// named as a note.
func TestCompareNamesHostDifferences(t *testing.T) {
	with := func(p99 float64, mod func(*rundir.Summary)) string {
		dir := runDir(t, p99)
		s, err := rundir.ReadSummary(dir)
		if err != nil {
			t.Fatal(err)
		}
		s.Target.Kind = "redis"
		mod(s)
		if err := report.WriteRunDir(dir, s); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	host := rundir.Host{Kernel: "6.1.0", CPUModel: "AMD EPYC", Cores: 2, THP: "madvise", MemTotalBytes: 24 << 30, LoadStart: 0.4, LoadEnd: 0.6}
	base := with(0.005, func(s *rundir.Summary) { h := host; s.Host = &h; s.ScenarioHash = "aaaa"; s.SoakdVersion = "v1" })
	other := with(0.005, func(s *rundir.Summary) {
		h := host
		h.CPUModel, h.Cores, h.LoadEnd = "Intel Xeon", 8, 9.5
		s.Host = &h
		s.ScenarioHash, s.SoakdVersion = "bbbb", "v2"
	})
	a, _, errb := testApp(nil)
	if code := a.Main(context.Background(), []string{"compare", base, other}); code != exitRefused {
		t.Fatalf("unlike hosts: exit %d, want %d:\n%s", code, exitRefused, errb)
	}
	// Each baseline run is named against the candidate.
	for _, want := range []string{base + `: cpu model "AMD EPYC" vs "Intel Xeon"`, "cores 2 vs 8", "--allow-unlike-hosts",
		"note: " + base + ": scenario hash aaaa vs bbbb", "soakd version v1 vs v2", "load 0.40-0.60 vs 0.40-9.50"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errb)
		}
	}
	a, out, errb := testApp(nil)
	if code := a.Main(context.Background(), []string{"compare", base, other, "--allow-unlike-hosts"}); code != exitOK ||
		!strings.Contains(errb.String(), "warning: unlike hosts") || !strings.Contains(out.String(), "within noise") {
		t.Errorf("--allow-unlike-hosts: exit %d, want 0 with a warning:\n%s\n%s", code, errb, out)
	}
	// Like hosts compare without a word about the host.
	same := with(0.005, func(s *rundir.Summary) { h := host; s.Host = &h; s.ScenarioHash = "aaaa"; s.SoakdVersion = "v1" })
	a, _, errb = testApp(nil)
	if code := a.Main(context.Background(), []string{"compare", base, same}); code != exitOK || strings.Contains(errb.String(), "host") {
		t.Errorf("like hosts: exit %d:\n%s", code, errb)
	}
}

// A run records where it ran, which workload (its hash) and which soakd.
func TestRunRecordsProvenance(t *testing.T) {
	dir := t.TempDir()
	sc := write(t, dir, "p.yaml", "keyspace: {records: 10}\nphases: [{kind: steady, rate: 50, duration: 1s, mix: {get: 100}}]\n")
	a, _, errb := newApp()
	if code := a.Main(context.Background(), []string{"run", sc, "--out", dir + "/r", "--listen", "", "--quiet"}); code != exitOK {
		t.Fatalf("exit %d\n%s", code, errb)
	}
	s, err := rundir.ReadSummary(dir + "/r")
	if err != nil {
		t.Fatal(err)
	}
	if s.Host == nil || s.Host.Cores < 1 || s.Host.Kernel == "" || s.Host.Arch == "" || len(s.ScenarioHash) != 16 || s.SoakdVersion == "" {
		t.Errorf("provenance: host %+v, scenario hash %q, soakd version %q", s.Host, s.ScenarioHash, s.SoakdVersion)
	}
}
