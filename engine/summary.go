package engine

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// SchemaVersion of summary.json.
const SchemaVersion = 1

// Run statuses.
const (
	StatusCompleted   = "completed"
	StatusInterrupted = "interrupted"
)

// Summary is summary.json.
type Summary struct {
	SchemaVersion int        `json:"schema_version"`
	Scenario      string     `json:"scenario"`
	ScenarioFile  string     `json:"scenario_file,omitempty"`
	Target        TargetInfo `json:"target"`
	Shard         Shard      `json:"shard"`
	Start         time.Time  `json:"start"`
	End           time.Time  `json:"end"`
	Status        string     `json:"status"`
	// StatusReason says why an interrupted run ended early when it was
	// not a signal: a managed server died, a barrier timed out.
	StatusReason string        `json:"status_reason,omitempty"`
	Phases       []PhaseResult `json:"phases"`
	SLO          Verdict       `json:"slo"`
}

// TargetInfo describes the target without credentials.
type TargetInfo struct {
	Kind   string `json:"kind"`
	URL    string `json:"url,omitempty"`
	Server string `json:"server,omitempty"`
	Note   string `json:"note,omitempty"`
	// MemoryLimits is what caps the server's memory (maxmemory, the
	// managed server's cgroup, host swap), where the target tells.
	MemoryLimits *targets.MemoryLimits `json:"memory_limits,omitempty"`
}

// Result is what a phase or a stage measured.
type Result struct {
	TargetRate float64 `json:"target_rate"`
	// AchievedRate is CompletedInWindow over DurationSeconds: the ops
	// that completed inside the measured window, per second of it. Ops
	// that finished in the drain after it do not count; warmup ops that
	// finished inside it do.
	AchievedRate float64 `json:"achieved_rate"`
	// DurationSeconds is the measured window (warmup excluded).
	DurationSeconds float64 `json:"duration_seconds"`
	// Scheduled is how many ops the schedule called for in the measured
	// window (by intended start; dropped included, warmup excluded).
	Scheduled uint64              `json:"scheduled"`
	Ops       map[string]OpResult `json:"ops"`
	Dropped   int64               `json:"dropped"`
	Errors    int64               `json:"errors"`
	// Misses are cache reads that found no value (outcome miss): not
	// errors, but the hit ratio a growth phase watches.
	Misses int64 `json:"misses,omitempty"`
	// Completed counts the measured ops that completed, in the window
	// or in the drain after it. CompletedInWindow counts, by completion
	// time, every op that completed inside the window: the measured ops
	// not late, plus warmup ops that finished after the warmup ended.
	Completed         int64 `json:"completed"`
	CompletedInWindow int64 `json:"completed_in_window"`
	// DrainSeconds is how long after the window's end the last measured
	// op completed: the backlog the store still had when time was up.
	DrainSeconds float64         `json:"drain_seconds"`
	MaxLag       float64         `json:"max_lag"`
	Lag          metrics.Summary `json:"lag"`
}

// OpResult is one op's figures.
type OpResult struct {
	Count int64 `json:"count"`
	// Late: completed after the measured window ended (in Count).
	Late    int64            `json:"late,omitempty"`
	Errors  map[string]int64 `json:"errors"`
	Misses  int64            `json:"misses,omitempty"`
	Dropped int64            `json:"dropped"`
	Latency metrics.Summary  `json:"latency"`
	Service metrics.Summary  `json:"service"`
}

// PhaseResult is one phase.
type PhaseResult struct {
	Name  string    `json:"name"`
	Kind  string    `json:"kind"`
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	Result
	Stages []StageResult      `json:"stages,omitempty"`
	Server map[string]float64 `json:"server,omitempty"`
	SLO    *Verdict           `json:"slo,omitempty"`
	// Growth phases: the persistence variant and the first cliff.
	Variant string `json:"variant,omitempty"`
	Cliff   *Cliff `json:"cliff,omitempty"`
	// Capacity phases: the search's outcome.
	Capacity *CapacityResult `json:"capacity,omitempty"`
	// ChangePoints are where the phase's per-op latency or rate shifted
	// (see changes.go).
	ChangePoints []ChangePoint `json:"change_points,omitempty"`
}

