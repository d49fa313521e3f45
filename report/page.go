package report

import (
	"fmt"
	"html"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
)

// pageHead opens every soakd HTML page. Charts take the page's width.
const pageHead = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>soakd report</title><style>
body{font-family:sans-serif;margin:20px;color:#222;max-width:1400px}h1{font-size:20px;margin-bottom:6px}h2{font-size:17px;border-bottom:1px solid #ccc}
.plots{display:flex;flex-direction:column;gap:14px}.plots svg.plot,.plots svg.bars{width:100%;height:auto}.note{background:#fff6d5;padding:4px 8px;margin:4px 0}
table.head{border-collapse:collapse;font-size:14px}table.head th{text-align:left;padding:2px 12px 2px 0;color:#555;font-weight:normal}table.head td{padding:2px 0}
.fail{color:#b00000;font-weight:bold}.pass{color:#137a13;font-weight:bold}ul.failed{margin:4px 0 10px;color:#b00000}
pre{background:#f6f6f6;padding:8px;overflow:auto;font-size:12px}svg text{font-size:12px}
</style></head><body>`

// ReportHTML renders one self-contained page (inline SVG, no scripts or
// external resources) for one or more runs; tls[i] (or nil) is run i's
// timeline.
func ReportHTML(sums []*rundir.Summary, tls []*Timeline) []byte {
	var b strings.Builder
	b.WriteString(pageHead)
	for i, s := range sums {
		var tl *Timeline
		if i < len(tls) {
			tl = tls[i]
		}
		rd := BuildReport(s, tl)
		writeHeader(&b, s, rd)
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
		for _, pp := range rd.Phases {
			if summarised[pp.Phase] {
				continue
			}
			fmt.Fprintf(&b, "<h2>phase %s (%s)</h2>", html.EscapeString(pp.Phase), html.EscapeString(pp.Kind))
			for _, n := range pp.Notes {
				fmt.Fprintf(&b, `<div class="note">%s</div>`, html.EscapeString(n))
			}
			b.WriteString(`<div class="plots">`)
			for _, pl := range pp.Plots {
				b.WriteString(SVGPlot(pl))
			}
			b.WriteString("</div>")
		}
		// The summary table's variant table is the page's own suite
		// table when the run has variants (variantSuite's rule): its
		// intervals are estimated once.
		var variantTable *SuiteTable
		if len(variants(s)) >= 2 {
			variantTable = st
		}
		fmt.Fprintf(&b, "<details><summary>summary table</summary><pre>%s</pre></details>", html.EscapeString(textWith(s, variantTable)))
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
	if s.Target.Server != "" {
		tgt += " (" + s.Target.Server + ")"
	}
	if s.Target.Note != "" {
		tgt += " (" + s.Target.Note + ")"
	}
	row("target", html.EscapeString(tgt))
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

// rateSummary is the run's target rates in one line: "2000 ops/s", or
// the range over its phases and stages.
func rateSummary(s *rundir.Summary) string {
	rates := map[float64]bool{}
	for _, p := range s.Phases {
		if p.TargetRate > 0 {
			rates[p.TargetRate] = true
		}
		for _, st := range p.Stages {
			if st.TargetRate > 0 {
				rates[st.TargetRate] = true
			}
		}
	}
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
