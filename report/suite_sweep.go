package report

import (
	"fmt"
	"html"
	"strings"
	"text/tabwriter"

	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/verdict"
)

// SweepSide is one sweep phase of the side-by-side columns: per column
// (a store's run, a persistence variant) a line of the achieved
// throughput at each point, with its interval over the rounds.
type SweepSide struct {
	Test   string
	Axis   string   // what X is ("" when the points differ in more than one number)
	Labels []string // the points, in the scenario's order
	X      []float64
	Lines  []SweepLine // one per column that ran the sweep
}

// SweepLine is one column's points; Points[i] is Labels[i]'s.
type SweepLine struct {
	Column int
	Points []SweepSidePoint
}

// SweepSidePoint is one point's throughput: the mean over its rounds,
// and after Estimate its 95% interval (none with one round).
type SweepSidePoint struct {
	Present bool
	Rounds  []float64 // achieved ops/s per round
	Mean    float64
	CI      verdict.Interval
}

// buildSweeps lines up the columns' throughput sweeps by phase name
// (less variant and round) and point label.
func buildSweeps(cols []SuiteColumn) []SweepSide {
	var out []SweepSide
	at := map[string]int{}
	for ci, c := range cols {
		lineOf := map[string]int{}
		for i := range c.Sum.Phases {
			p := &c.Sum.Phases[i]
			if p.Variant != c.Variant || p.Sweep == nil || len(p.Sweep.Points) == 0 {
				continue
			}
			test := testName(p)
			si, ok := at[test]
			if !ok {
				si = len(out)
				at[test] = si
				out = append(out, SweepSide{Test: test, Axis: p.Sweep.Axis})
			}
			sw := &out[si]
			li, ok := lineOf[test]
			if !ok {
				li = len(sw.Lines)
				lineOf[test] = li
				sw.Lines = append(sw.Lines, SweepLine{Column: ci})
			}
			for _, pt := range p.Sweep.Points {
				k := sw.point(pt)
				ln := &sw.Lines[li]
				for len(ln.Points) < len(sw.Labels) {
					ln.Points = append(ln.Points, SweepSidePoint{})
				}
				sp := &ln.Points[k]
				sp.Present = true
				sp.Rounds = append(sp.Rounds, pt.AchievedOpsPerSec)
				sp.Mean = 0
				for _, v := range sp.Rounds {
					sp.Mean += v
				}
				sp.Mean /= float64(len(sp.Rounds))
			}
		}
	}
	for si := range out {
		for li := range out[si].Lines {
			for len(out[si].Lines[li].Points) < len(out[si].Labels) {
				out[si].Lines[li].Points = append(out[si].Lines[li].Points, SweepSidePoint{})
			}
		}
	}
	return out
}

// point is the index of pt's label, added when new.
func (sw *SweepSide) point(pt rundir.SweepPoint) int {
	for i, l := range sw.Labels {
		if l == pt.Label {
			return i
		}
	}
	sw.Labels = append(sw.Labels, pt.Label)
	sw.X = append(sw.X, pt.X)
	return len(sw.Labels) - 1
}

// estimateSweeps gives every point with two or more rounds its
// interval: verdict.RateRatio of the rounds' rates over a constant 1
// ops/s, i.e. the bootstrap interval of their mean over rounds.
func (t *SuiteTable) estimateSweeps(o verdict.BootstrapOptions) {
	unit := [][]float64{{1}}
	for si := range t.Sweeps {
		for li := range t.Sweeps[si].Lines {
			for pi := range t.Sweeps[si].Lines[li].Points {
				sp := &t.Sweeps[si].Lines[li].Points[pi]
				if len(sp.Rounds) < 2 {
					continue
				}
				var rounds [][]float64
				for _, v := range sp.Rounds {
					rounds = append(rounds, []float64{v})
				}
				sp.CI = verdict.RateRatio(unit, rounds, o)
			}
		}
	}
}

// lineName is a sweep line's legend: the column's label and variant.
func (t SuiteTable) lineName(ci int) string {
	c := t.Columns[ci]
	name := c.Label
	if c.Variant != "" {
		name += " " + c.Variant
	} else if c.Sum != nil {
		name += " " + string(c.Sum.Target.Kind)
	}
	return name
}

// SweepText is the sweeps' table: per point, each column's achieved
// ops/s (the mean over rounds) with its 95% interval.
func (t SuiteTable) SweepText() string {
	var b strings.Builder
	for _, sw := range t.Sweeps {
		axis := sw.Axis
		if axis == "" {
			axis = "point"
		}
		fmt.Fprintf(&b, "sweep %s: achieved ops/s against %s (mean over rounds [95%% interval over rounds]):\n", sw.Test, axis)
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
		hdr := []string{"  point"}
		for _, ln := range sw.Lines {
			hdr = append(hdr, t.lineName(ln.Column))
		}
		fmt.Fprintln(tw, strings.Join(hdr, "\t")+"\t")
		for i, lbl := range sw.Labels {
			line := []string{"  " + lbl}
			for _, ln := range sw.Lines {
				sp := ln.Points[i]
				switch {
				case !sp.Present:
					line = append(line, "-")
				case sp.CI.Valid():
					line = append(line, fmt.Sprintf("%.1f [%.1f-%.1f]", sp.Mean, sp.CI.Lo, sp.CI.Hi))
				default:
					line = append(line, fmt.Sprintf("%.1f (1 round)", sp.Mean))
				}
			}
			fmt.Fprintln(tw, strings.Join(line, "\t")+"\t")
		}
		tw.Flush()
	}
	return b.String()
}

// SweepPlots are the sweeps' charts: throughput against the sweep's
// axis, one line per column, each point with its interval as an error
// bar.
func (t SuiteTable) SweepPlots() []Plot {
	var out []Plot
	for _, sw := range t.Sweeps {
		xl := sw.Axis
		p := Plot{Title: fmt.Sprintf("%s: throughput per point", sw.Test), XLabel: xl, YLabel: "ops/s"}
		x := func(i int) float64 { return sw.X[i] }
		if xl == "" {
			p.XLabel = "point"
			x = func(i int) float64 { return float64(i + 1) }
			for i, l := range sw.Labels {
				p.XTicks = append(p.XTicks, Point{X: float64(i + 1), Label: l})
			}
		}
		for _, ln := range sw.Lines {
			s := Series{Name: t.lineName(ln.Column)}
			for i, sp := range ln.Points {
				if !sp.Present {
					continue
				}
				pt := Point{X: x(i), Y: round6(sp.Mean), Label: sw.Labels[i]}
				if sp.CI.Valid() {
					pt.Lo, pt.Hi = round6(sp.CI.Lo), round6(sp.CI.Hi)
				}
				s.Points = append(s.Points, pt)
			}
			p.Series = append(p.Series, s)
		}
		out = append(out, p)
	}
	return out
}

func writeSweepSection(b *strings.Builder, t SuiteTable) {
	if len(t.Sweeps) == 0 {
		return
	}
	b.WriteString(`<h2>sweeps side by side</h2><div class="plots">`)
	for _, p := range t.SweepPlots() {
		b.WriteString(SVGPlot(p))
	}
	fmt.Fprintf(b, `</div><pre class="suite">%s</pre>`, html.EscapeString(t.SweepText()))
}
