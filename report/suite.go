package report

import (
	"fmt"
	"html"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/verdict"
)

// SuiteColumn is one server or persistence variant of a side-by-side
// table: a run directory, or one persistence variant of it.
type SuiteColumn struct {
	Label   string // "A", "B", ...
	Source  string // the run directory ("" for a run's own summary)
	Variant string // the persistence variant, "" when the run has none
	Sum     *rundir.Summary
}

// SuiteCell is one test's figures in one column, all from summary.json:
// RPS is the phase's achieved_rate (ops completed in the measured window
// per second of it), P50 and P99 the op's latency percentiles (seconds,
// from intended start).
type SuiteCell struct {
	Present  bool
	Requests int64 // the op's measured ops (count)
	RPS      float64
	P50, P99 float64
	// Split: the phase ran several ops; RPS is the phase's achieved_rate
	// times this op's share of the phase's completed ops.
	Split bool
	// Rounds are the rounds of a repeated phase (one, unrepeated, else
	// repeat: N's), in round order. With several, RPS, P50 and P99 are
	// their means (P50/P99 the merged latency's when the latency log was
	// read: LoadIntervals).
	Rounds []SuiteRound
	// Bound is set when a round of the test was generator- or
	// host-bound (rundir.SelfHealth.Bound); Withheld then says why no
	// verdict is given on it (suite_bound.go).
	Bound, Withheld string
}

// SuiteRound is one round of a test in one column.
type SuiteRound struct {
	Repeat int    // 1..N; 0 unrepeated
	Phase  string // the phase's name in the run (its hlog tag prefix)
	RPS    float64
	P50    float64
	P99    float64
	// Rates are the op's completions per second in each interval of
	// latency.hlog inside the phase's measured window, and Latency its
	// interval histograms (LoadIntervals; nil until then).
	Rates   []float64
	Latency []*hdr.Histogram
	start   time.Time // the measured window (warmup excluded)
	end     time.Time
}

// SuiteRow is one test (a steady or load phase, and one op of it).
type SuiteRow struct {
	Test  string // the phase name, without the variant
	Op    string
	Cells []SuiteCell // one per column
	// RPSRatio and P99Ratio are column ci's rps and p99 over the first
	// column's with their 95% intervals (index 0 unused; zero Intervals
	// until Estimate, or when there is not enough to bootstrap), Control
	// the first column against itself (its rounds split in two).
	RPSRatio, P99Ratio []verdict.Interval
	Control            verdict.Interval
	// FixedRate: every column ran the test at a target rate (open loop).
	// Its rps is the schedule's, equal by construction whatever the
	// store did, so the verdict reads its latency (Verdict).
	FixedRate bool
}

// SuiteTable is the redis-benchmark style table of several servers or
// persistence variants side by side.
type SuiteTable struct {
	Columns []SuiteColumn
	Rows    []SuiteRow
	// Geomean is each column's suite score over the first's (index 0
	// unused), with its interval: see Estimate.
	Geomean []verdict.Interval
	// ShowControl prints the A/A control column (--control).
	ShowControl bool
	// Sweeps are the columns' sweep phases side by side.
	Sweeps []SweepSide
	// intervals: LoadIntervals read the latency logs.
	intervals bool
}

// SuiteColumns makes the columns of a side-by-side table: one per run,
// or, for a run with persistence variants, one per variant in the order
// they ran. sources[i] names sums[i].
func SuiteColumns(sources []string, sums []*rundir.Summary) []SuiteColumn {
	var cols []SuiteColumn
	for i, s := range sums {
		src := ""
		if i < len(sources) {
			src = sources[i]
		}
		vs := variants(s)
		if len(vs) == 0 {
			vs = []string{""}
		}
		for _, v := range vs {
			cols = append(cols, SuiteColumn{Label: colLabel(len(cols)), Source: src, Variant: v, Sum: s})
		}
	}
	return cols
}

// variants lists a run's persistence variants in the order they ran.
func variants(s *rundir.Summary) []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range s.Phases {
		if p.Variant != "" && !seen[p.Variant] {
			seen[p.Variant] = true
			out = append(out, p.Variant)
		}
	}
	return out
}

func colLabel(i int) string {
	if i < 26 {
		return string(rune('A' + i))
	}
	return fmt.Sprintf("C%d", i+1)
}

