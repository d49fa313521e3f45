package daemon

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

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
	Metric   string    `json:"metric"` // p50, p99, p99.9 (seconds) or rate (achieved ops/s)
	RunID    string    `json:"run_id"` // the first run after the shift
	At       time.Time `json:"at"`     // that run's start
	Before   float64   `json:"before"`
	After    float64   `json:"after"`
	PValue   float64   `json:"p_value"`
}

func (s Shift) String() string {
	what := s.Phase + " " + s.Op + " " + s.Metric
	f := func(v float64) string { return fmt.Sprintf("%.6gs", v) }
	if s.Metric == rundir.MetricRate {
		what = s.Phase + " achieved rate"
		f = func(v float64) string { return fmt.Sprintf("%.1f ops/s", v) }
	}
	return fmt.Sprintf("%s %s: shift from run %s (%s): %s -> %s (p=%.3g)", s.Scenario, what, s.RunID,
		s.At.Format(time.RFC3339), f(s.Before), f(s.After), s.PValue)
}

// HistoryShifts runs the in-run change-point detector over each
// scenario's runs in start order: per phase and op p50, p99 and p99.9,
// and per phase the achieved rate. Runs that lack a phase or op are left
// out of that series.
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
			}
		}
	}
	var out []Shift
	o := verdict.ChangeOptions{MinSize: HistoryMinRuns}
	for _, k := range keys {
		s := all[k]
		for _, c := range verdict.Detect(s.xs, o) {
			r := runs[s.run[c.Index]]
			out = append(out, Shift{Scenario: k.scenario, Phase: k.phase, Op: k.op, Metric: k.metric, RunID: r.ID,
				At: r.Summary.Start, Before: c.Before, After: c.After, PValue: c.PValue})
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
		if err != nil || s.Status != rundir.StatusCompleted || (scenario != "" && s.Scenario != scenario) {
			continue
		}
		out = append(out, HistoryRun{ID: e.Name(), Summary: s})
	}
	return out, nil
}
