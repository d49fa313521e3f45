package daemon

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/soakd/soakd/rundir"
)

// A soak resumes its killed runs unless it says resume: false; a value
// that is not a boolean is refused with its file, line and field.
func TestSoakResumeConfig(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "ok.yaml"), shortScenario("ok", 100, "1s"))
	cfgPath := filepath.Join(dir, "soakd.yaml")
	c, err := ParseConfig(cfgPath, []byte("token_env: T\nsoaks:\n  - {name: a, scenario: ok.yaml}\n  - {name: b, scenario: ok.yaml, resume: false}\n  - {name: c, scenario: ok.yaml, resume: true}\n"), getenv(nil))
	if err != nil {
		t.Fatal(err)
	}
	if !c.Soaks[0].Resumes() || c.Soaks[1].Resumes() || !c.Soaks[2].Resumes() {
		t.Errorf("resumes: a %v b %v c %v, want true false true", c.Soaks[0].Resumes(), c.Soaks[1].Resumes(), c.Soaks[2].Resumes())
	}
	_, err = ParseConfig(cfgPath, []byte("token_env: T\nsoaks:\n  - name: a\n    scenario: ok.yaml\n    resume: sometimes\n"), getenv(nil))
	if err == nil || !strings.Contains(err.Error(), "soakd.yaml:5:") || !strings.Contains(err.Error(), "sometimes") {
		t.Errorf("resume: sometimes: %v", err)
	}
}

// resumeConfig has three soaks: resumed, a (never configured: runs of
// a soak gone), off (resume: false).
func resumeConfig(t *testing.T, dir string) *Config {
	t.Helper()
	writeFile(t, filepath.Join(dir, "ok.yaml"), shortScenario("ok", 100, "1s"))
	c, err := ParseConfig(filepath.Join(dir, "soakd.yaml"), []byte("token_env: T\ndata_dir: "+filepath.Join(dir, "data")+
		"\nsoaks:\n  - {name: resumed, scenario: ok.yaml}\n  - {name: off, scenario: ok.yaml, resume: false}\n  - {name: gone, scenario: ok.yaml}\n"), getenv(nil))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// At start, each soak that resumes keeps its newest unfinished run for
// its first run when the run's directory can be resumed; every other
// run a killed daemon left is marked as before, with why it was not
// resumed: its soak says resume: false or is gone, a newer run of its
// soak is resumed, its directory cannot be resumed. Schedules' and API
// runs are marked as before.
func TestOpenHistoryKeepsTheRunsToResume(t *testing.T) {
	dir := t.TempDir()
	cfg := resumeConfig(t, dir)
	cfg.Soaks = cfg.Soaks[:2] // "gone" is no longer configured
	data := filepath.Join(dir, "data")
	at := time.Date(2026, 4, 5, 6, 0, 0, 0, time.UTC)
	runs := []struct{ id, source string }{
		{"r-old", "soak:resumed"}, {"r-new", "soak:resumed"}, {"r-off", "soak:off"}, {"r-gone", "soak:gone"},
		{"r-sched", "schedule:nightly"}, {"r-api", "api"}, {"r-broken", "soak:broken"},
	}
	var idx []string
	for i, r := range runs {
		if err := os.MkdirAll(filepath.Join(data, "runs", r.id), 0o755); err != nil {
			t.Fatal(err)
		}
		created := at.Add(time.Duration(i) * time.Minute).Format(time.RFC3339)
		idx = append(idx, `{"id":"`+r.id+`","scenario":"ok","scenario_file":"ok.yaml","source":"`+r.source+`","state":"running","created":"`+created+`","start":"`+created+`","dir":"runs/`+r.id+`"}`)
	}
	writeFile(t, filepath.Join(data, "index.json"), `{"schema_version":1,"runs":[`+strings.Join(idx, ",")+`]}`)
	cfg.Soaks = append(cfg.Soaks, Soak{Name: "broken", Scenario: "ok.yaml"})
	resumable := func(d string) error {
		if filepath.Base(d) == "r-broken" {
			return errors.New("resume " + d + ": no checkpoint.json")
		}
		return nil
	}
	resumes := map[string]Entry{}
	h, notes, err := openHistory(data, at.Add(time.Hour), pickResumes(cfg, resumable, resumes))
	if err != nil {
		t.Fatal(err)
	}
	if len(resumes) != 1 || resumes["resumed"].ID != "r-new" {
		t.Fatalf("resumes %+v, want soak resumed's newest run r-new alone (notes %q)", resumes, notes)
	}
	if e, _ := h.Get("r-new"); e.State != StateRunning || e.End != nil {
		t.Errorf("the run to resume: %+v, want it left running", e)
	}
	if _, err := os.Stat(filepath.Join(data, "runs", "r-new", rundir.SummaryFile)); err == nil {
		t.Error("the run to resume got a summary.json: it could not be resumed any more")
	}
	for id, why := range map[string]string{
		"r-old":    "not resumed: a newer run of its soak is resumed instead",
		"r-off":    "not resumed: its soak off says resume: false",
		"r-gone":   "not resumed: its soak gone is no longer in the config",
		"r-broken": "not resumed: resume " + filepath.Join(data, "runs", "r-broken") + ": no checkpoint.json",
		"r-sched":  "the daemon stopped while this run was in progress",
		"r-api":    "the daemon stopped while this run was in progress",
	} {
		e, _ := h.Get(id)
		if e.State != StateInterrupted || !strings.Contains(e.Error, why) {
			t.Errorf("%s: state %s error %q, want interrupted with %q", id, e.State, e.Error, why)
		}
		if _, err := rundir.ReadSummary(filepath.Join(data, "runs", id)); err != nil {
			t.Errorf("%s: no summary: %v", id, err)
		}
	}
	if !strings.Contains(strings.Join(notes, "\n"), "run r-new was in progress when the daemon stopped: resuming it") {
		t.Errorf("notes %q do not say r-new is resumed", notes)
	}
}
