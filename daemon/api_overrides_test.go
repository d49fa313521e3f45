package daemon

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/soakd/soakd/rundir"
)

// lenientScenario: embedded target, one steady phase, an SLO any host
// holds (so an interrupted run's checks pass).
func lenientScenario(name string, rate int, dur string) string {
	return shortScenario(name, rate, dur) + "slo: {latency: {'*': {p99: 1m}}, max_dropped_ratio: 1}\n"
}

// listRuns is GET /api/v1/runs, by id.
func (h *harness) listRuns() map[string]RunItem {
	h.t.Helper()
	var list struct{ Runs []RunItem }
	h.do("GET", "/api/v1/runs", "", nil, &list)
	out := map[string]RunItem{}
	for _, r := range list.Runs {
		out[r.ID] = r
	}
	return out
}

// TestAPIStartTakesTheCLIOverrides: POST /api/v1/runs takes rate,
// duration, warmup, records, concurrency, seed and repeat (numbers or
// strings), refuses a bad one with the command line's one-line hint
// naming the field, and finds a bare scenario file name in the scenario
// directories (not next to the config). While the run runs, the run
// list shows its live phase and target rate.
func TestAPIStartTakesTheCLIOverrides(t *testing.T) {
	dir := t.TempDir()
	scDir := filepath.Join(dir, "scenarios")
	os.Mkdir(scDir, 0o755)
	writeFile(t, filepath.Join(scDir, "quick.yaml"), lenientScenario("quick", 100, "1m"))
	// The same name next to the config, outside scenario_dirs: not it.
	writeFile(t, filepath.Join(dir, "quick.yaml"), lenientScenario("wrong", 100, "1m"))
	h := startDaemon(t, dir, baseConfig(dir)+"scenario_dirs: ["+scDir+"]\n", nil)

	for _, c := range []struct {
		body string
		want string
	}{
		{`{"scenario": "quick.yaml", "rate": "5k"}`, `"rate": 5k: use a number like 5000`},
		{`{"scenario": "quick.yaml", "rate": -5}`, `"rate": -5: `},
		{`{"scenario": "quick.yaml", "rate": true}`, `"rate": true: use a number like 5000`},
		{`{"scenario": "quick.yaml", "duration": "30"}`, `"duration": 30: add a unit: 30s`},
		{`{"scenario": "quick.yaml", "duration": 30}`, `"duration": 30: add a unit: 30s`},
		{`{"scenario": "quick.yaml", "warmup": "soon"}`, `"warmup": soon: use a duration like 30s`},
		{`{"scenario": "quick.yaml", "tick": "5s"}`, `"tick": 5s: use 1ms to 1s`},
		{`{"scenario": "quick.yaml", "records": 0}`, `"records": 0: use a positive whole number`},
		{`{"scenario": "quick.yaml", "concurrency": "many"}`, `"concurrency": many: use a whole number like 32`},
		{`{"scenario": "quick.yaml", "repeat": 1000}`, `"repeat": 1000: use a whole number in 1..`},
		{`{"scenario": "quick.yaml", "seed": 1.5}`, `"seed": 1.5: use a whole number like 42`},
		{`{"scenario": "quick.yaml", "target": "ftp://u:pw@x"}`, `"target": ftp://u:xxxxx@x: unknown URL scheme`},
		{`{"scenario": "nope.yaml"}`, `no such file`},
	} {
		var e map[string]string
		code := h.post(c.body, &e)
		if code != 400 || !strings.HasPrefix(e["error"], c.want) && !strings.Contains(e["error"], c.want) {
			t.Errorf("%s: %d %q, want 400 with %q", c.body, code, e["error"], c.want)
		}
		if strings.Contains(e["error"], ":pw@") {
			t.Errorf("%s: password in %q", c.body, e["error"])
		}
	}
	if n := len(h.listRuns()); n != 0 {
		t.Errorf("refused starts left %d runs in the list", n)
	}

	// Numbers as strings or as numbers alike; 250/s for 2 s with no
	// warmup is 500 scheduled ops.
	var started Entry
	if code := h.post(`{"scenario": "quick.yaml", "rate": 250, "duration": "2s", "warmup": "0s", "tick": "100ms", "records": "50", "concurrency": 3, "seed": "7", "repeat": 1}`, &started); code != 202 {
		t.Fatalf("POST with overrides: %d", code)
	}
	if started.Scenario != "quick" || started.ScenarioFile != filepath.Join(scDir, "quick.yaml") {
		t.Errorf("bare name resolved to %s (%s), want the scenario dir's", started.ScenarioFile, started.Scenario)
	}
	var live RunItem
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && live.Phase == ""; time.Sleep(20 * time.Millisecond) {
		live = h.listRuns()[started.ID]
	}
	if live.State != StateRunning || live.Phase != "steady" || live.Rate != 250 {
		t.Errorf("run list while running: %+v, want running, phase steady, rate 250", live)
	}
	v := h.waitState(started.ID, StateCompleted, 20*time.Second)
	if v.Summary == nil || len(v.Summary.Phases) != 1 {
		t.Fatalf("summary %+v", v.Summary)
	}
	if p := v.Summary.Phases[0]; p.TargetRate != 250 || p.Scheduled != 500 || p.DurationSeconds != 2 || p.TickSeconds != 0.1 {
		t.Errorf("overrides not applied: target %v, %d scheduled over %.2fs in ticks of %vs, want 250, 500 over 2s in 0.1s ticks", p.TargetRate, p.Scheduled, p.DurationSeconds, p.TickSeconds)
	}
	if done := h.listRuns()[started.ID]; done.Phase != "" || done.Rate != 0 || done.SLOPassed == nil || !*done.SLOPassed {
		t.Errorf("finished run in the list: %+v", done)
	}
}

