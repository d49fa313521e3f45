package verdict

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/soakd/soakd/rundir"
)

// Regression defaults (the daemon config's and soakd compare's).
const (
	DefaultRegressThreshold = 0.20
	DefaultRegressK         = 3.0
	// DefaultHistoryLevel is the prediction interval a new run must
	// leave to be called a regression against history.
	DefaultHistoryLevel = 0.99
	// DefaultMinHistory is the fewest comparable runs the history noise
	// model needs (the daemon's default min_history).
	DefaultMinHistory = 5
	// minLogSpread floors the history's spread of log(percentile): runs
	// that agree more closely than 2% (HDR's 0.1% buckets, a fake
	// target's fixed service time) would otherwise flag any change.
	minLogSpread = 0.02
)

// Verdict methods (Regression.Method).
const (
	// MethodHistory: the candidate against the prediction interval of
	// its scenario's history (two or more comparable runs).
	MethodHistory = "history"
	// MethodThreshold: one baseline run and no interval logs; the
	// relative threshold alone (no estimate of noise).
	MethodThreshold = "threshold"
	// MethodBootstrap: cand/base ratios with block-bootstrap intervals
	// over the runs' latency.hlog intervals (CompareIntervals).
	MethodBootstrap = "bootstrap"
)

// RegressOptions tune Compare.
type RegressOptions struct {
	// Threshold is the relative change that counts (0.2 = 20% slower).
	Threshold float64
	// K: the change must also exceed K times the noise seen in history
	// (1.4826 x MAD of the percentile across the history runs).
	K float64
	// MinHistory is the fewest comparable history runs a verdict needs
	// (0 or 1: one is enough, as for `soakd compare`).
	MinHistory int
	// KeepUnlike compares unlike history runs too (listed in Unlike all
	// the same): `soakd compare --allow-unlike`.
	KeepUnlike bool
	// Level of the history's prediction interval (0 = 0.99).
	Level float64
}

// Quantiles compared, by their summary names.
var regressQuantiles = []string{"p50", "p99", "p99.9"}

// Regression is the regression verdict for one candidate run.
type Regression struct {
	Regressed bool           `json:"regressed"`
	History   int            `json:"history"` // runs compared against
	Threshold float64        `json:"threshold"`
	K         float64        `json:"k"`
	Ops       []OpRegression `json:"ops"`
	// Method says how the verdict was made: MethodHistory,
	// MethodThreshold or MethodBootstrap.
	Method string `json:"method,omitempty"`
	// Level is the confidence (bootstrap) or prediction (history)
	// level of the intervals.
	Level float64 `json:"level,omitempty"`
	// Resamples and Repeats (base, candidate runs) of a bootstrap.
	Resamples int    `json:"resamples,omitempty"`
	Repeats   [2]int `json:"repeats,omitzero"`
	// Notes qualify the verdict (what the intervals do not cover).
	Notes []string `json:"notes,omitempty"`
	// Unlike lists the history runs left out because they are not
	// comparable with the candidate (another target kind or rate).
	Unlike     []string `json:"unlike,omitempty"`
	KeptUnlike bool     `json:"kept_unlike,omitempty"`
	// NotJudged says why there is no verdict (too little history).
	NotJudged string `json:"not_judged,omitempty"`
	// Calibration is the rule's false-alarm rate and minimum detectable
	// effect measured on A/A comparisons of the verdict's own data
	// (calibrate.go); nil when none could be made.
	Calibration *Calibration `json:"calibration,omitempty"`
	// Controls is the same measured by the daemon's hidden A/A control
	// runs of the scenario on this host (daemon regression.aa_controls).
	Controls *Calibration `json:"controls,omitempty"`
	// Drift is the between-run spread the intervals were widened by when
	// a side had one run (MethodBootstrap; drift.go).
	Drift *Drift `json:"drift,omitempty"`
}

