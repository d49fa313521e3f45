package report

import (
	"strings"
	"testing"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/rundir"
)

func suitePhaseResult(name, variant string, rate float64, completed int64, ops map[string]int64) rundir.PhaseResult {
	p := rundir.PhaseResult{Name: name, Kind: "steady", Variant: variant}
	p.AchievedRate, p.Completed = rate, completed
	p.Ops = map[string]rundir.OpResult{}
	for op, n := range ops {
		p.Ops[op] = rundir.OpResult{Count: n, Latency: metrics.Summary{P50: 0.0002, P99: 0.0015}}
	}
	return p
}

// TestSuiteTableColumns: a run with two persistence variants and a
// second run make three columns (A, B from the variants, C the run);
// a test the second run lacks shows "-", requests that differ (or are
// missing somewhere) show each column's, a mixed phase splits its rate by op count, and each ratio
// is the column's rps over A's.
func TestSuiteTableColumns(t *testing.T) {
	v := &rundir.Summary{Scenario: "aof", Status: rundir.StatusCompleted, Target: rundir.TargetInfo{Kind: "redis", Server: "redis 7.0.15, managed by soakd (persistence none)"}, Phases: []rundir.PhaseResult{
		suitePhaseResult("set[none]", "none", 40000, 100000, map[string]int64{"set": 100000}),
		suitePhaseResult("get[none]", "none", 50000, 100000, map[string]int64{"get": 100000}),
		suitePhaseResult("set[aof:everysec]", "aof:everysec", 30000, 100000, map[string]int64{"set": 100000}),
		suitePhaseResult("get[aof:everysec]", "aof:everysec", 55000, 100000, map[string]int64{"get": 100000}),
	}}
	o := &rundir.Summary{Scenario: "other", Status: rundir.StatusCompleted, Target: rundir.TargetInfo{Kind: "redis", URL: "redis://h:8888"}, Phases: []rundir.PhaseResult{
		suitePhaseResult("set", "", 10000, 4000, map[string]int64{"set": 1000, "get": 3000}),
	}}
	tb := BuildSuite(SuiteColumns([]string{"runs/aof", "runs/other"}, []*rundir.Summary{v, o}))
	if len(tb.Columns) != 3 || tb.Columns[1].Variant != "aof:everysec" || tb.Columns[2].Label != "C" {
		t.Fatalf("columns %+v", tb.Columns)
	}
	txt := tb.Text()
	t.Log("\n" + txt)
	for _, want := range []string{
		"B = runs/aof: aof, target redis (redis 7.0.15, managed by soakd), persistence aof:everysec",
		"C = runs/other: other, target redis redis://h:8888",
	} {
		if !strings.Contains(txt, want) {
			t.Errorf("legend lacks %q", want)
		}
	}
	rows := map[string][]string{}
	for _, line := range strings.Split(txt, "\n") {
		if f := strings.Fields(line); len(f) > 3 && (f[0] == "set" || f[0] == "get") {
			rows[f[0]+" "+f[1]] = f[2:]
		}
	}
	// requests, A rps p50 p99, B rps p50 p99, C rps p50 p99, B/A, B vs
	// A, C/A, C vs A (one round each: no interval)
	want := map[string][]string{
		"set set": {"100000/100000/1000", "40000.00", "0.200", "1.500", "30000.00", "0.200", "1.500", "2500.00*", "0.200", "1.500", "0.75", "no", "interval", "0.06", "no", "interval"},
		"get get": {"100000/100000/-", "50000.00", "0.200", "1.500", "55000.00", "0.200", "1.500", "-", "-", "-", "1.10", "no", "interval", "-", "-"},
		"set get": {"-/-/3000", "-", "-", "-", "-", "-", "-", "7500.00*", "0.200", "1.500", "-", "-", "-", "-"},
	}
	for k, w := range want {
		if strings.Join(rows[k], " ") != strings.Join(w, " ") {
			t.Errorf("row %s: %v, want %v", k, rows[k], w)
		}
	}
	if tb.Rows[0].Test != "set" || tb.Rows[1].Test != "get" {
		t.Errorf("rows out of run order: %+v", tb.Rows)
	}
}
