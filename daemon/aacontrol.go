package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/soakd/soakd/internal/runpath"
	"github.com/soakd/soakd/regfile"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/verdict"
)

// Hidden A/A controls (regression.aa_controls): after each completed
// configured run (a schedule's or a soak's), the daemon runs the same
// scenario once more, at once, in the same slot, into controls/ under
// its data directory, and judges the control against the run with
// compare's rule (verdict.CompareIntervals), its intervals widened by
// the between-run drift the earlier controls measured (assumed before
// there are any). Nothing changed between the two, so a REGRESSION is a
// false alarm. The control is not in the history (hidden) and its
// directory is removed once judged; what is kept, per scenario and
// host, is controls/calibration.json: how many A/A verdicts, how many
// were false alarms, the minimum detectable effect each showed at p50
// and p99, and the log ratio control/run of each figure (the between-
// run drift, verdict.DriftFromRatios; `soakd compare --controls` reads
// it). Every regression verdict of the scenario on that host carries
// the record (Regression.Controls) and the run's log line prints it.

// ControlsDir is the controls' directory under the data directory;
// ControlsFile the calibration record in it.
const (
	ControlsDir  = "controls"
	ControlsFile = "calibration.json"
	// controlsKept bounds the MDEs kept per scenario and host (the last).
	controlsKept = 100
)

// controlRecord is one scenario's controls on one host.
type controlRecord struct {
	Scenario    string    `json:"scenario"`
	Host        string    `json:"host"`
	AAVerdicts  int       `json:"aa_verdicts"`
	FalseAlarms int       `json:"false_alarms"`
	MDEP50      []float64 `json:"mde_p50,omitempty"`
	MDEP99      []float64 `json:"mde_p99,omitempty"`
	// LogRatios are, per figure (p50, p99, p99.9, throughput), the last
	// controls' log(control/run): the between-run drift.
	LogRatios map[string][]float64 `json:"log_ratios,omitempty"`
}

// controls is the daemon's record of its A/A controls (loaded lazily).
type controls struct {
	mu     sync.Mutex
	loaded bool
	recs   map[string]*controlRecord
}

// HostKey names the host a run ran on (hostname, CPU model, cores), as
// the controls' record keys it.
func HostKey(s *rundir.Summary) string {
	if s == nil || s.Host == nil {
		return "unknown host"
	}
	return fmt.Sprintf("%s/%s/%d cores", s.Host.Hostname, s.Host.CPUModel, s.Host.Cores)
}

func (c *controls) load(dir string) {
	if c.loaded {
		return
	}
	c.loaded = true
	c.recs = map[string]*controlRecord{}
	b, err := regfile.ReadFile(filepath.Join(dir, ControlsDir, ControlsFile))
	if err != nil {
		return
	}
	var list []*controlRecord
	if json.Unmarshal(b, &list) == nil {
		for _, r := range list {
			c.recs[r.Scenario+"\x00"+r.Host] = r
		}
	}
}

// add records one A/A verdict (its figures' log ratios in logs) and
// writes the record.
func (c *controls) add(dir, scenario, host string, alarm bool, mde50, mde99 float64, logs map[string]float64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.load(dir)
	k := scenario + "\x00" + host
	r := c.recs[k]
	if r == nil {
		r = &controlRecord{Scenario: scenario, Host: host}
		c.recs[k] = r
	}
	r.AAVerdicts++
	if alarm {
		r.FalseAlarms++
	}
	keep := func(xs []float64, x float64) []float64 {
		if x > 0 && !math.IsInf(x, 0) {
			xs = append(xs, x)
		}
		return xs[max(0, len(xs)-controlsKept):]
	}
	r.MDEP50, r.MDEP99 = keep(r.MDEP50, mde50), keep(r.MDEP99, mde99)
	for q, l := range logs {
		if r.LogRatios == nil {
			r.LogRatios = map[string][]float64{}
		}
		if !math.IsNaN(l) && !math.IsInf(l, 0) {
			xs := append(r.LogRatios[q], l)
			r.LogRatios[q] = xs[max(0, len(xs)-controlsKept):]
		}
	}
	list := make([]*controlRecord, 0, len(c.recs))
	for _, r := range c.recs {
		list = append(list, r)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Scenario+list[i].Host < list[j].Scenario+list[j].Host })
	b, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, ControlsDir), 0o755); err != nil {
		return err
	}
	return rundir.WriteFileAtomic(filepath.Join(dir, ControlsDir, ControlsFile), b)
}