// OpRegression is one op in one phase.
type OpRegression struct {
	Phase     string       `json:"phase"`
	Op        string       `json:"op"`
	Regressed bool         `json:"regressed"`
	Checks    []QuantCheck `json:"checks"`
	// Intervals (base, candidate, all repeats) and the bootstrap's
	// block length, in intervals (MethodBootstrap).
	Intervals [2]int `json:"intervals,omitzero"`
	BlockLen  int    `json:"block_len,omitempty"`
	// Withheld says why the op has no verdict: its phase was generator-
	// or host-bound in a run compared (selfbound.go).
	Withheld string `json:"withheld,omitempty"`
	// Explain is the cause of a regression or a withheld verdict: the
	// label, whether the server confirms it, what overlapped it
	// (cause.go, explain.go).
	Explain *Explanation `json:"explain,omitempty"`
}

// QuantCheck compares one percentile (seconds) or, as "throughput",
// the closed-loop rate (ops/s).
type QuantCheck struct {
	Quantile  string  `json:"quantile"`
	Candidate float64 `json:"candidate"`
	// Baseline: the base runs' merged percentile (bootstrap), the
	// history's geometric mean (history) or the one baseline's value.
	Baseline float64 `json:"baseline"`
	// Noise: the interval's half-width in seconds (bootstrap), the
	// history's spread (history: the standard deviation of the log
	// percentile, as a fraction), 0 with one baseline.
	Noise     float64 `json:"noise"`
	Change    float64 `json:"change"` // (candidate-baseline)/baseline
	Regressed bool    `json:"regressed"`
	// Ratio is candidate/baseline with its confidence interval
	// (MethodBootstrap), the call's: with one run on a side, widened by
	// the between-run drift.
	Ratio *Interval `json:"ratio,omitempty"`
	// Within is the interval from the runs' seconds alone, before the
	// drift widened it (absent when nothing widened it).
	Within *Interval `json:"within,omitempty"`
	// Prediction is where a new run like the history would fall, in
	// seconds (MethodHistory): Estimate the history's geometric mean,
	// [Lo, Hi] the prediction interval at Level; a regression is a
	// candidate above Hi.
	Prediction *Interval `json:"prediction,omitempty"`
	// Call is the verdict in words (Decide's).
	Call Call `json:"call,omitempty"`
}

// Compare judges cand against history (earlier runs of the same
// scenario), with the history as the noise model: for each percentile,
// the history's log values give a mean m and standard deviation s
// (at least 2%), and a new run of the same thing falls within
// m ± t(n-1) s sqrt(1+1/n) with probability Level (the normal-theory
// prediction interval; t is Student's quantile at (1+Level)/2). The
// candidate regresses when it lies above that interval. Threshold and
// K are not used then. With one history run (soakd compare of two runs
// without interval logs) there is no spread to know: the percentile
// regresses when slower by more than Threshold. Latency is from
// intended start. Only
// steady phases are judged (a load phase is as fast as allowed, ramps
// and searches change rate); ops or phases missing from history are
// not. History runs unlike cand (Unlike) are left out; with fewer than
// MinHistory left there is no verdict (NotJudged).
func Compare(history []*rundir.Summary, cand *rundir.Summary, o RegressOptions) *Regression {
	v := compareHistory(history, cand, o)
	var like []*rundir.Summary
	for _, h := range history {
		if len(Unlike(h, cand)) == 0 || o.KeepUnlike {
			like = append(like, h)
		}
	}
	if v.Method == MethodHistory {
		v.Calibration = calibrateHistory(like, o)
	}
	explainRegression(v, like, []*rundir.Summary{cand}, true)
	return v
}