// suitePhase says whether a phase is a test of the table: its kind has
// one rate over one window (steady, load).
func suitePhase(p *rundir.PhaseResult) bool {
	return kindOf(p).suiteTest
}

// BuildSuite lines the columns' tests up by phase name (less the
// variant) and op, in the order they first ran.
func BuildSuite(cols []SuiteColumn) SuiteTable {
	t := SuiteTable{Columns: cols}
	at := map[string]int{}
	for ci, c := range cols {
		for i := range c.Sum.Phases {
			p := &c.Sum.Phases[i]
			if p.Variant != c.Variant || !suitePhase(p) {
				continue
			}
			test := testName(p)
			for _, op := range slices.Sorted(maps.Keys(p.Ops)) {
				o := p.Ops[op]
				if o.Count == 0 {
					continue
				}
				key := test + "\x00" + op
				ri, ok := at[key]
				if !ok {
					ri = len(t.Rows)
					at[key] = ri
					t.Rows = append(t.Rows, SuiteRow{Test: test, Op: op, Cells: make([]SuiteCell, len(cols)), FixedRate: true})
				}
				if p.TargetRate <= 0 {
					t.Rows[ri].FixedRate = false
				}
				rd := SuiteRound{Repeat: p.Repeat, Phase: p.Name, RPS: p.AchievedRate, P50: o.Latency.P50, P99: o.Latency.P99,
					start: p.Start.Add(time.Duration(p.WarmupSeconds * float64(time.Second))), end: p.End}
				cell := &t.Rows[ri].Cells[ci]
				if len(p.Ops) > 1 {
					cell.Split = true
					rd.RPS = 0
					if p.Completed > 0 {
						rd.RPS = p.AchievedRate * float64(o.Count) / float64(p.Completed)
					}
				}
				cell.Present = true
				cell.markBound(p)
				cell.Requests += o.Count
				cell.Rounds = append(cell.Rounds, rd)
				cell.summarize()
			}
		}
	}
	t.Sweeps = buildSweeps(cols)
	return t
}

// testName is a phase's test: its name without the variant and round.
func testName(p *rundir.PhaseResult) string {
	n := p.Name
	if p.Repeat > 0 {
		n = strings.TrimSuffix(n, fmt.Sprintf("#%d", p.Repeat))
	}
	return strings.TrimSuffix(n, "["+p.Variant+"]")
}

// summarize sets the cell's RPS, P50 and P99 from its rounds: their
// means.
func (c *SuiteCell) summarize() {
	var rps, p50, p99 float64
	for _, r := range c.Rounds {
		rps += r.RPS
		p50 += r.P50
		p99 += r.P99
	}
	n := float64(len(c.Rounds))
	c.RPS, c.P50, c.P99 = rps/n, p50/n, p99/n
}

// rounds is the most rounds any of the column's tests ran.
func (c SuiteColumn) rounds() int {
	n := 0
	seen := map[string]int{}
	for _, p := range c.Sum.Phases {
		if p.Variant == c.Variant && p.Repeat > 0 {
			k := testName(&p)
			seen[k]++
			n = max(n, seen[k])
		}
	}
	return n
}

// Ratio is column ci's rps against the first column's in row r, false
// when either is missing or the first is 0.
func (r SuiteRow) Ratio(ci int) (float64, bool) {
	a, b := r.Cells[0], r.Cells[ci]
	if !a.Present || !b.Present || a.RPS <= 0 {
		return 0, false
	}
	return b.RPS / a.RPS, true
}

