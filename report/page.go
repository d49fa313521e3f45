package report

import (
	"fmt"
	"html"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/soakd/soakd/internal/term"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
)

// pageStyle is every soakd HTML page's style. Charts take the page's
// width up to their own (1100 units): their 15-unit text is 15 px on a
// wide screen and no less than 11 px on a 900 px one.
const pageStyle = `<style>
body{font-family:sans-serif;margin:20px;color:#222;max-width:1400px}h1{font-size:20px;margin-bottom:6px}h2{font-size:17px;border-bottom:1px solid #ccc}
.plots{display:flex;flex-direction:column;gap:14px}.plots svg.plot,.plots svg.bars{width:100%;max-width:1100px;height:auto}.note{background:#fff6d5;padding:4px 8px;margin:4px 0}
table.head{border-collapse:collapse;font-size:14px}table.head th{text-align:left;padding:2px 12px 2px 0;color:#555;font-weight:normal}table.head td{padding:2px 0}
.fail{color:#b00000;font-weight:bold}.pass{color:#137a13;font-weight:bold}.none{color:#555}ul.failed{margin:4px 0 10px;color:#b00000}
pre{background:#f6f6f6;padding:8px;overflow:auto;font-size:12px}svg text{font-size:15px}
nav.toc{background:#f4f6fa;padding:6px 12px;margin:10px 0;font-size:14px}nav.toc ol{margin:4px 0;padding-left:22px}nav.toc li{margin:2px 0}
details.phase>summary{cursor:pointer;list-style-position:outside}details.phase>summary h2{display:inline-block;margin:10px 0 6px}
</style>`