// StageResult is one stage of a ramp, growth or capacity phase.
type StageResult struct {
	Name  string    `json:"name"`
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	Result
	Server map[string]float64 `json:"server,omitempty"`
	// Growth stages: dataset size after the stage's batch, and the
	// batch insert's own figures.
	Records int64   `json:"records,omitempty"`
	Load    *Result `json:"load,omitempty"`
}

// Verdict is the outcome of SLO checks.
type Verdict struct {
	Passed bool    `json:"passed"`
	Checks []Check `json:"checks,omitempty"`
}

// Check is one SLO check.
type Check struct {
	Phase  string  `json:"phase"`
	Op     string  `json:"op,omitempty"`
	What   string  `json:"what"` // e.g. latency p99, achieved_ratio, error_ratio
	Limit  float64 `json:"limit"`
	Actual float64 `json:"actual"`
	Passed bool    `json:"passed"`
}

// fillResult fills res from a measured set. tail is the number of
// warmup ops that completed inside the window: they count toward
// completed_in_window and the achieved rate (which go by completion
// time) but not toward the measured ops' figures.
func fillResult(res *Result, s *metrics.Set, scheduled uint64, elapsed, drain time.Duration, tail int64, classes []string) {
	if classes == nil {
		classes = targets.Classes()
	}
	res.Ops = map[string]OpResult{}
	res.Scheduled = scheduled
	res.DurationSeconds = elapsed.Seconds()
	for op, os := range s.Ops {
		if os == nil {
			continue
		}
		or := OpResult{Count: os.Count, Late: os.Late, Dropped: os.Dropped, Errors: map[string]int64{},
			Latency: metrics.Summarize(os.Latency), Service: metrics.Summarize(os.Service)}
		for ci, n := range os.Classes {
			if ci == 0 || n == 0 || ci >= len(classes) {
				continue
			}
			if !targets.IsError(classes[ci]) {
				or.Misses += n
				res.Misses += n
				continue
			}
			or.Errors[classes[ci]] = n
			res.Errors += n
		}
		res.Dropped += os.Dropped
		res.Completed += os.Count
		res.CompletedInWindow += os.Count - os.Late
		res.Ops[scenarios.Op(op).String()] = or
	}
	res.CompletedInWindow += tail
	res.DrainSeconds = drain.Seconds()
	if elapsed > 0 {
		res.AchievedRate = float64(res.CompletedInWindow) / elapsed.Seconds()
	}
	res.Lag = metrics.Summarize(s.Lag)
	res.MaxLag = res.Lag.Max
}

// evaluate checks every non-load phase against the scenario's SLO.
func (s *Summary) evaluate(sc *scenarios.Scenario) {
	s.SLO = Verdict{Passed: true}
	if s.Status == StatusInterrupted {
		s.SLO.Passed = false
	}
	for i := range s.Phases {
		p := &s.Phases[i]
		if p.Kind == scenarios.PhaseLoad {
			continue
		}
		if p.Kind == scenarios.PhaseCapacity && p.Capacity != nil {
			p.SLO = capacityVerdict(p)
			s.SLO.Checks = append(s.SLO.Checks, p.SLO.Checks...)
			s.SLO.Passed = s.SLO.Passed && p.SLO.Passed
			continue
		}
		v := &Verdict{Passed: true}
		add := func(op, what string, limit, actual float64, ok bool) {
			v.Checks = append(v.Checks, Check{Phase: p.Name, Op: op, What: what, Limit: limit, Actual: actual, Passed: ok})
			if !ok {
				v.Passed = false
			}
		}
		ops := make([]string, 0, len(p.Ops))
		for op := range p.Ops {
			ops = append(ops, op)
		}
		sort.Strings(ops)
		for _, op := range ops {
			or := p.Ops[op]
			limits := map[string]scenarios.Duration{}
			for k, d := range sc.SLO.Latency["*"] {
				limits[k] = d
			}
			for k, d := range sc.SLO.Latency[op] {
				limits[k] = d
			}
			keys := make([]string, 0, len(limits))
			for k := range limits {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				pct, err := scenarios.ParsePercentile(k)
				if err != nil {
					continue
				}
				actual := pick(or.Latency, pct.Value)
				lim := limits[k].D().Seconds()
				add(op, "latency "+k, lim, actual, actual <= lim)
			}
		}
		if sc.SLO.MinAchievedRatio > 0 && p.TargetRate > 0 && len(p.Stages) == 0 {
			ratio := p.AchievedRate / p.TargetRate
			add("", "achieved_ratio", sc.SLO.MinAchievedRatio, ratio, ratio >= sc.SLO.MinAchievedRatio)
		}
		if sc.SLO.MaxErrorRatio != nil && p.Completed > 0 {
			ratio := float64(p.Errors) / float64(p.Completed)
			add("", "error_ratio", *sc.SLO.MaxErrorRatio, ratio, ratio <= *sc.SLO.MaxErrorRatio)
		}
		if sc.SLO.MaxDroppedRatio != nil && p.Scheduled > 0 {
			ratio := float64(p.Dropped) / float64(p.Scheduled)
			add("", "dropped_ratio", *sc.SLO.MaxDroppedRatio, ratio, ratio <= *sc.SLO.MaxDroppedRatio)
		}
		p.SLO = v
		s.SLO.Checks = append(s.SLO.Checks, v.Checks...)
		if !v.Passed {
			s.SLO.Passed = false
		}
	}
}