// Describe is a column's one-line legend: source, target and variant.
func (c SuiteColumn) Describe() string {
	var b strings.Builder
	if c.Source != "" {
		fmt.Fprintf(&b, "%s: ", c.Source)
	}
	fmt.Fprintf(&b, "%s, target %s", c.Sum.Scenario, c.Sum.Target.Kind)
	if u, ok := c.Sum.Target.Variants[c.Variant]; ok {
		// One of several targets: the run's URL and server are the
		// first target's.
		fmt.Fprintf(&b, " %s %s", c.Variant, u)
		if n := c.rounds(); n > 1 {
			fmt.Fprintf(&b, ", %d rounds", n)
		}
		if c.Sum.Status != rundir.StatusCompleted {
			fmt.Fprintf(&b, ", status %s", c.Sum.Status)
		}
		return b.String()
	}
	if c.Sum.Target.URL != "" {
		fmt.Fprintf(&b, " %s", scenarios.RedactURL(c.Sum.Target.URL))
	}
	if srv := c.Sum.Target.Server; srv != "" {
		if vs := variants(c.Sum); c.Variant != "" && len(vs) > 0 {
			// The server line names the first variant's persistence.
			srv = strings.ReplaceAll(srv, " (persistence "+vs[0]+")", "")
		}
		fmt.Fprintf(&b, " (%s)", srv)
	}
	if c.Variant != "" {
		fmt.Fprintf(&b, ", persistence %s", c.Variant)
	}
	if n := c.rounds(); n > 1 {
		fmt.Fprintf(&b, ", %d rounds", n)
	}
	if c.Sum.Status != rundir.StatusCompleted {
		fmt.Fprintf(&b, ", status %s", c.Sum.Status)
	}
	return b.String()
}

// Text renders the table the way redis-benchmark users read it: per
// test, the requests, then rps, p50 and p99 (milliseconds, from intended
// start) per column, then each column's rps (and, with the latency log
// read, p99) against the first column's with its 95% interval, and
// whether that difference is within noise (the interval holds 1).
func (t SuiteTable) Text() string {
	var b strings.Builder
	b.WriteString("side by side (rps = achieved_rate over the phase's measured window; p50/p99 latency from intended start, ms; B/A = B's rps / A's rps):\n")
	split := false
	for _, c := range t.Columns {
		fmt.Fprintf(&b, "  %s = %s\n", c.Label, c.Describe())
	}
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	hdr := []string{"  test", "op", "requests"}
	for _, c := range t.Columns {
		hdr = append(hdr, c.Label+" rps", c.Label+" p50", c.Label+" p99")
	}
	a := t.Columns[0].Label
	for _, c := range t.Columns[1:] {
		hdr = append(hdr, c.Label+"/"+a)
		if t.intervals {
			hdr = append(hdr, c.Label+"/"+a+" p99")
		}
		hdr = append(hdr, c.Label+" vs "+a)
	}
	if t.ShowControl {
		hdr = append(hdr, a+"/"+a+" control")
	}
	fmt.Fprintln(tw, strings.Join(hdr, "\t")+"\t")
	for _, r := range t.Rows {
		line := []string{"  " + r.Test, r.Op, requestsCell(r.Cells)}
		for _, c := range r.Cells {
			if !c.Present {
				line = append(line, "-", "-", "-")
				continue
			}
			rps := fmt.Sprintf("%.2f", c.RPS)
			if c.Split {
				rps += "*"
				split = true
			}
			line = append(line, rps, fmt.Sprintf("%.3f", c.P50*1e3), fmt.Sprintf("%.3f", c.P99*1e3))
		}
		for ci := 1; ci < len(r.Cells); ci++ {
			v, ok := r.Ratio(ci)
			iv := r.ratio(ci)
			switch {
			case !ok:
				line = append(line, "-")
			case iv.Valid():
				line = append(line, ratioText(v, iv))
			default:
				line = append(line, fmt.Sprintf("%.2f", v))
			}
			if t.intervals {
				if p := r.p99Ratio(ci); p.Valid() {
					line = append(line, ivText(p))
				} else {
					line = append(line, "-")
				}
			}
			line = append(line, r.Verdict(ci))
		}
		if t.ShowControl {
			if r.Control.Valid() {
				line = append(line, ivText(r.Control))
			} else {
				line = append(line, "-")
			}
		}
		fmt.Fprintln(tw, strings.Join(line, "\t")+"\t")
	}
	tw.Flush()
	if split {
		b.WriteString("  * a phase of several ops: its achieved_rate split by each op's share of the completed ops\n")
	}
	t.writeNotes(&b)
	return b.String()
}

// requestsCell is the requests every column ran, or each column's when
// they differ ("-" where a column lacks the test).
func requestsCell(cells []SuiteCell) string {
	same := true
	var first int64 = -1
	var each []string
	for _, c := range cells {
		if !c.Present {
			each = append(each, "-")
			continue
		}
		each = append(each, fmt.Sprint(c.Requests))
		if first < 0 {
			first = c.Requests
		} else if c.Requests != first {
			same = false
		}
	}
	if same && first >= 0 && !strings.Contains(strings.Join(each, ","), "-") {
		return fmt.Sprint(first)
	}
	return strings.Join(each, "/")
}