// compareHistory is Compare without its calibration and explanations.
func compareHistory(history []*rundir.Summary, cand *rundir.Summary, o RegressOptions) *Regression {
	if o.Threshold <= 0 {
		o.Threshold = DefaultRegressThreshold
	}
	if o.K < 0 {
		o.K = 0
	}
	if !(o.Level > 0 && o.Level < 1) {
		o.Level = DefaultHistoryLevel
	}
	v := &Regression{Threshold: o.Threshold, K: o.K, KeptUnlike: o.KeepUnlike}
	var like []*rundir.Summary
	for _, h := range history {
		if why := Unlike(h, cand); len(why) > 0 {
			v.Unlike = append(v.Unlike, fmt.Sprintf("run of %s: %s", h.Start.UTC().Format(time.RFC3339), strings.Join(why, "; ")))
			if !o.KeepUnlike {
				continue
			}
		}
		like = append(like, h)
	}
	history = like
	v.History = len(history)
	if min := max(o.MinHistory, 1); len(history) < min {
		v.NotJudged = fmt.Sprintf("%d comparable run(s) in history, %d needed for a verdict", len(history), min)
		return v
	}
	if len(history) == 1 {
		v.Method = MethodThreshold
		v.Notes = append(v.Notes, "one baseline run: no estimate of noise, the relative threshold alone")
	} else {
		v.Method, v.Level = MethodHistory, o.Level
	}
	tq := tQuantiles{}
	for _, ph := range cand.Phases {
		if !ph.Kind.Compared() {
			continue
		}
		ops := make([]string, 0, len(ph.Ops))
		for op := range ph.Ops {
			ops = append(ops, op)
		}
		sort.Strings(ops)
		for _, op := range ops {
			c := ph.Ops[op]
			if c.Count == 0 {
				continue
			}
			ov := OpRegression{Phase: ph.Name, Op: op}
			for _, q := range regressQuantiles {
				var hist []float64
				for _, h := range history {
					if hp := phaseNamed(h, ph.Name); hp != nil && hp.Kind.Compared() && !boundPhase(hp) {
						if ho, ok := hp.Ops[op]; ok && ho.Count > 0 {
							hist = append(hist, quant(ho, q))
						}
					}
				}
				if len(hist) == 0 {
					continue
				}
				qc := judge(q, quant(c, q), hist, o, tq)
				ov.add(qc)
			}
			v.add(ov)
		}
	}
	noteBoundHistory(v, history, cand)
	withholdBound(v, cand)
	return v
}

// Unlike says why two runs are not comparable (nil when they are):
// another scenario, another target kind, or a steady phase of both
// with another target rate.
func Unlike(a, b *rundir.Summary) []string {
	var why []string
	if a.Scenario != b.Scenario {
		why = append(why, fmt.Sprintf("scenario %s vs %s", a.Scenario, b.Scenario))
	}
	if a.Target.Kind != b.Target.Kind {
		why = append(why, fmt.Sprintf("target %s vs %s", a.Target.Kind, b.Target.Kind))
	}
	for _, pa := range a.Phases {
		pb := phaseNamed(b, pa.Name)
		if !pa.Kind.Compared() || pb == nil || !pb.Kind.Compared() {
			continue
		}
		if math.Abs(pa.TargetRate-pb.TargetRate) > 1e-9*math.Max(pa.TargetRate, pb.TargetRate) {
			why = append(why, fmt.Sprintf("phase %s rate %s vs %s", pa.Name, rateText(pa.TargetRate), rateText(pb.TargetRate)))
		}
	}
	return why
}

func rateText(r float64) string {
	if r == 0 {
		return "closed-loop"
	}
	return fmt.Sprintf("%g ops/s", r)
}

// tQuantiles memoises Student's t quantiles by degrees of freedom for
// one verdict (one level).
type tQuantiles map[int]float64

func (tq tQuantiles) at(p float64, df int) float64 {
	t, ok := tq[df]
	if !ok {
		t = studentTQuantile(p, df)
		tq[df] = t
	}
	return t
}

func judge(q string, cand float64, hist []float64, o RegressOptions, tq tQuantiles) QuantCheck {
	if len(hist) >= 2 {
		return judgeHistory(q, cand, hist, o.Level, tq)
	}
	qc := QuantCheck{Quantile: q, Candidate: cand, Baseline: hist[0]}
	if hist[0] > 0 {
		qc.Change = (cand - hist[0]) / hist[0]
	} else if cand > 0 {
		qc.Change = math.Inf(1)
	}
	qc.Regressed = qc.Change > o.Threshold
	qc.Call = CallWithinNoise
	switch {
	case qc.Regressed:
		qc.Call = CallRegression
	case qc.Change < 0:
		qc.Call = CallFaster
	}
	return qc
}

