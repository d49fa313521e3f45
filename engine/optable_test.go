package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// runNamed runs sc on an embedded store with an exporter, as the daemon
// does, and returns the summary, the run directory and the op labels the
// exporter gave its series.
func runNamed(t *testing.T, sc *scenarios.Scenario) (*rundir.Summary, string, []string) {
	t.Helper()
	tg, err := targets.Open(context.Background(), sc.Target, targets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	exp := metrics.NewExporter(sc.Name, "0", targets.Classes(), nil)
	dir := memDir(t)
	sum, err := runWritten(context.Background(), Options{Scenario: sc, Target: tg, TargetKind: sc.Target.Kind, OutDir: dir, Exporter: exp})
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	if err := exp.Register(reg); err != nil {
		t.Fatal(err)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "op" && !slices.Contains(labels, l.GetValue()) {
					labels = append(labels, l.GetValue())
				}
			}
		}
	}
	slices.Sort(labels)
	return sum, dir, labels
}

// memDir is a run directory in memory (/dev/shm) where the host has one,
// else on disk: a run syncs its files, and on a busy disk that is most of
// a short run's time.
func memDir(t *testing.T) string {
	t.Helper()
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		if d, err := os.MkdirTemp("/dev/shm", "soakd-test-"); err == nil {
			t.Cleanup(func() { os.RemoveAll(d) })
			return d
		}
	}
	return t.TempDir()
}

// A daemon runs scenario after scenario in one process: 40 scenarios,
// each with two custom ops of its own names (80 names, more than the 64
// one process held before op tables were per run), all run, and
// every output names each run's ops by that run's names. (A run costs
// 25-140 ms here, most of it its histograms; scenarios'
// TestOpTablePerScenario builds the tables and mixes of 200 scenarios.)
func TestCustomOpNamesPerRun(t *testing.T) {
	t.Parallel()
	const runs = 40
	for i := range runs {
		put, get := fmt.Sprintf("put_%d", i), fmt.Sprintf("get_%d", i)
		sc := scenario(t, fmt.Sprintf(`
name: s%d
target: {kind: embedded}
keyspace: {records: 50}
ops:
  %s: {redis: [SET, "{key}", "v%d"]}
  %s: {redis: [GET, "{key}"], miss_when: nil}
phases:
  - {name: steady, kind: steady, rate: 0, requests: 40, concurrency: 2, mix: {%s: 50, %s: 50}}
slo:
  latency: {%s: {p99: 10s}}
`, i, put, i, get, put, get, get))
		sum, dir, labels := runNamed(t, sc)
		ops := sum.Phases[0].Ops
		if len(ops) != 2 || ops[put].Count+ops[get].Count != 40 || len(ops[put].Errors) > 0 || len(ops[get].Errors) > 0 {
			t.Fatalf("run %d: ops %+v", i, ops)
		}
		if want := []string{get, put}; !slices.Equal(labels, want) {
			t.Fatalf("run %d: exporter op labels %v, want %v", i, labels, want)
		}
		judged := false
		for _, c := range sum.SLO.Checks {
			judged = judged || (c.Op == get && c.Passed)
		}
		if !judged {
			t.Fatalf("run %d: no passed SLO check on %s: %+v", i, get, sum.SLO)
		}
		if i == 0 || i == runs-1 {
			for _, f := range []string{"latency.hlog", "histograms.hlog", "counts.csv", "summary.json"} {
				b, err := os.ReadFile(filepath.Join(dir, f))
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(string(b), put) || !strings.Contains(string(b), get) {
					t.Errorf("run %d: %s does not name %s and %s", i, f, put, get)
				}
			}
		}
	}
}

// Two scenarios with an op of the same name: its value in each run is
// that run's (shared is the second op of a, the first of b), and each
// run's outputs carry only its own ops, doing what its own template
// says.
func TestCustomOpSameNameTwoScenarios(t *testing.T) {
	a := scenario(t, `
name: a
target: {kind: embedded}
keyspace: {records: 1000000}
ops:
  aa: {redis: [SET, "a:{key}", "x"]}
  shared: {redis: [GET, "never:{key}"], miss_when: nil}
phases:
  - {name: steady, kind: steady, rate: 0, requests: 60, concurrency: 2, mix: {aa: 50, shared: 50}}
`)
	b := scenario(t, `
name: b
target: {kind: embedded}
keyspace: {records: 100}
ops:
  shared: {redis: [SET, "b:{key}", "y"], miss_when: nil}
  zz: {redis: [EXISTS, "b:{key}"]}
phases:
  - {name: steady, kind: steady, rate: 0, requests: 60, concurrency: 2, mix: {shared: 100}}
`)
	ta, _ := a.OpTable()
	tb, _ := b.OpTable()
	oa, _ := ta.Lookup("shared")
	ob, _ := tb.Lookup("shared")
	if oa == ob {
		t.Fatalf("shared is op %d in both tables; the test wants them apart", oa)
	}
	sa, _, la := runNamed(t, a)
	sb, _, lb := runNamed(t, b)
	// a's shared is a GET of keys never set: all misses.
	if s := sa.Phases[0].Ops["shared"]; s.Count == 0 || s.Misses != s.Count {
		t.Errorf("a: shared %+v, want every GET a miss", s)
	}
	// b's shared is a SET: never a miss. b runs no aa, and no zz.
	if s := sb.Phases[0].Ops["shared"]; s.Count != 60 || s.Misses != 0 {
		t.Errorf("b: shared %+v, want 60 SETs, no miss", s)
	}
	if _, ok := sb.Phases[0].Ops["aa"]; ok || len(sb.Phases[0].Ops) != 1 {
		t.Errorf("b's ops %v", slices.Sorted(mapKeys(sb.Phases[0].Ops)))
	}
	if !slices.Equal(la, []string{"aa", "shared"}) || !slices.Equal(lb, []string{"shared"}) {
		t.Errorf("exporter op labels: a %v, b %v", la, lb)
	}
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
