package daemon

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/soakd/soakd/report"
	"github.com/soakd/soakd/rundir"
)

// completedRunDir writes a run directory as the engine leaves a finished run.
func completedRunDir(t *testing.T, dataDir, id, scenario, url string, start time.Time, passed bool) {
	t.Helper()
	dir := filepath.Join(dataDir, "runs", id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	s := &rundir.Summary{SchemaVersion: rundir.SchemaVersion, Scenario: scenario, ScenarioFile: scenario + ".yaml",
		Status: rundir.StatusCompleted, Shard: rundir.Shard{Count: 1}, Start: start, End: start.Add(time.Minute),
		Target: rundir.TargetInfo{Kind: "redis", URL: url}, SLO: rundir.Verdict{Passed: passed}}
	if err := report.WriteRunDir(dir, s); err != nil {
		t.Fatal(err)
	}
}

// killedRunDir writes what a run killed mid-way leaves: only
// latency.hlog.partial, with intervals from start+1s to start+3s.
func killedRunDir(t *testing.T, dataDir, id string, start time.Time) {
	t.Helper()
	dir := filepath.Join(dataDir, "runs", id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, rundir.PartialLog))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lw := hdr.NewHistogramLogWriter(f)
	lw.OutputLogFormatVersion()
	lw.OutputStartTime(start.UnixMilli())
	lw.OutputBaseTime(start.UnixMilli())
	lw.SetBaseTime(start.UnixMilli())
	lw.OutputLegend()
	for i := 1; i <= 2; i++ {
		for _, kind := range []string{"latency", "service"} {
			h := hdr.New(1000, 3_600_000_000_000, 3)
			for v := int64(1); v <= 100; v++ {
				h.RecordValue(v * 10_000)
			}
			h.SetTag("steady.get." + kind)
			h.SetStartTimeMs(start.Add(time.Duration(i) * time.Second).UnixMilli())
			h.SetEndTimeMs(start.Add(time.Duration(i+1) * time.Second).UnixMilli())
			if err := lw.OutputIntervalHistogram(h); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// A full disk tore index.json; two runs completed and one was killed.
// The daemon starts anyway, says it rebuilt the index, and lists all
// three with their statuses, targets and times.
func TestCorruptIndexIsRebuiltFromRunDirs(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	completedRunDir(t, data, "20260301T100000Z-cache-1", "cache", "redis://h1:6379", t0, true)
	completedRunDir(t, data, "20260301T110000Z-cache-2", "cache", "redis://u:hunter2@h1:6379", t0.Add(time.Hour), false)
	killedRunDir(t, data, "20260301T120000Z-soak_a-3", t0.Add(2*time.Hour))
	os.MkdirAll(filepath.Join(data, "runs", "empty-dir"), 0o755)
	writeFile(t, filepath.Join(data, "index.json"), `{"schema_version":1,"runs":[{"id":"20260301T1000`)

	h := startDaemon(t, dir, baseConfig(dir), nil)
	var list struct{ Runs []Entry }
	if code := h.do("GET", "/api/v1/runs", "", nil, &list); code != 200 {
		t.Fatalf("GET /api/v1/runs: %d", code)
	}
	got := map[string]Entry{}
	for _, e := range list.Runs {
		got[e.ID] = e
	}
	if len(got) != 3 {
		t.Fatalf("listed %d runs, want 3: %+v", len(got), list.Runs)
	}
	c1, c2, k := got["20260301T100000Z-cache-1"], got["20260301T110000Z-cache-2"], got["20260301T120000Z-soak_a-3"]
	if c1.State != StateCompleted || c1.Scenario != "cache" || c1.SLOPassed == nil || !*c1.SLOPassed ||
		c1.Target == nil || c1.Target.Kind != "redis" || c1.Target.URL != "redis://h1:6379" ||
		c1.Start == nil || !c1.Start.Equal(t0) || c1.End == nil || !c1.End.Equal(t0.Add(time.Minute)) || c1.Source != SourceRecovered {
		t.Errorf("completed run 1 = %+v", c1)
	}
	if c2.State != StateCompleted || c2.SLOPassed == nil || *c2.SLOPassed || c2.Target == nil || strings.Contains(c2.Target.URL, "hunter2") {
		t.Errorf("completed run 2 = %+v (target %+v)", c2, c2.Target)
	}
	kStart, kEnd := t0.Add(2*time.Hour), t0.Add(2*time.Hour+3*time.Second)
	if k.State != StateKilled || k.Scenario != "soak_a" || k.Start == nil || !k.Start.Equal(kStart) || k.End == nil || !k.End.Equal(kEnd) {
		t.Errorf("killed run = %+v (start %v end %v), want killed, soak_a, %v..%v", k, k.Start, k.End, kStart, kEnd)
	}
	if list.Runs[0].ID != k.ID {
		t.Errorf("newest first: %s first", list.Runs[0].ID)
	}
	var v RunView
	if h.do("GET", "/api/v1/runs/"+k.ID, "", nil, &v); v.Summary == nil || v.Summary.Status != rundir.StatusKilled || len(v.Summary.Phases) != 1 {
		t.Errorf("killed run's summary from the partial log: %+v", v.Summary)
	}
	if !strings.Contains(h.log.String(), "rebuilt from the run directories, 3 runs recovered") {
		t.Errorf("log does not say the index was rebuilt:\n%s", h.log.String())
	}
	if _, err := os.Stat(filepath.Join(data, "index.json.corrupt")); err != nil {
		t.Errorf("the torn index was not kept aside: %v", err)
	}
	var idx indexFile
	b, _ := os.ReadFile(filepath.Join(data, "index.json"))
	if err := json.Unmarshal(b, &idx); err != nil || len(idx.Runs) != 3 {
		t.Errorf("rebuilt index.json: %v, %d runs", err, len(idx.Runs))
	}
}

// A run the index still shows running whose directory holds a summary
// finished after the last index write that worked: its summary wins.
// Directories the index lacks (a stale index) are added.
func TestStaleIndexTakesStatusFromRunDirs(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	completedRunDir(t, dir, "r1", "s", "redis://h:6379", t0, true)
	completedRunDir(t, dir, "r2", "s", "redis://h:6379", t0.Add(time.Hour), true)
	writeFile(t, filepath.Join(dir, "index.json"), `{"schema_version":1,"runs":[
 {"id":"r1","scenario":"s","source":"api","state":"running","created":"2026-03-01T10:00:00Z","start":"2026-03-01T10:00:00Z","dir":"runs/r1"}]}`)
	h, notes, err := OpenHistory(dir, t0.Add(2*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if e, _ := h.Get("r1"); e.State != StateCompleted || e.Source != "api" || e.End == nil || !e.End.Equal(t0.Add(time.Minute)) {
		t.Errorf("r1 = %+v, want completed from its summary", e)
	}
	if e, ok := h.Get("r2"); !ok || e.State != StateCompleted || e.Source != SourceRecovered {
		t.Errorf("r2 = %+v %v, want recovered", e, ok)
	}
	if !strings.Contains(strings.Join(notes, "\n"), "stale: 1 runs recovered") {
		t.Errorf("notes %q", notes)
	}
}

// index.json cannot be written (a directory sits where its temp file
// goes, as good as a full disk for the write): the daemon still starts,
// serves the history from memory, logs each failure, leaves the last
// whole index.json untouched, and writes it on the first change after
// the disk has room again.
func TestIndexWriteFailureKeepsOldIndexAndServing(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	completedRunDir(t, data, "r0", "old", "redis://h:6379", t0, true)
	old := `{"schema_version":1,"runs":[{"id":"r0","scenario":"old","source":"api","state":"completed","created":"2026-03-01T10:00:00Z","dir":"runs/r0"}]}`
	writeFile(t, filepath.Join(data, "index.json"), old)
	blocker := filepath.Join(data, ".index.json.tmp")
	if err := os.MkdirAll(filepath.Join(blocker, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "short.yaml"), shortScenario("short", 200, "300ms"))
	h := startDaemon(t, dir, baseConfig(dir), nil)
	if !strings.Contains(h.log.String(), "index write failed") {
		t.Errorf("start: the failed index write is not logged:\n%s", h.log.String())
	}
	var s Entry
	if code := h.do("POST", "/api/v1/runs", testToken, StartRequest{Scenario: "short.yaml"}, &s); code != 202 {
		t.Fatalf("POST run: %d", code)
	}
	h.waitState(s.ID, StateCompleted, 15*time.Second)
	var list struct{ Runs []Entry }
	if h.do("GET", "/api/v1/runs", "", nil, &list); len(list.Runs) != 2 {
		t.Errorf("listed %d runs, want 2", len(list.Runs))
	}
	if b, _ := os.ReadFile(filepath.Join(data, "index.json")); string(b) != old {
		t.Errorf("index.json changed while it could not be written:\n%s", b)
	}
	if n := strings.Count(h.log.String(), "index write failed"); n < 3 {
		t.Errorf("%d index write failures logged, want one per change (start, queued, running, finished)", n)
	}
	if _, err := os.Stat(filepath.Join(blocker, "x")); err != nil {
		t.Errorf("the failed write removed what was in its way: %v", err)
	}
	// Room again: the next change writes the whole index.
	os.RemoveAll(blocker)
	var s2 Entry
	if code := h.do("POST", "/api/v1/runs", testToken, StartRequest{Scenario: "short.yaml"}, &s2); code != 202 {
		t.Fatalf("POST run: %d", code)
	}
	h.waitState(s2.ID, StateCompleted, 15*time.Second)
	var idx indexFile
	b, _ := os.ReadFile(filepath.Join(data, "index.json"))
	if err := json.Unmarshal(b, &idx); err != nil || len(idx.Runs) != 3 {
		t.Errorf("index.json after the disk has room: %v, %d runs\n%s", err, len(idx.Runs), b)
	}
	for _, e := range idx.Runs {
		if e.ID == s.ID && (e.State != StateCompleted || e.Target == nil || e.Target.Kind != "embedded") {
			t.Errorf("run written while the index was blocked: %+v", e)
		}
	}
}
