package daemon

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/soakd/soakd/report"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/verdict"
)

// HistoryMinRuns is the fewest runs on either side of a shift across a
// scenario's history.
const HistoryMinRuns = 3

// HistoryRun is one completed run of a history.
type HistoryRun struct {
	ID      string
	Summary *rundir.Summary
}

// Shift is a change point across a scenario's runs: from run RunID on,
// one phase's op (or the phase's achieved rate, Op "") moved.
type Shift struct {
	Scenario string    `json:"scenario"`
	Phase    string    `json:"phase"`
	Op       string    `json:"op,omitempty"`
	Metric   string    `json:"metric"` // p50, p99, p99.9 (seconds), rate (achieved ops/s) or error_ratio (errors / count)
	RunID    string    `json:"run_id"` // the first run after the shift
	At       time.Time `json:"at"`     // that run's start
	Before   float64   `json:"before"`
	After    float64   `json:"after"`
	PValue   float64   `json:"p_value"`
	// BeforeRuns and AfterRuns are how many runs Before and After are
	// the medians of.
	BeforeRuns int `json:"before_runs"`
	AfterRuns  int `json:"after_runs"`
}

func (s Shift) String() string {
	what := s.Phase + " " + s.Op + " " + s.Metric
	f := func(v float64) string { return fmt.Sprintf("%.6gs", v) }
	switch s.Metric {
	case rundir.MetricRate:
		what = s.Phase + " achieved rate"
		f = func(v float64) string { return fmt.Sprintf("%.1f ops/s", v) }
	case rundir.MetricErrorRatio:
		f = func(v float64) string { return fmt.Sprintf("%.2f%% errors", 100*v) }
	}
	return fmt.Sprintf("%s %s: shift from run %s (%s): %s -> %s (%s, %d vs %d runs)", s.Scenario, what, s.RunID,
		s.At.Format(time.RFC3339), f(s.Before), f(s.After), report.PValueText(s.PValue), s.BeforeRuns, s.AfterRuns)
}

// HistoryShifts runs the in-run change-point detector over each
// scenario's runs in start order: per phase and op p50, p99, p99.9 and
// the error ratio (errors over completed ops; with the in-run 1-point
// floor, so a run's stray error is no shift), and per phase the
// achieved rate. Runs that lack a phase or op are left out of that
// series.
func HistoryShifts(runs []HistoryRun) []Shift {
	runs = append([]HistoryRun(nil), runs...)
	sort.SliceStable(runs, func(i, j int) bool { return runs[i].Summary.Start.Before(runs[j].Summary.Start) })
	type key struct{ scenario, phase, op, metric string }
	type series struct {
		xs  []float64
		run []int
	}
	all := map[key]*series{}
	var keys []key
	add := func(k key, v float64, ri int) {
		s := all[k]
		if s == nil {
			s = &series{}
			all[k] = s
			keys = append(keys, k)
		}
		s.xs = append(s.xs, v)
		s.run = append(s.run, ri)
	}
	for ri, r := range runs {
		for _, p := range r.Summary.Phases {
			if p.AchievedRate > 0 {
				add(key{r.Summary.Scenario, p.Name, "", rundir.MetricRate}, p.AchievedRate, ri)
			}
			for _, op := range sortedOps(p.Ops) {
				l := p.Ops[op].Latency
				if p.Ops[op].Count == 0 {
					continue
				}
				add(key{r.Summary.Scenario, p.Name, op, rundir.MetricP50}, l.P50, ri)
				add(key{r.Summary.Scenario, p.Name, op, rundir.MetricP99}, l.P99, ri)
				add(key{r.Summary.Scenario, p.Name, op, rundir.MetricP999}, l.P999, ri)
				var errs int64
				for _, n := range p.Ops[op].Errors {
					errs += n
				}
				add(key{r.Summary.Scenario, p.Name, op, rundir.MetricErrorRatio}, float64(errs)/float64(p.Ops[op].Count), ri)
			}
		}
	}
	var out []Shift
	for _, k := range keys {
		s := all[k]
		o := verdict.ChangeOptions{MinSize: HistoryMinRuns}
		if k.metric == rundir.MetricErrorRatio {
			o = verdict.RunChangeOptions(k.metric)
			o.MinSize = HistoryMinRuns
		}
		for _, c := range verdict.Detect(s.xs, o) {
			r := runs[s.run[c.Index]]
			out = append(out, Shift{Scenario: k.scenario, Phase: k.phase, Op: k.op, Metric: k.metric, RunID: r.ID,
				At: r.Summary.Start, Before: c.Before, After: c.After, PValue: c.PValue, BeforeRuns: c.BeforeN, AfterRuns: c.AfterN})
		}
	}
	return out
}

func sortedOps(m map[string]rundir.OpResult) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// ReadHistory reads the completed runs of a daemon's data_dir (or any
// directory of run directories: DIR/runs/<id>/summary.json, else
// DIR/<id>/summary.json) without writing to it. scenario, when not
// empty, keeps only that scenario's runs.
func ReadHistory(dir, scenario string) ([]HistoryRun, error) {
	return ReadHistoryReporting(dir, scenario, nil)
}

