package daemon

import (
	"encoding/json"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/report"
	"github.com/soakd/soakd/rundir"
)

// historyDir writes n completed runs of scenario s (and one interrupted
// one, which is skipped) under dir/runs; run i's get p99 is p99(i) with
// 5% seeded noise.
func historyDir(t *testing.T, n int, p99 func(i int) float64) string {
	t.Helper()
	return historyDirErrs(t, n, p99, func(int) int64 { return 0 })
}

// historyDirErrs is historyDir with errs(i) of run i's 100 gets failed.
func historyDirErrs(t *testing.T, n int, p99 func(i int) float64, errs func(i int) int64) string {
	t.Helper()
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 3))
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	write := func(id string, i int, status string) {
		noise := func(v float64) float64 { return v * (1 + 0.05*rng.NormFloat64()) }
		s := &rundir.Summary{SchemaVersion: rundir.SchemaVersion, Scenario: "s", Status: status,
			Start: start.Add(time.Duration(i) * 24 * time.Hour),
			Phases: []rundir.PhaseResult{{Name: "steady", Kind: "steady", Result: rundir.Result{AchievedRate: noise(1000),
				Ops: map[string]rundir.OpResult{"get": {Count: 100, Errors: map[string]int64{"timeout": errs(i)}, Latency: metrics.Summary{Count: 100,
					P50: noise(0.001), P99: noise(p99(i)), P999: noise(0.02)}}}}}}}
		rd := filepath.Join(dir, "runs", id)
		if err := os.MkdirAll(rd, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := report.WriteRunDir(rd, s); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < n; i++ {
		// Ids do not sort by time: runs are ordered by their start.
		write(string(rune('z'-i))+"-run", i, rundir.StatusCompleted)
	}
	write("interrupted", n, rundir.StatusInterrupted)
	return dir
}

func TestHistoryShifts(t *testing.T) {
	dir := historyDir(t, 16, func(i int) float64 {
		if i < 9 {
			return 0.005
		}
		return 0.012
	})
	runs, err := ReadHistory(dir, "")
	if err != nil || len(runs) != 16 {
		t.Fatalf("%d runs, %v", len(runs), err)
	}
	got := HistoryShifts(runs)
	if len(got) != 1 {
		t.Fatalf("shifts %v, want one (get p99 from run 9)", got)
	}
	s := got[0]
	t.Log(s)
	if s.Phase != "steady" || s.Op != "get" || s.Metric != rundir.MetricP99 || s.RunID != string(rune('z'-9))+"-run" ||
		math.Abs(s.Before-0.005) > 0.001 || math.Abs(s.After-0.012) > 0.002 || s.PValue > 0.005 {
		t.Errorf("shift %+v", s)
	}
	if runs, _ := ReadHistory(dir, "other"); len(runs) != 0 {
		t.Errorf("scenario filter: %d runs", len(runs))
	}

	// Errors: none in the first 9 runs, 5 of 100 gets from run 9 on.
	errRuns, _ := ReadHistory(historyDirErrs(t, 16, func(int) float64 { return 0.005 }, func(i int) int64 {
		if i < 9 {
			return 0
		}
		return 5
	}), "s")
	if got := HistoryShifts(errRuns); len(got) != 1 || got[0].Metric != rundir.MetricErrorRatio || got[0].Op != "get" ||
		got[0].RunID != string(rune('z'-9))+"-run" || got[0].Before != 0 || got[0].After != 0.05 {
		t.Errorf("error history: %v, want get error_ratio 0 -> 0.05 from run 9", got)
	} else if line := got[0].String(); !strings.Contains(line, "s steady get error_ratio: shift from run") || !strings.Contains(line, "0.00% errors -> 5.00% errors") {
		t.Errorf("line %q", line)
	}

	steady, _ := ReadHistory(historyDir(t, 16, func(int) float64 { return 0.005 }), "s")
	if got := HistoryShifts(steady); len(got) != 0 {
		t.Errorf("steady history: %v", got)
	}
}

// newShiftDaemon opens a daemon (not serving) over dataDir.
func newShiftDaemon(t *testing.T, dataDir string) *Daemon {
	t.Helper()
	env := map[string]string{"SOAKD_TEST_TOKEN": testToken}
	cfgPath := writeFile(t, filepath.Join(t.TempDir(), "soakd.yaml"),
		"listen: 127.0.0.1:0\ntoken_env: SOAKD_TEST_TOKEN\ndata_dir: "+dataDir+"\n")
	cfg, err := LoadConfig(cfgPath, getenv(env))
	if err != nil {
		t.Fatal(err)
	}
	d, err := New(cfg, Options{ConfigPath: cfgPath, Getenv: getenv(env)})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func getShiftsAPI(t *testing.T, d *Daemon, scenario string) ScenarioShifts {
	t.Helper()
	rec := httptest.NewRecorder()
	d.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/api/v1/shifts?scenario="+scenario, nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /api/v1/shifts: %d %s", rec.Code, rec.Body)
	}
	var v ScenarioShifts
	if err := json.Unmarshal(rec.Body.Bytes(), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// The daemon searches each scenario's run history for shifts: at start
// (runs recovered from their directories) and after each completed run.
// GET /api/v1/shifts names the run where the shift began (no token
// needed) and soakd_history_shifts counts it without run ids.
func TestDaemonHistoryShifts(t *testing.T) {
	step := func(i int) float64 {
		if i < 9 {
			return 0.005
		}
		return 0.012
	}
	d := newShiftDaemon(t, historyDir(t, 16, step))
	v := getShiftsAPI(t, d, "s")
	if v.Scenario != "s" || v.Runs != 16 || len(v.Shifts) != 1 {
		t.Fatalf("shifts %+v, want one over 16 runs", v)
	}
	s := v.Shifts[0]
	if s.Phase != "steady" || s.Op != "get" || s.Metric != rundir.MetricP99 || s.RunID != string(rune('z'-9))+"-run" ||
		s.Before >= s.After || s.PValue > 0.005 {
		t.Errorf("shift %+v", s)
	}
	g := d.m.historyShifts.WithLabelValues("s", "steady", "get", rundir.MetricP99, "up")
	if got := testutil.ToFloat64(g); got != 1 {
		t.Errorf("soakd_history_shifts = %v, want 1", got)
	}
	if n := testutil.CollectAndCount(d.m.historyShifts); n != 1 {
		t.Errorf("%d soakd_history_shifts series, want 1", n)
	}
	rec := httptest.NewRecorder()
	d.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if !strings.Contains(rec.Body.String(), `soakd_history_shifts{direction="up",metric="p99",op="get",phase="steady",scenario="s"} 1`) {
		t.Errorf("/metrics lacks the shift gauge")
	}
	if other := getShiftsAPI(t, d, "other"); len(other.Shifts) != 0 || other.Runs != 0 {
		t.Errorf("unknown scenario: %+v", other)
	}

	// A flat history: no shifts, no series.
	flat := newShiftDaemon(t, historyDir(t, 16, func(int) float64 { return 0.005 }))
	if v := getShiftsAPI(t, flat, "s"); v.Runs != 16 || len(v.Shifts) != 0 {
		t.Errorf("flat history: %+v", v)
	}
	if n := testutil.CollectAndCount(flat.m.historyShifts); n != 0 {
		t.Errorf("flat history: %d soakd_history_shifts series", n)
	}

	// Eight newer, slower runs: the search after a completed run sees
	// the new history and names the first of them.
	dir := flat.hist.dir
	start := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 8; i++ {
		id := "later-" + string(rune('a'+i))
		rd := filepath.Join(dir, "runs", id)
		if err := os.MkdirAll(rd, 0o755); err != nil {
			t.Fatal(err)
		}
		sum := &rundir.Summary{SchemaVersion: rundir.SchemaVersion, Scenario: "s", Status: rundir.StatusCompleted,
			Start: start.Add(time.Duration(i) * time.Hour),
			Phases: []rundir.PhaseResult{{Name: "steady", Kind: "steady", Result: rundir.Result{AchievedRate: 1000,
				Ops: map[string]rundir.OpResult{"get": {Count: 100, Latency: metrics.Summary{Count: 100,
					P50: 0.001, P99: 0.03 * (1 + 0.01*float64(i%3)), P999: 0.02}}}}}}}
		if err := report.WriteRunDir(rd, sum); err != nil {
			t.Fatal(err)
		}
		if err := flat.hist.Put(recoverEntry(rd, id)); err != nil {
			t.Fatal(err)
		}
	}
	flat.updateShifts("s")
	v = getShiftsAPI(t, flat, "s")
	if v.Runs != 24 || len(v.Shifts) == 0 {
		t.Fatalf("after 8 slower runs: %+v", v)
	}
	found := false
	for _, s := range v.Shifts {
		if s.Metric == rundir.MetricP99 && s.Op == "get" && s.RunID == "later-a" {
			found = true
		}
	}
	if !found {
		t.Errorf("no get p99 shift at later-a: %+v", v.Shifts)
	}
	if got := testutil.ToFloat64(flat.m.historyShifts.WithLabelValues("s", "steady", "get", rundir.MetricP99, "up")); got != 1 {
		t.Errorf("soakd_history_shifts after the step = %v, want 1", got)
	}
}

// TestDaemonShiftsAfterRealRuns: a served daemon over a history of 16
// runs of scenario s with get p99 at 2 s runs s four times against the
// embedded target (p99 of milliseconds; under 1 s even with -race on a
// busy host). After each completed run GET
// /api/v1/shifts counts it; after the fourth (segments need 3 runs on
// each side, and 4 make the step significant) it names the first real
// run as where get p99 shifted down, and soakd_history_shifts has it.
func TestDaemonShiftsAfterRealRuns(t *testing.T) {
	dir := t.TempDir()
	data := historyDir(t, 16, func(int) float64 { return 2 })
	writeFile(t, filepath.Join(dir, "s.yaml"), shortScenario("s", 200, "1s"))
	h := startDaemon(t, dir, "listen: 127.0.0.1:0\ntoken_env: SOAKD_TEST_TOKEN\ndata_dir: "+data+"\n", nil)
	shifts := func(runs int) ScenarioShifts {
		t.Helper()
		var v ScenarioShifts
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			v = ScenarioShifts{}
			if code := h.do("GET", "/api/v1/shifts?scenario=s", "", nil, &v); code != 200 {
				t.Fatalf("GET /api/v1/shifts: %d", code)
			}
			if v.Runs == runs {
				return v
			}
		}
		t.Fatalf("shifts over %d runs, want %d", v.Runs, runs)
		return v
	}
	if v := shifts(16); len(v.Shifts) != 0 {
		t.Fatalf("flat history: %+v", v.Shifts)
	}
	var first string
	var v ScenarioShifts
	for i := 0; i < 4; i++ {
		var e Entry
		if code := h.do("POST", "/api/v1/runs", testToken, StartRequest{Scenario: "s.yaml"}, &e); code != 202 {
			t.Fatalf("POST run: %d", code)
		}
		rv := h.waitState(e.ID, StateCompleted, 20*time.Second)
		if rv.Summary == nil || rv.Summary.Phases[0].Ops["get"].Latency.P99 >= 1 {
			t.Fatalf("run %d: %+v", i, rv.Summary)
		}
		if i == 0 {
			first = e.ID
		}
		v = shifts(17 + i)
	}
	var p99 *Shift
	for i, s := range v.Shifts {
		t.Log(s)
		if s.Phase == "steady" && s.Op == "get" && s.Metric == rundir.MetricP99 {
			p99 = &v.Shifts[i]
		}
	}
	if p99 == nil || p99.RunID != first || p99.Before < 1.5 || p99.After >= 1 || p99.PValue > 0.005 {
		t.Fatalf("get p99 shift %+v, want 2s -> under 1s from run %s", p99, first)
	}
	resp, err := http.Get(h.base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `soakd_history_shifts{direction="down",metric="p99",op="get",phase="steady",scenario="s"} 1`) {
		t.Errorf("/metrics lacks the p99 shift:\n%s", body)
	}
}