// post is POST /api/v1/runs with a raw JSON body and the token.
func (h *harness) post(body string, out any) int {
	h.t.Helper()
	var raw json.RawMessage = []byte(body)
	return h.do("POST", "/api/v1/runs", testToken, raw, out)
}

// TestInterruptedRunIsNotAFailedSLO: a run stopped through the API
// whose checks all held is listed as interrupted with checks_passed,
// never slo_passed: false; after a restart (the index rebuilt from the
// run directories) too.
func TestInterruptedRunIsNotAFailedSLO(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "long.yaml"), lenientScenario("long", 100, "30s"))
	h := startDaemon(t, dir, baseConfig(dir), nil)
	var started Entry
	if code := h.post(`{"scenario": "long.yaml", "warmup": "0s"}`, &started); code != 202 {
		t.Fatalf("POST: %d", code)
	}
	for deadline := time.Now().Add(10 * time.Second); h.listRuns()[started.ID].Phase == ""; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the run never reached its phase")
		}
	}
	// An interval of measured ops, so the checks have figures to judge.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var lv LiveView
		if h.do("GET", "/api/v1/runs/"+started.ID+"/live", "", nil, &lv) == 200 && lv.Achieved != nil && *lv.Achieved > 0 && lv.P99 != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the run never measured an interval")
		}
	}
	if code := h.do("POST", "/api/v1/runs/"+started.ID+"/stop", testToken, nil, nil); code != 202 {
		t.Fatalf("stop: %d", code)
	}
	v := h.waitState(started.ID, StateInterrupted, 15*time.Second)
	if v.Summary == nil || v.Summary.SLO.Passed || len(v.Summary.SLO.Checks) == 0 {
		t.Fatalf("the interrupted summary should hold checks and a run verdict of false: %+v", v.Summary)
	}
	check := func(when string, e RunItem) {
		t.Helper()
		if e.State != StateInterrupted || e.SLOPassed != nil || e.ChecksPassed == nil || !*e.ChecksPassed {
			t.Errorf("%s: listed as %+v, want interrupted, checks_passed true, no slo_passed", when, e.Entry)
		}
	}
	check("after stop", h.listRuns()[started.ID])
	raw := map[string]any{}
	h.do("GET", "/api/v1/runs/"+started.ID, "", nil, &raw)
	if _, ok := raw["slo_passed"]; ok {
		t.Errorf("GET run: slo_passed present: %v", raw["slo_passed"])
	}
	h.stop()
	os.Remove(filepath.Join(dir, "data", "index.json"))
	h = startDaemon(t, dir, baseConfig(dir), nil)
	check("recovered from the run dir", h.listRuns()[started.ID])
}

// TestSetVerdict: the entry's verdict fields for each kind of ending.
func TestSetVerdict(t *testing.T) {
	ok := rundir.Check{Passed: true}
	bad := rundir.Check{Passed: false}
	for _, c := range []struct {
		name        string
		s           rundir.Summary
		slo, checks string // "true", "false" or "-" (left out)
	}{
		{"completed, passed", rundir.Summary{Status: rundir.StatusCompleted, SLO: rundir.Verdict{Passed: true, Checks: []rundir.Check{ok}}}, "true", "-"},
		{"completed, failed", rundir.Summary{Status: rundir.StatusCompleted, SLO: rundir.Verdict{Checks: []rundir.Check{ok, bad}}}, "false", "-"},
		{"interrupted, checks held", rundir.Summary{Status: rundir.StatusInterrupted, SLO: rundir.Verdict{Checks: []rundir.Check{ok, ok}}}, "-", "true"},
		{"interrupted, a check failed", rundir.Summary{Status: rundir.StatusInterrupted, SLO: rundir.Verdict{Checks: []rundir.Check{ok, bad}}}, "false", "false"},
		{"interrupted before any check", rundir.Summary{Status: rundir.StatusInterrupted}, "-", "-"},
	} {
		e := Entry{}
		setVerdict(&e, &c.s)
		str := func(b *bool) string {
			if b == nil {
				return "-"
			}
			if *b {
				return "true"
			}
			return "false"
		}
		if str(e.SLOPassed) != c.slo || str(e.ChecksPassed) != c.checks {
			t.Errorf("%s: slo_passed %s checks_passed %s, want %s %s", c.name, str(e.SLOPassed), str(e.ChecksPassed), c.slo, c.checks)
		}
	}
}