// calibration is the controls' measured false-alarm rate and MDE for a
// scenario on a host (nil when it has had no control).
func (c *controls) calibration(dir, scenario, host string) *verdict.Calibration {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.load(dir)
	r := c.recs[scenario+"\x00"+host]
	if r == nil || r.AAVerdicts == 0 {
		return nil
	}
	cal := &verdict.Calibration{Source: verdict.CalControls, AAVerdicts: r.AAVerdicts, FalseAlarms: r.FalseAlarms, MDE: map[string]float64{},
		Note: "hidden A/A control runs on " + host}
	for q, xs := range map[string][]float64{"p50": r.MDEP50, "p99": r.MDEP99} {
		if len(xs) > 0 {
			s := append([]float64{}, xs...)
			sort.Float64s(s)
			cal.MDE[q] = s[len(s)/2]
		}
	}
	return cal
}

// drift is the between-run drift the controls of a scenario on a host
// measured (nil before the first).
func (c *controls) drift(dir, scenario, host string) *verdict.Drift {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.load(dir)
	r := c.recs[scenario+"\x00"+host]
	if r == nil {
		return nil
	}
	d := verdict.DriftFromRatios(verdict.DriftControls, r.LogRatios)
	if d != nil {
		d.Note = "hidden A/A control runs on " + host
	}
	return d
}

// ControlsDrift is the between-run drift that a daemon's A/A controls
// (data directory dataDir) measured for scenario on host (HostKey):
// for soakd compare --controls. An error when the record cannot be
// read or holds no ratio for them.
func ControlsDrift(dataDir, scenario, host string) (*verdict.Drift, error) {
	file := filepath.Join(dataDir, ControlsDir, ControlsFile)
	bs, err := regfile.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var list []*controlRecord
	if err := json.Unmarshal(bs, &list); err != nil {
		return nil, fmt.Errorf("%s: not a controls record: %v", file, err)
	}
	c := controls{loaded: true, recs: map[string]*controlRecord{}}
	for _, r := range list {
		c.recs[r.Scenario+"\x00"+r.Host] = r
	}
	d := c.drift(dataDir, scenario, host)
	if d == nil {
		return nil, fmt.Errorf("%s: no A/A control of scenario %q on host %s", file, scenario, host)
	}
	return d, nil
}

// dataDir is the daemon's data directory (the runs' parent's parent).
func (d *Daemon) dataDir() string { return filepath.Dir(filepath.Dir(d.hist.RunDir("x"))) }

// aaControls says whether the configuration asks for A/A controls.
func (d *Daemon) aaControls() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.cfg.Regression.AAControls
}

// fromConfig says whether a run came from the configuration (a
// schedule or a soak), the runs A/A controls go beside.
func fromConfig(source string) bool {
	return strings.HasPrefix(source, "schedule:") || strings.HasPrefix(source, "soak:")
}