// pick returns a summary's value at a percentile that SLOs may name.
func pick(s metrics.Summary, p float64) float64 {
	switch {
	case p >= 100:
		return s.Max
	case p >= 99.99:
		return s.P9999
	case p >= 99.9:
		return s.P999
	case p >= 99:
		return s.P99
	case p >= 90:
		return s.P90
	}
	return s.P50
}

// WriteRunDir writes summary.json and summary.txt atomically.
func WriteRunDir(dir string, s *Summary) error {
	js, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := WriteFileAtomic(filepath.Join(dir, "summary.json"), append(js, '\n')); err != nil {
		return err
	}
	return WriteFileAtomic(filepath.Join(dir, "summary.txt"), []byte(s.Text()))
}

// WriteError is Run's error when the run finished but its results could
// not be written (a full disk): the summary returned with it is
// complete, only the run directory is not.
type WriteError struct {
	Dir string
	Err error
}

func (e *WriteError) Error() string {
	return fmt.Sprintf("results could not be written to %s: %v", e.Dir, e.Err)
}

func (e *WriteError) Unwrap() error { return e.Err }

// WriteFileAtomic writes data to a temp file in the same directory,
// fsyncs it, renames it over path and fsyncs the directory, so a crash
// leaves either the old file or the new one, never a torn one.
func WriteFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Chmod(tmp, 0o644); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// ReadSummary loads a run directory's summary.json.
func ReadSummary(dir string) (*Summary, error) {
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		return nil, err
	}
	var s Summary
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "summary.json"), err)
	}
	if s.SchemaVersion != SchemaVersion {
		return nil, fmt.Errorf("%s: schema_version %d, this soakd reads %d", dir, s.SchemaVersion, SchemaVersion)
	}
	return &s, nil
}