// ReadHistoryReporting is ReadHistory that tells skipped about each run
// directory whose summary.json it could not read (corrupt, truncated, a
// FIFO, another schema): those runs are left out of the history, and
// the user should know which. A directory without summary.json (a run
// still going, or killed) is skipped silently. skipped may be nil.
func ReadHistoryReporting(dir, scenario string, skipped func(path string, err error)) ([]HistoryRun, error) {
	root := filepath.Join(dir, "runs")
	if st, err := os.Stat(root); err != nil || !st.IsDir() {
		root = dir
	}
	ents, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	var out []HistoryRun
	for _, e := range ents {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		s, err := rundir.ReadSummary(filepath.Join(root, e.Name()))
		if err != nil && skipped != nil && !errors.Is(err, os.ErrNotExist) {
			skipped(filepath.Join(root, e.Name(), rundir.SummaryFile), err)
		}
		if err != nil || s.Status != rundir.StatusCompleted || (scenario != "" && s.Scenario != scenario) {
			continue
		}
		out = append(out, HistoryRun{ID: e.Name(), Summary: s})
	}
	return out, nil
}

// daemonShiftRuns bounds the history the daemon searches for shifts:
// the scenario's last completed runs.
const daemonShiftRuns = 200

// ScenarioShifts is GET /api/v1/shifts?scenario=NAME: the shifts found in
// the scenario's last completed runs (Runs of them), oldest first.
type ScenarioShifts struct {
	Scenario string  `json:"scenario"`
	Runs     int     `json:"runs"`
	Shifts   []Shift `json:"shifts"`
}

// historyRuns returns the last n completed runs of scenario from the
// daemon's own history (index entries and their summary.json).
func (h *History) historyRuns(scenario string, n int) []HistoryRun {
	var out []HistoryRun
	for _, e := range h.List() { // newest first
		if len(out) >= n {
			break
		}
		if e.Scenario != scenario || e.State != StateCompleted {
			continue
		}
		s, err := rundir.ReadSummary(h.RunDir(e.ID))
		if err != nil || s.Status != rundir.StatusCompleted {
			continue
		}
		out = append(out, HistoryRun{ID: e.ID, Summary: s})
	}
	return out
}

// shiftBook holds, per scenario, the change points across its run
// history (updateShifts), served by GET /api/v1/shifts.
type shiftBook struct {
	mu         sync.Mutex
	byScenario map[string]ScenarioShifts
}

// updateShifts runs HistoryShifts over scenario's last daemonShiftRuns
// completed runs, keeps the result for the API and sets
// soakd_history_shifts for the scenario (its old series are dropped).
func (d *Daemon) updateShifts(scenario string) {
	runs := d.hist.historyRuns(scenario, daemonShiftRuns)
	shifts := HistoryShifts(runs)
	if shifts == nil {
		shifts = []Shift{}
	}
	sort.SliceStable(shifts, func(i, j int) bool { return shifts[i].At.Before(shifts[j].At) })
	d.shifts.mu.Lock()
	defer d.shifts.mu.Unlock()
	type key struct{ phase, op, metric, run string }
	known := map[key]bool{}
	for _, s := range d.shifts.byScenario[scenario].Shifts {
		known[key{s.Phase, s.Op, s.Metric, s.RunID}] = true
	}
	if len(runs) == 0 {
		delete(d.shifts.byScenario, scenario)
	} else {
		d.shifts.byScenario[scenario] = ScenarioShifts{Scenario: scenario, Runs: len(runs), Shifts: shifts}
	}
	d.m.historyShifts.DeletePartialMatch(prometheus.Labels{"scenario": scenario})
	for _, s := range shifts {
		dir := "up"
		if s.After < s.Before {
			dir = "down"
		}
		d.m.historyShifts.WithLabelValues(scenario, s.Phase, s.Op, s.Metric, dir).Inc()
	}
	for _, s := range shifts {
		if known[key{s.Phase, s.Op, s.Metric, s.RunID}] {
			continue // logged when first found
		}
		d.log.Info("history shift", "scenario", scenario, "phase", s.Phase, "op", s.Op, "metric", s.Metric,
			"run", s.RunID, "before", s.Before, "after", s.After, "p_value", s.PValue)
	}
}

// initShifts searches every scenario's history at start, so the API and
// the gauge survive restarts.
func (d *Daemon) initShifts() {
	seen := map[string]bool{}
	for _, e := range d.hist.List() {
		if e.State != StateCompleted || seen[e.Scenario] {
			continue
		}
		seen[e.Scenario] = true
		d.updateShifts(e.Scenario)
	}
}

// getShifts serves GET /api/v1/shifts?scenario=NAME (every scenario's
// without it).
func (d *Daemon) getShifts(w http.ResponseWriter, r *http.Request) {
	sc := r.URL.Query().Get("scenario")
	d.shifts.mu.Lock()
	defer d.shifts.mu.Unlock()
	if sc != "" {
		v, ok := d.shifts.byScenario[sc]
		if !ok {
			v = ScenarioShifts{Scenario: sc, Shifts: []Shift{}}
		}
		writeJSON(w, http.StatusOK, v)
		return
	}
	names := make([]string, 0, len(d.shifts.byScenario))
	for n := range d.shifts.byScenario {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]ScenarioShifts, 0, len(names))
	for _, n := range names {
		out = append(out, d.shifts.byScenario[n])
	}
	writeJSON(w, http.StatusOK, map[string]any{"scenarios": out})
}