// pageHead opens a soakd HTML page titled "soakd report".
const pageHead = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>soakd report</title>` + pageStyle + `</head><body>`

// pageOpen opens a report page titled after its runs: scenario, start
// time and how it ended, so a tab among several says which run it is.
func pageOpen(sums []*rundir.Summary) string {
	return `<!DOCTYPE html><html><head><meta charset="utf-8"><title>` + html.EscapeString(pageTitle(sums)) + `</title>` + pageStyle + `</head><body>`
}

// pageTitle names the runs: "soakd: <scenario> <start> <verdict>".
func pageTitle(sums []*rundir.Summary) string {
	var names []string
	for _, s := range sums {
		t := s.Scenario
		if !s.Start.IsZero() {
			t += " " + s.Start.UTC().Format("2006-01-02 15:04 UTC")
		}
		t += " " + VerdictLine(s.Status, s.StatusReason, s.SLO)
		names = append(names, t)
	}
	return "soakd: " + strings.Join(names, " | ")
}

// phaseVerdict is a phase's verdict in a few words, and its class
// (pass, fail or none) for the contents list and its section heading.
func phaseVerdict(p *rundir.PhaseResult) (string, string) {
	if p == nil {
		return "", "none"
	}
	var v string
	cls := "none"
	switch {
	case p.SLO == nil || len(p.SLO.Checks) == 0:
		v = "no SLO"
	case p.SLO.Passed:
		v, cls = "SLO passed", "pass"
	default:
		var failed []string
		for _, c := range p.SLO.Checks {
			if !c.Passed {
				failed = append(failed, c.String())
			}
		}
		v, cls = "SLO failed: "+strings.Join(failed, "; "), "fail"
	}
	if p.EndedEarly != nil {
		v += "; ended early"
		cls = "fail"
	}
	if p.Self != nil && p.Self.Bound != "" {
		// Its figures measure soakd or the host: no word on the store.
		v += "; no verdict on the store: " + p.Self.Bound + "-bound"
		if cls == "pass" {
			cls = "none"
		}
	}
	return v, cls
}

// ReportHTML renders one self-contained page (inline SVG, no scripts or
// external resources) for one or more runs; tls[i] (or nil) is run i's
// timeline.
func ReportHTML(sums []*rundir.Summary, tls []*Timeline) []byte {
	var b strings.Builder
	b.WriteString(pageOpen(sums))
	for i, s := range sums {
		var tl *Timeline
		if i < len(tls) {
			tl = tls[i]
		}
		rd := BuildReport(s, tl)
		writeHeader(&b, s, rd)
		byName := map[string]*rundir.PhaseResult{}
		for j := range s.Phases {
			byName[s.Phases[j].Name] = &s.Phases[j]
		}
		// Persistence variants and repeated rounds of steady phases (the
		// redis-benchmark suite, AOF on and off) are one table and its
		// charts, not a section per phase and round.
		summarised := map[string]bool{}
		st := runSuite(s)
		if st != nil {
			writeSuiteSection(&b, *st)
			for _, p := range s.Phases {
				if suitePhase(&p) && (p.Variant != "" || p.Repeat > 0) {
					summarised[p.Name] = true
				}
			}
			fmt.Fprintf(&b, `<div class="note">%d phases (variants and rounds) are summarised in the table above; each one's figures are in the summary table at the end</div>`, len(summarised))
		}
		var shown []PhasePlots
		for _, pp := range rd.Phases {
			if !summarised[pp.Phase] {
				shown = append(shown, pp)
			}
		}
		// A contents list: each phase's verdict, linking to its section.
		id := func(j int) string { return fmt.Sprintf("run%d-phase%d", i+1, j+1) }
		if len(shown) > 1 {
			b.WriteString(`<nav class="toc"><b>contents</b><ol>`)
			for j, pp := range shown {
				v, cls := phaseVerdict(byName[pp.Phase])
				fmt.Fprintf(&b, `<li><a href="#%s">%s (%s)</a>`, id(j), html.EscapeString(pp.Phase), html.EscapeString(pp.Kind))
				if v != "" {
					fmt.Fprintf(&b, ` &middot; <span class="%s">%s</span>`, cls, html.EscapeString(v))
				}
				fmt.Fprintf(&b, `, %d charts</li>`, len(pp.Plots))
			}
			fmt.Fprintf(&b, `<li><a href="#run%d-table">summary table</a></li></ol></nav>`, i+1)
		}
		// Sections fold: each opens as a <details>, open.
		for j, pp := range shown {
			v, cls := phaseVerdict(byName[pp.Phase])
			fmt.Fprintf(&b, `<details class="phase" id="%s" open><summary><h2>phase %s (%s)</h2>`, id(j), html.EscapeString(pp.Phase), html.EscapeString(pp.Kind))
			if v != "" {
				fmt.Fprintf(&b, ` <span class="%s">%s</span>`, cls, html.EscapeString(v))
			}
			b.WriteString("</summary>")
			for _, n := range pp.Notes {
				fmt.Fprintf(&b, `<div class="note">%s</div>`, html.EscapeString(n))
			}
			b.WriteString(`<div class="plots">`)
			for _, pl := range pp.Plots {
				b.WriteString(SVGPlot(pl))
			}
			b.WriteString("</div></details>")
		}
		// The summary table's variant table is the page's own suite
		// table when the run has variants (variantSuite's rule): its
		// intervals are estimated once.
		var variantTable *SuiteTable
		if len(variants(s)) >= 2 {
			variantTable = st
		}
		fmt.Fprintf(&b, `<details id="run%d-table"><summary>summary table</summary><pre>%s</pre></details>`, i+1, html.EscapeString(textWith(s, variantTable)))
	}
	b.WriteString("</body></html>\n")
	return []byte(b.String())
}

// runSuite is the side-by-side table of a run's persistence variants or
// repeated rounds; nil when it has neither.
func runSuite(s *rundir.Summary) *SuiteTable {
	repeated := len(variants(s)) >= 2
	for _, p := range s.Phases {
		repeated = repeated || (p.Repeat > 0 && suitePhase(&p))
	}
	if !repeated {
		return nil
	}
	return ownSuite(s)
}