// runControl runs the hidden A/A control of a completed configured run
// (sum, in its run directory) and records its verdict. A control that
// does not complete records nothing.
func (d *Daemon) runControl(ctx context.Context, sc *scenarios.Scenario, id string, sum *rundir.Summary) {
	data := d.dataDir()
	dir := filepath.Join(data, ControlsDir, id)
	defer os.RemoveAll(dir)
	ctl, err := runpath.Run(ctx, runpath.Options{Scenario: sc, OutDir: dir, Getenv: d.o.Getenv, Version: d.o.Version, NoSelfHealth: d.o.noSelfHealth})
	if err != nil || ctl == nil || ctl.Status != rundir.StatusCompleted {
		if ctx.Err() == nil {
			d.log.Warn("A/A control not judged", "id", id, "scenario", sc.Name, "err", fmt.Sprint(err))
		}
		return
	}
	host := HostKey(sum)
	v, err := aaVerdict(d.hist.RunDir(id), dir, sum, ctl, d.ctrl.drift(data, sc.Name, host))
	if err != nil {
		d.log.Warn("A/A control not judged", "id", id, "scenario", sc.Name, "err", err.Error())
		return
	}
	d.mu.Lock()
	threshold := d.cfg.Regression.Threshold
	d.mu.Unlock()
	mde50, mde99 := controlMDE(v, threshold)
	if err := d.ctrl.add(data, sc.Name, host, v.Regressed, mde50, mde99, controlLogs(v)); err != nil {
		d.log.Warn("A/A control not recorded", "id", id, "err", err.Error())
		return
	}
	d.log.Info("A/A control judged", "id", id, "scenario", sc.Name, "regressed", v.Regressed)
}

// aaVerdict judges the control against the run with compare's rule,
// widened by the drift the earlier controls measured (nil: assumed).
func aaVerdict(runDir, ctlDir string, run, ctl *rundir.Summary, drift *verdict.Drift) (*verdict.Regression, error) {
	var ivs [2]verdict.RunIntervals
	for i, x := range []struct {
		dir string
		s   *rundir.Summary
	}{{runDir, run}, {ctlDir, ctl}} {
		tags, _, err := rundir.ReadRunIntervals(x.dir, nil)
		if err != nil {
			return nil, err
		}
		ivs[i] = verdict.SteadyIntervals(x.s, tags)
	}
	return verdict.CompareIntervals([]*rundir.Summary{run}, []*rundir.Summary{ctl}, ivs[:1], ivs[1:], verdict.IntervalOptions{Drift: drift}), nil
}

// controlLogs is an A/A verdict's log ratio per figure, the median over
// its judged ops (checks with too few ops or withheld left out).
func controlLogs(v *verdict.Regression) map[string]float64 {
	xs := map[string][]float64{}
	for _, ov := range v.Ops {
		for _, c := range ov.Checks {
			if c.Ratio == nil || !(c.Ratio.Estimate > 0) || c.Call == verdict.CallTooFew || c.Call == verdict.CallWithheld {
				continue
			}
			xs[c.Quantile] = append(xs[c.Quantile], math.Log(c.Ratio.Estimate))
		}
	}
	out := map[string]float64{}
	for q, l := range xs {
		sort.Float64s(l)
		out[q] = l[len(l)/2]
	}
	return out
}

// controlMDE is one A/A verdict's minimum detectable effect at p50 and
// p99: (1+threshold) x est/lo of each judged op's interval (a ratio r is
// called when r·lo/est clears 1+threshold), the median over ops; 0 when
// no op was judged there.
func controlMDE(v *verdict.Regression, threshold float64) (p50, p99 float64) {
	var xs [2][]float64
	for _, ov := range v.Ops {
		for _, c := range ov.Checks {
			if c.Ratio == nil || c.Ratio.Lo <= 0 || c.Call == verdict.CallTooFew || c.Call == verdict.CallWithheld {
				continue
			}
			i := map[string]int{"p50": 0, "p99": 1}
			if k, ok := i[c.Quantile]; ok {
				xs[k] = append(xs[k], (1+threshold)*c.Ratio.Estimate/c.Ratio.Lo)
			}
		}
	}
	med := func(s []float64) float64 {
		if len(s) == 0 {
			return 0
		}
		sort.Float64s(s)
		return s[len(s)/2]
	}
	return med(xs[0]), med(xs[1])
}

// controlAttrs are the controls' figures for a verdict's log line.
func controlAttrs(cal *verdict.Calibration) []any {
	if cal == nil {
		return nil
	}
	attrs := []any{"aa_controls", cal.AAVerdicts, "aa_false_alarms", cal.FalseAlarms}
	for _, q := range []string{"p50", "p99"} {
		if m, ok := cal.MDE[q]; ok {
			attrs = append(attrs, "mde_"+q, math.Round(m*1000)/1000)
		}
	}
	return attrs
}