// judgeHistory places cand against the prediction interval of the
// history's log percentiles (see Compare).
func judgeHistory(q string, cand float64, hist []float64, level float64, tq tQuantiles) QuantCheck {
	var logs []float64
	for _, x := range hist {
		if x > 0 {
			logs = append(logs, math.Log(x))
		}
	}
	qc := QuantCheck{Quantile: q, Candidate: cand}
	if len(logs) < 2 {
		qc.Call = CallNoData
		return qc
	}
	n := float64(len(logs))
	var m, ss float64
	for _, l := range logs {
		m += l
	}
	m /= n
	for _, l := range logs {
		ss += (l - m) * (l - m)
	}
	sd := math.Max(math.Sqrt(ss/(n-1)), minLogSpread)
	w := tq.at((1+level)/2, len(logs)-1) * sd * math.Sqrt(1+1/n)
	qc.Baseline = math.Exp(m)
	qc.Noise = sd
	qc.Prediction = &Interval{Estimate: qc.Baseline, Lo: math.Exp(m - w), Hi: math.Exp(m + w), Level: level}
	qc.Change = (cand - qc.Baseline) / qc.Baseline
	qc.Regressed = cand > qc.Prediction.Hi
	switch {
	case qc.Regressed:
		qc.Call = CallRegression
	case cand < qc.Prediction.Lo:
		qc.Call = CallFaster
	default:
		qc.Call = CallWithinNoise
	}
	return qc
}

func quant(o rundir.OpResult, q string) float64 {
	switch q {
	case "p50":
		return o.Latency.P50
	case "p99":
		return o.Latency.P99
	case "p99.9":
		return o.Latency.P999
	}
	return 0
}

// OpRegressed folds the verdict to one flag per op (any phase), for the
// soakd_regression{scenario,op} gauge.
func (v *Regression) OpRegressed() map[string]bool {
	out := map[string]bool{}
	for _, o := range v.Ops {
		out[o.Op] = out[o.Op] || o.Regressed
	}
	return out
}