// writeHeader writes what ran, against what, when, how hard and how it
// ended, naming each failed check.
func writeHeader(b *strings.Builder, s *rundir.Summary, rd ReportData) {
	fmt.Fprintf(b, "<h1>soakd: %s</h1><table class=\"head\">", html.EscapeString(rd.Scenario))
	row := func(k, v string) {
		fmt.Fprintf(b, "<tr><th>%s</th><td>%s</td></tr>", k, v)
	}
	tgt := s.Target.Kind
	if s.Target.URL != "" {
		tgt += " " + scenarios.RedactURL(s.Target.URL)
	}
	vs := variants(s)
	if srv := s.Target.Server; srv != "" {
		if len(vs) >= 2 {
			// The server line names the first variant's persistence;
			// the run had more, listed below.
			srv = persistenceNote.ReplaceAllString(srv, "")
		}
		tgt += " (" + srv + ")"
	}
	if s.Target.Note != "" {
		tgt += " (" + s.Target.Note + ")"
	}
	row("target", html.EscapeString(tgt))
	if len(vs) >= 2 {
		row("persistence variants", html.EscapeString(strings.Join(vs, ", ")+" (each on a fresh server, in this order)"))
	}
	for _, v := range slices.Sorted(maps.Keys(s.Target.Variants)) {
		row("target "+html.EscapeString(v), html.EscapeString(scenarios.RedactURL(s.Target.Variants[v])))
	}
	ver := s.SoakdVersion
	if ver == "" {
		ver = "not recorded"
	}
	row("soakd version", html.EscapeString(ver))
	if !s.Start.IsZero() {
		row("started", html.EscapeString(s.Start.UTC().Format("2006-01-02 15:04:05 UTC")))
		if s.End.After(s.Start) {
			row("duration", html.EscapeString(s.End.Sub(s.Start).Round(time.Second).String()))
		}
	}
	row("rate", html.EscapeString(rateSummary(s)))
	verdictLine := VerdictLine(s.Status, s.StatusReason, s.SLO)
	cls := "fail"
	if verdictLine == "SLO PASSED" {
		cls = "pass"
	}
	row("status", html.EscapeString(s.Status)+` &middot; <span class="`+cls+`">`+html.EscapeString(verdictLine)+"</span>")
	b.WriteString("</table>")
	if rd.Memory != "" {
		fmt.Fprintf(b, "<p>memory limits: %s</p>", html.EscapeString(rd.Memory))
	}
	var failed []string
	for _, c := range s.SLO.Checks {
		if !c.Passed {
			f := c.String()
			if c.Metric == rundir.HighestRateHeld {
				// "highest_rate_held 0 <= 0" says nothing: say why.
				for i := range s.Phases {
					if p := &s.Phases[i]; p.Name == c.Phase {
						if why := capacityWhyOf(p); why != "" {
							f = why
						}
					}
				}
			}
			if c.Phase != "" {
				f = "phase " + c.Phase + ": " + f
			}
			failed = append(failed, f)
		}
	}
	if len(failed) > 0 {
		b.WriteString(`<ul class="failed">`)
		for _, f := range failed {
			fmt.Fprintf(b, "<li>failed: %s</li>", html.EscapeString(f))
		}
		b.WriteString("</ul>")
	}
}

// persistenceNote is the "(persistence rdb:2)" of a server line.
var persistenceNote = regexp.MustCompile(` ?\(persistence [^)]*\)`)

// rateSummary is the run's scheduled rates in one line: "2000 ops/s", or
// the range over its phases and stages. A phase or stage whose rate
// changed live reports a time-weighted rate no one scheduled: its rates
// before and after each change are counted instead, and the changes
// named.
func rateSummary(s *rundir.Summary) string {
	rates := map[float64]bool{}
	var live, timed []string
	for _, p := range s.Phases {
		changed := map[string]bool{}
		for _, c := range p.RateChanges {
			changed[c.Stage] = true
			if c.FromRate > 0 {
				rates[c.FromRate] = true
			}
			if c.Rate > 0 {
				rates[c.Rate] = true
			}
			live = append(live, fmt.Sprintf("%s +%s -> %s", p.Name, term.Duration(time.Duration(c.OffsetSeconds*float64(time.Second))), rateStr(c.Rate)))
		}
		if replayTimed(&p) && len(p.RateChanges) == 0 {
			// No rate was scheduled: the capture's timing was.
			timed = append(timed, p.Name)
			continue
		}
		if p.TargetRate > 0 && len(p.RateChanges) == 0 {
			rates[p.TargetRate] = true
		}
		for _, st := range p.Stages {
			if st.TargetRate > 0 && !changed[st.Name] && !changed[""] {
				rates[st.TargetRate] = true
			}
		}
	}
	out := rateRange(rates)
	if len(timed) > 0 {
		what := "the capture's own timing (" + strings.Join(timed, ", ") + ")"
		if len(rates) == 0 {
			out = what
		} else {
			out += "; " + what
		}
	}
	if len(live) > 0 {
		out += "; changed live: " + strings.Join(live, ", ")
	}
	return out
}

// rateRange is a set of rates in words.
func rateRange(rates map[float64]bool) string {
	var rs []float64
	for r := range rates {
		rs = append(rs, r)
	}
	sort.Float64s(rs)
	switch len(rs) {
	case 0:
		return "closed loop (no target rate)"
	case 1:
		return rateStr(rs[0])
	}
	return fmt.Sprintf("%.0f to %s (%d target rates over its phases and stages)", rs[0], rateStr(rs[len(rs)-1]), len(rs))
}