// Text renders the summary as a table (summary.txt, `soakd report`).
func (s *Summary) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "scenario: %s\ntarget: %s", s.Scenario, s.Target.Kind)
	if s.Target.URL != "" {
		fmt.Fprintf(&b, " %s", s.Target.URL)
	}
	if s.Target.Server != "" {
		fmt.Fprintf(&b, " (%s)", s.Target.Server)
	}
	fmt.Fprintf(&b, "\nshard: %s\nstart: %s  end: %s  status: %s\n", s.Shard, s.Start.Format(time.RFC3339), s.End.Format(time.RFC3339), s.Status)
	if s.StatusReason != "" {
		label := "interrupted"
		if s.Status == StatusKilled {
			label = "killed"
		}
		fmt.Fprintf(&b, "%s: %s\n", label, s.StatusReason)
	}
	if s.Target.Note != "" {
		fmt.Fprintf(&b, "%s\n", s.Target.Note)
	}
	if ml := s.Target.MemoryLimits; ml != nil {
		fmt.Fprintf(&b, "memory limits: %s\n", ml)
	}
	for _, p := range s.Phases {
		fmt.Fprintf(&b, "\nphase %s (%s): target %s achieved %.1f ops/s over %.1fs, %d ops, %d errors, %d dropped, max lag %s%s\n",
			p.Name, p.Kind, rateStr(p.TargetRate), p.AchievedRate, p.DurationSeconds, p.Completed, p.Errors, p.Dropped, fmtDur(p.MaxLag), drainNote(p.Result))
		writeOpTable(&b, p.Result)
		for _, st := range p.Stages {
			fmt.Fprintf(&b, "  stage %s: target %s achieved %.1f ops/s, %d errors, %d dropped%s\n", st.Name, rateStr(st.TargetRate), st.AchievedRate, st.Errors, st.Dropped, stageExtra(st))
		}
		writeGrowthCapacity(&b, &p)
		writeChecks(&b, p.SLO)
		writeChangePoints(&b, &p)
	}
	fmt.Fprintf(&b, "\n%s\n", VerdictLine(s.Status, s.StatusReason, s.SLO))
	return b.String()
}

// VerdictLine is a run's one-line outcome: "SLO PASSED", "SLO FAILED",
// or, for a run that did not run to its end, "interrupted: <reason>"
// (its checks cover only what ran, so no SLO verdict is claimed).
func VerdictLine(status, reason string, v Verdict) string {
	if status == StatusKilled {
		return "SLO not judged: the run was killed"
	}
	if status == StatusInterrupted {
		if reason == "" {
			reason = "stopped before its end (signal or stop request)"
		}
		line := "interrupted: " + reason
		if n := failedChecks(v); n > 0 {
			line += fmt.Sprintf(" (%d SLO checks failed in what ran)", n)
		}
		return line
	}
	if v.Passed {
		return "SLO PASSED"
	}
	return "SLO FAILED"
}

func failedChecks(v Verdict) int {
	n := 0
	for _, c := range v.Checks {
		if !c.Passed {
			n++
		}
	}
	return n
}

// drainNote says how many ops finished after the measured window, and
// how long after: they are in the latency figures but not the rate.
func drainNote(r Result) string {
	var late int64
	for _, o := range r.Ops {
		late += o.Late
	}
	if late > 0 {
		return fmt.Sprintf(", %d completed after the window (drain %s)", late, fmtDur(r.DrainSeconds))
	}
	return ""
}

func rateStr(r float64) string {
	if r == 0 {
		return "closed-loop"
	}
	return fmt.Sprintf("%.0f ops/s", r)
}

func sloVal(what string, v float64) string {
	if strings.HasPrefix(what, "latency") {
		return fmtDur(v)
	}
	return fmt.Sprintf("%.4g", v)
}

func writeOpTable(b *strings.Builder, r Result) {
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "  op\ttiming\tcount\terrors\tp50\tp90\tp99\tp99.9\tp99.99\tmax\tmean\t")
	ops := make([]string, 0, len(r.Ops))
	for op := range r.Ops {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	for _, op := range ops {
		o := r.Ops[op]
		var errs int64
		for _, n := range o.Errors {
			errs += n
		}
		for _, t := range []struct {
			name string
			s    metrics.Summary
		}{{"latency", o.Latency}, {"service", o.Service}} {
			fmt.Fprintf(tw, "  %s\t%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", op, t.name, o.Count, errs,
				fmtDur(t.s.P50), fmtDur(t.s.P90), fmtDur(t.s.P99), fmtDur(t.s.P999), fmtDur(t.s.P9999), fmtDur(t.s.Max), fmtDur(t.s.Mean))
		}
	}
	tw.Flush()
}

// writeChecks prints a phase's SLO checks, one line each.
func writeChecks(b *strings.Builder, v *Verdict) {
	if v == nil {
		return
	}
	for _, c := range v.Checks {
		mark := "ok  "
		if !c.Passed {
			mark = "FAIL"
		}
		fmt.Fprintf(b, "  SLO %s %s %s: %s (limit %s)\n", mark, c.Op, c.What, sloVal(c.What, c.Actual), sloVal(c.What, c.Limit))
	}
}