// Table renders the verdict as a per-op table.
func (v *Regression) Table() string {
	var b strings.Builder
	switch v.Method {
	case MethodBootstrap:
		fmt.Fprintf(&b, "comparison of %d candidate run(s) against %d baseline run(s): candidate/baseline with %.0f%% intervals (block bootstrap over the runs' intervals, %d resamples); REGRESSION when the whole interval lies above x%.2f (latency from intended start)\n",
			v.Repeats[1], v.Repeats[0], v.Level*100, v.Resamples, 1+v.Threshold)
	case MethodHistory:
		fmt.Fprintf(&b, "regression check against %d comparable run(s) of history: REGRESSION when above the %.0f%% prediction interval of a new run (latency from intended start)\n", v.History, v.Level*100)
	default:
		fmt.Fprintf(&b, "regression check against %d run(s): slower by > %.0f%%", v.History, v.Threshold*100)
		if v.History > 1 {
			fmt.Fprintf(&b, " and > %.1f x noise", v.K)
		}
		b.WriteString(" (latency from intended start)\n")
	}
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	switch v.Method {
	case MethodBootstrap:
		fmt.Fprintf(tw, "PHASE\tOP\tQUANTILE\tBASELINE\tCANDIDATE\tRATIO [%.0f%% CI]\tVERDICT\n", v.Level*100)
	case MethodHistory:
		fmt.Fprintf(tw, "PHASE\tOP\tQUANTILE\tHISTORY\tCANDIDATE\tCHANGE\t%.0f%% PREDICTION\tVERDICT\n", v.Level*100)
	default:
		fmt.Fprintln(tw, "PHASE\tOP\tQUANTILE\tBASELINE\tCANDIDATE\tCHANGE\tNOISE\tVERDICT")
	}
	for _, o := range v.Ops {
		for _, c := range o.Checks {
			call := c.Call
			if call == "" {
				call = CallWithinNoise
				if c.Regressed {
					call = CallRegression
				}
			}
			val := FormatSeconds
			if c.Quantile == QuantThroughput {
				val = func(r float64) string { return fmt.Sprintf("%.1f ops/s", r) }
			}
			switch {
			case v.Method == MethodBootstrap && c.Ratio != nil:
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", o.Phase, o.Op, c.Quantile, val(c.Baseline), val(c.Candidate), c.Ratio, call)
			case v.Method == MethodHistory && c.Prediction != nil:
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%+.1f%%\t[%s, %s]\t%s\n", o.Phase, o.Op, c.Quantile, val(c.Baseline), val(c.Candidate), c.Change*100,
					val(c.Prediction.Lo), val(c.Prediction.Hi), call)
			default:
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%+.1f%%\t%s\t%s\n", o.Phase, o.Op, c.Quantile, val(c.Baseline), val(c.Candidate), c.Change*100, FormatSeconds(c.Noise), call)
			}
		}
	}
	tw.Flush()
	for _, o := range v.Ops {
		if o.Explain != nil {
			b.WriteString(ExplainLine(o.Phase+" "+o.Op, *o.Explain))
		}
	}
	for _, n := range v.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	if v.Drift != nil {
		b.WriteString(v.Drift.Line() + "\n")
	}
	for _, c := range []*Calibration{v.Calibration, v.Controls} {
		if c != nil {
			b.WriteString(c.Line() + "\n")
		}
	}
	for _, u := range v.Unlike {
		if v.KeptUnlike {
			fmt.Fprintf(&b, "warning: compared although not comparable: %s\n", u)
		} else {
			fmt.Fprintf(&b, "left out, not comparable: %s\n", u)
		}
	}
	if v.NotJudged != "" {
		fmt.Fprintf(&b, "no verdict: %s\n", v.NotJudged)
		return b.String()
	}
	withheld := 0
	for _, o := range v.Ops {
		if o.Withheld != "" {
			withheld++
		}
	}
	if len(v.Ops) == 0 {
		b.WriteString("no steady-phase op appears in both runs: nothing to compare\n")
	} else if withheld == len(v.Ops) {
		b.WriteString("no verdict: every op compared ran in a generator- or host-bound phase (see the notes); what was measured was soakd or the host, not the store\n")
	} else if v.Regressed {
		b.WriteString("verdict: REGRESSION\n")
	} else if withheld > 0 {
		fmt.Fprintf(&b, "verdict: no regression in the ops judged; %d op(s) of generator- or host-bound phases not judged\n", withheld)
	} else if v.Method == MethodBootstrap {
		drift := 0
		for _, o := range v.Ops {
			for _, c := range o.Checks {
				if c.Call == CallDrift {
					drift++
				}
			}
		}
		if drift > 0 {
			fmt.Fprintf(&b, "verdict: no regression shown (every difference within noise or below the threshold, %d %s)\n", drift, CallDrift)
		} else {
			b.WriteString("verdict: no regression (every difference within noise or below the threshold)\n")
		}
	} else {
		b.WriteString("verdict: ok\n")
	}
	return b.String()
}

func phaseNamed(s *rundir.Summary, name string) *rundir.PhaseResult {
	for i := range s.Phases {
		if s.Phases[i].Name == name {
			return &s.Phases[i]
		}
	}
	return nil
}

// add keeps a check of ov's op: one regressed check regresses the op.
func (ov *OpRegression) add(qc QuantCheck) {
	ov.Checks = append(ov.Checks, qc)
	ov.Regressed = ov.Regressed || qc.Regressed
}

// add keeps an op's verdict, unless it holds no check (no figure to
// compare): one regressed op regresses the run.
func (v *Regression) add(ov OpRegression) {
	if len(ov.Checks) == 0 {
		return
	}
	v.Regressed = v.Regressed || ov.Regressed
	v.Ops = append(v.Ops, ov)
}