// variantSuite is the side-by-side table of a run's own persistence
// variants, nil when it has fewer than two or they ran no steady or load
// phase.
func variantSuite(s *rundir.Summary) *SuiteTable {
	if len(variants(s)) < 2 {
		return nil
	}
	return ownSuite(s)
}

// ownSuite is the side-by-side table of a run's own columns (its
// variants, its rounds) with their intervals; nil when it has no row.
// It is made as report --side-by-side makes it (the seconds of the run
// directory's latency.hlog resampled within each round), so every place
// that shows the run's table shows the same digits; a summary with no
// directory, or an unreadable log, falls back to the rounds alone.
func ownSuite(s *rundir.Summary) *SuiteTable {
	t := BuildSuite(SuiteColumns(nil, []*rundir.Summary{s}))
	if len(t.Rows) == 0 {
		return nil
	}
	_ = t.LoadIntervals(func(SuiteColumn) string { return s.Dir })
	t.Estimate(verdict.BootstrapOptions{})
	return &t
}

// SuiteBars is the table's chart: one row per test, one bar per column
// in it, the achieved ops/s on the left and the p99 on the right.
func (t SuiteTable) SuiteBars() Bars {
	c := Bars{Title: "per test, one bar per column: throughput and p99 side by side"}
	rps := BarPanel{Title: "achieved ops/s", Unit: "ops/s"}
	p99 := BarPanel{Title: "p99 latency (s), from intended start", Unit: "latency (s)"}
	for _, r := range t.Rows {
		lbl := r.Test
		if r.Op != r.Test {
			lbl += " " + r.Op
		}
		c.Labels = append(c.Labels, lbl)
	}
	for ci, col := range t.Columns {
		name := col.Label
		if col.Variant != "" {
			name += " " + col.Variant
		}
		rs, ps := BarSeries{Name: name}, BarSeries{Name: name}
		for _, r := range t.Rows {
			cell := r.Cells[ci]
			rs.Values, rs.Present = append(rs.Values, round6(cell.RPS)), append(rs.Present, cell.Present)
			ps.Values, ps.Present = append(ps.Values, cell.P99), append(ps.Present, cell.Present)
			// A column against the first: its bar's interval is the
			// first column's value times the ratio's (the table's B/A).
			var rlo, rhi, plo, phi float64
			if a := r.Cells[0]; ci > 0 && a.Present && cell.Present {
				if iv := r.ratio(ci); iv.Valid() {
					rlo, rhi = a.RPS*iv.Lo, a.RPS*iv.Hi
				}
				if iv := r.p99Ratio(ci); iv.Valid() {
					plo, phi = a.P99*iv.Lo, a.P99*iv.Hi
				}
			}
			rs.Lo, rs.Hi = append(rs.Lo, rlo), append(rs.Hi, rhi)
			ps.Lo, ps.Hi = append(ps.Lo, plo), append(ps.Hi, phi)
		}
		rps.Series, p99.Series = append(rps.Series, rs), append(p99.Series, ps)
	}
	c.Panels = []BarPanel{rps, p99}
	return c
}

// SuiteHTML is a self-contained page of the side-by-side table: its
// chart and the table itself.
func SuiteHTML(t SuiteTable) []byte {
	var b strings.Builder
	b.WriteString(pageHead)
	b.WriteString("<h1>soakd: side by side</h1><ul>")
	for _, c := range t.Columns {
		fmt.Fprintf(&b, "<li>%s = %s</li>", html.EscapeString(c.Label), html.EscapeString(c.Describe()))
	}
	b.WriteString("</ul>")
	writeSuiteSection(&b, t)
	writeSweepSection(&b, t)
	b.WriteString("</body></html>\n")
	return []byte(b.String())
}

func writeSuiteSection(b *strings.Builder, t SuiteTable) {
	b.WriteString(`<h2>side by side</h2><div class="plots">`)
	b.WriteString(SVGBars(t.SuiteBars()))
	fmt.Fprintf(b, `</div><pre class="suite">%s</pre>`, html.EscapeString(t.Text()))
}
