package daemon

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/soakd/soakd/engine"
)

// RegressOptions tune Compare.
type RegressOptions struct {
	// Threshold is the relative change that counts (0.2 = 20% slower).
	Threshold float64
	// K: the change must also exceed K times the noise seen in history
	// (1.4826 x MAD of the percentile across the history runs).
	K float64
}

// Quantiles compared, by their summary names.
var regressQuantiles = []string{"p50", "p99", "p99.9"}

// Verdict is the regression verdict for one candidate run.
type Verdict struct {
	Regressed bool        `json:"regressed"`
	History   int         `json:"history"` // runs compared against
	Threshold float64     `json:"threshold"`
	K         float64     `json:"k"`
	Ops       []OpVerdict `json:"ops"`
}

// OpVerdict is one op in one phase.
type OpVerdict struct {
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
// relative threshold applies. Latency is from intended start. Ops or
// phases missing from history are not judged.
func Compare(history []*engine.Summary, cand *engine.Summary, o RegressOptions) *Verdict {
	if o.Threshold <= 0 {
		o.Threshold = DefaultThreshold
	}
	if o.K < 0 {
		o.K = 0
	}
	v := &Verdict{History: len(history), Threshold: o.Threshold, K: o.K}
	for _, ph := range cand.Phases {
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
			ov := OpVerdict{Phase: ph.Name, Op: op}
			for _, q := range regressQuantiles {
				var hist []float64
				for _, h := range history {
					if hp := findPhase(h, ph.Name); hp != nil {
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

func findPhase(s *engine.Summary, name string) *engine.PhaseResult {
	for i := range s.Phases {
		if s.Phases[i].Name == name {
			return &s.Phases[i]
		}
	}
	return nil
}

func quant(o engine.OpResult, q string) float64 {
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

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// OpRegressed folds the verdict to one flag per op (any phase), for the
// soakd_regression{scenario,op} gauge.
func (v *Verdict) OpRegressed() map[string]bool {
	out := map[string]bool{}
	for _, o := range v.Ops {
		out[o.Op] = out[o.Op] || o.Regressed
	}
	return out
}

// Table renders the verdict as a per-op table.
func (v *Verdict) Table() string {
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
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%+.1f%%\t%s\t%s\n", o.Phase, o.Op, c.Quantile, fmtSec(c.Baseline), fmtSec(c.Candidate), c.Change*100, fmtSec(c.Noise), verdict)
		}
	}
	tw.Flush()
	if len(v.Ops) == 0 {
		b.WriteString("no op appears in both runs: nothing to compare\n")
	} else if v.Regressed {
		b.WriteString("verdict: REGRESSION\n")
	} else {
		b.WriteString("verdict: ok\n")
	}
	return b.String()
}

func fmtSec(s float64) string {
	switch {
	case s == 0:
		return "0"
	case s < 1e-3:
		return fmt.Sprintf("%.0fus", s*1e6)
	case s < 1:
		return fmt.Sprintf("%.2fms", s*1e3)
	}
	return fmt.Sprintf("%.2fs", s)
}
