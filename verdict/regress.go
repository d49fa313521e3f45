package verdict

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
)

// Regression defaults (the daemon config's and soakd compare's).
const (
	DefaultRegressThreshold = 0.20
	DefaultRegressK         = 3.0
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
	// Unlike lists the history runs left out because they are not
	// comparable with the candidate (another target kind or rate).
	Unlike     []string `json:"unlike,omitempty"`
	KeptUnlike bool     `json:"kept_unlike,omitempty"`
	// NotJudged says why there is no verdict (too little history).
	NotJudged string `json:"not_judged,omitempty"`
}

// OpRegression is one op in one phase.
type OpRegression struct {
	Phase     string       `json:"phase"`
	Op        string       `json:"op"`
	Regressed bool         `json:"regressed"`
	Checks    []QuantCheck `json:"checks"`
}

// QuantCheck compares one percentile (seconds).
type QuantCheck struct {
	Quantile  string  `json:"quantile"`
	Candidate float64 `json:"candidate"`
	Baseline  float64 `json:"baseline"` // median of history
	Noise     float64 `json:"noise"`    // 1.4826 x MAD of history
	Change    float64 `json:"change"`   // (candidate-baseline)/baseline
	Regressed bool    `json:"regressed"`
}

// Compare judges cand against history (earlier runs of the same
// scenario). A percentile regresses when it is slower than the history
// median by more than Threshold (relative) AND by more than K x the
// noise in history. With one history run the noise is 0, so only the
// relative threshold applies. Latency is from intended start. Only
// steady phases are judged (a load phase is as fast as allowed, ramps
// and searches change rate); ops or phases missing from history are
// not. History runs unlike cand (Unlike) are left out; with fewer than
// MinHistory left there is no verdict (NotJudged).
func Compare(history []*rundir.Summary, cand *rundir.Summary, o RegressOptions) *Regression {
	if o.Threshold <= 0 {
		o.Threshold = DefaultRegressThreshold
	}
	if o.K < 0 {
		o.K = 0
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
	for _, ph := range cand.Phases {
		if ph.Kind != scenarios.PhaseSteady {
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
					if hp := phaseNamed(h, ph.Name); hp != nil && hp.Kind == scenarios.PhaseSteady {
						if ho, ok := hp.Ops[op]; ok && ho.Count > 0 {
							hist = append(hist, quant(ho, q))
						}
					}
				}
				if len(hist) == 0 {
					continue
				}
				qc := judge(q, quant(c, q), hist, o)
				ov.Checks = append(ov.Checks, qc)
				ov.Regressed = ov.Regressed || qc.Regressed
			}
			if len(ov.Checks) == 0 {
				continue
			}
			v.Regressed = v.Regressed || ov.Regressed
			v.Ops = append(v.Ops, ov)
		}
	}
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
		if pa.Kind != scenarios.PhaseSteady || pb == nil || pb.Kind != scenarios.PhaseSteady {
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

func judge(q string, cand float64, hist []float64, o RegressOptions) QuantCheck {
	med := median(hist)
	dev := make([]float64, len(hist))
	for i, x := range hist {
		dev[i] = math.Abs(x - med)
	}
	noise := 1.4826 * median(dev)
	qc := QuantCheck{Quantile: q, Candidate: cand, Baseline: med, Noise: noise}
	if med > 0 {
		qc.Change = (cand - med) / med
	} else if cand > 0 {
		qc.Change = math.Inf(1)
	}
	qc.Regressed = qc.Change > o.Threshold && cand-med > o.K*noise
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
	fmt.Fprintf(&b, "regression check against %d run(s): slower by > %.0f%%", v.History, v.Threshold*100)
	if v.History > 1 {
		fmt.Fprintf(&b, " and > %.1f x noise", v.K)
	}
	b.WriteString(" (latency from intended start)\n")
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PHASE\tOP\tQUANTILE\tBASELINE\tCANDIDATE\tCHANGE\tNOISE\tVERDICT")
	for _, o := range v.Ops {
		for _, c := range o.Checks {
			verdict := "ok"
			if c.Regressed {
				verdict = "REGRESSION"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%+.1f%%\t%s\t%s\n", o.Phase, o.Op, c.Quantile, FormatSeconds(c.Baseline), FormatSeconds(c.Candidate), c.Change*100, FormatSeconds(c.Noise), verdict)
		}
	}
	tw.Flush()
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
	if len(v.Ops) == 0 {
		b.WriteString("no steady-phase op appears in both runs: nothing to compare\n")
	} else if v.Regressed {
		b.WriteString("verdict: REGRESSION\n")
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
