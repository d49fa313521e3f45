package report

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// Series colours (the second, red, is the B column of side-by-side
// charts; cliffs take colours of their own).
var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"}

// Series dash patterns, so series that lie on each other (read and
// update at the same latency) still show both: the first is solid, the
// next ones leave gaps the earlier show through.
var dashes = []string{"", "9,5", "3,4", "12,4,3,4", "6,6", "1,5"}

// cliffPalette colours cliff lines by variant (a cliff Point's Y is its
// index): none of them is a series colour, so a cliff never reads as a
// variant's line.
var cliffPalette = []string{"#111111", "#c000c0", "#8a6d00", "#00706f", "#5a3e9b"}

// spanColours shade persistence periods by kind.
var spanColours = map[string]string{"bgsave": "#ff9900", "aof_rewrite": "#9933cc"}

// The chart's geometry: full width of a 1100-unit viewBox (the page
// scales it to its width).
const (
	plotW       = 1100.0
	plotML      = 84.0 // room for the y ticks and label
	plotMR      = 24.0
	plotPH      = 270.0 // plot area height
	cliffRow    = 14.0  // one row per cliff label above the plot area
	legendRow   = 18.0
	legendCharW = 9.0 // an estimate of a legend character's width at 15px
	// markGap is the least distance between two labelled marks: a mark
	// closer to the last labelled one keeps its line and tooltip only.
	markGap = 18.0
)

// seriesWidth is series i's line width: earlier series are drawn wider,
// so a later one lying on top leaves them showing at its edges.
func seriesWidth(i int) float64 { return math.Max(1.5, 4-float64(i)) }

// markerScale is series i's marker size: earlier series' markers are
// larger, so a later one at the same point leaves them showing.
func markerScale(i int) float64 { return math.Max(0.85, 1.6-0.25*float64(i)) }

// xAxis maps x values to the plot's width: linear, or log10 (XLog, all
// x above 0).
type xAxis struct {
	log      bool
	min, max float64
}

func (a xAxis) frac(x float64) float64 {
	if a.log {
		return math.Log10(x/a.min) / math.Log10(a.max/a.min)
	}
	return (x - a.min) / (a.max - a.min)
}

// ticks are the x axis's labelled values: round linear ticks, or on a
// log axis each decade with its 2 and 5.
func (a xAxis) ticks() []float64 {
	if !a.log {
		return niceTicks(a.min, a.max, 8)
	}
	var out []float64
	for d := math.Pow(10, math.Floor(math.Log10(a.min))); d <= a.max*1.0001; d *= 10 {
		for _, m := range []float64{1, 2, 5} {
			if v := m * d; v >= a.min*0.9999 && v <= a.max*1.0001 {
				out = append(out, v)
			}
		}
	}
	if len(out) < 3 {
		// Less than a decade: round values, placed on the log scale.
		out = out[:0]
		for _, v := range niceTicks(a.min, a.max, 5) {
			if v >= a.min*0.9999 && v <= a.max*1.0001 {
				out = append(out, v)
			}
		}
	}
	return out
}

// yAxis maps values to the plot's height: linear from 0, or log10 when
// a latency axis spans more than 1.5 decades.
type yAxis struct {
	log    bool
	lo, hi float64
	ticks  []float64
	label  string // the axis label, its unit fitted to the ticks
	tick   func(float64) string
}

// isLatency says whether the axis is in seconds ("latency (s)", "p99 (s)").
func isLatency(label string) bool { return strings.Contains(label, "(s)") }

// newYAxis fits an axis to the values vs.
func newYAxis(label string, vs []float64) yAxis {
	ymax, minPos := 0.0, math.Inf(1)
	for _, v := range vs {
		ymax = math.Max(ymax, v)
		if v > 0 {
			minPos = math.Min(minPos, v)
		}
	}
	if ymax <= 0 {
		ymax = 1
	}
	if isLatency(label) && !math.IsInf(minPos, 0) && ymax/minPos >= math.Pow(10, 1.5) {
		lo, hi := math.Pow(10, math.Floor(math.Log10(minPos))), math.Pow(10, math.Ceil(math.Log10(ymax)))
		if minPos < 1.2*lo {
			lo /= 10 // the lowest line off the axis floor
		}
		ax := yAxis{log: true, lo: lo, hi: hi, label: strings.Replace(label, "(s)", "(log scale)", 1)}
		decades := int(math.Round(math.Log10(hi / lo)))
		for d := 0; d <= decades; d++ {
			base := lo * math.Pow(10, float64(d))
			ax.ticks = append(ax.ticks, base)
			if decades <= 3 && d < decades {
				ax.ticks = append(ax.ticks, 2*base, 5*base)
			}
		}
		ax.tick = func(v float64) string { return tickLabel(label, v) }
		return ax
	}
	ticks := niceTicks(0, ymax, 5)
	ax := yAxis{lo: 0, hi: ticks[len(ticks)-1], ticks: ticks, label: label, tick: func(v float64) string { return tickLabel(label, v) }}
	if isLatency(label) {
		// One unit for the whole axis, named in its label.
		unit, scale := "s", 1.0
		switch top := ax.hi; {
		case top < 1e-3:
			unit, scale = "us", 1e6
		case top < 1:
			unit, scale = "ms", 1e3
		}
		ax.label = strings.Replace(label, "(s)", "("+unit+")", 1)
		ax.tick = func(v float64) string { return siNum(math.Round(v*scale*1000) / 1000) }
	}
	return ax
}

// frac is v's height as a fraction of the axis (0 bottom, 1 top);
// values at or below 0 on a log axis sit on the bottom.
func (a yAxis) frac(v float64) float64 {
	if a.log {
		if v <= a.lo {
			return 0
		}
		return math.Log10(v/a.lo) / math.Log10(a.hi/a.lo)
	}
	return (v - a.lo) / (a.hi - a.lo)
}

// legendItem is one entry under the plot: a line sample (series), a
// shaded box (span kind) or a target line.
type legendItem struct {
	name   string
	colour string
	dash   string
	marker int // -1: none
	box    bool
	noLine bool // a marker alone (held and failed points)
}

// layoutLegend flows the items left to right in rows no wider than
// width; it returns each item's x offset and row.
func layoutLegend(items []legendItem, width float64) (xs []float64, rows []int) {
	x, row := 0.0, 0
	for _, it := range items {
		w := 40 + legendCharW*float64(len(it.name)) + 16
		if x > 0 && x+w > width {
			x, row = 0, row+1
		}
		xs, rows = append(xs, x), append(rows, row)
		x += w
	}
	return xs, rows
}

// cliffLabel is a cliff's label placed in its own row above the plot
// area: rows never share a line, so labels cannot overlap each other,
// the title or the legend.
type cliffLabel struct {
	x, y   float64
	anchor string
}

// layoutCliffLabels places n cliff labels at x positions xs: label i
// on row i, beside its line, on the side with more room.
func layoutCliffLabels(xs []float64, top, left, width float64) []cliffLabel {
	out := make([]cliffLabel, len(xs))
	for i, x := range xs {
		l := cliffLabel{x: x + 4, y: top + float64(i)*cliffRow + 10, anchor: "start"}
		if x > left+width/2 {
			l.x, l.anchor = x-4, "end"
		}
		out[i] = l
	}
	return out
}

// failedMarker is the marker shape of a failed point: a cross, unlike
// any series' shape.
const failedMarker = -2

// marker draws marker shape k (circle, square, triangle, diamond; a
// cross for failedMarker) at (x, y), sc times its base size.
func marker(b *strings.Builder, k int, sc, x, y float64, fill, stroke, title string) {
	r := 3.5 * sc
	switch {
	case k == failedMarker:
		fmt.Fprintf(b, `<path class="failed-mark" d="M%.1f,%.1fL%.1f,%.1fM%.1f,%.1fL%.1f,%.1f" stroke="%s" stroke-width="2.5" fill="none">`, x-r, y-r, x+r, y+r, x-r, y+r, x+r, y-r, stroke)
	case k%4 == 0:
		fmt.Fprintf(b, `<circle cx="%.1f" cy="%.1f" r="%.1f" fill="%s" stroke="%s">`, x, y, r, fill, stroke)
		fmt.Fprintf(b, `<title>%s</title></circle>`, title)
		return
	case k%4 == 1:
		fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" stroke="%s">`, x-r, y-r, 2*r, 2*r, fill, stroke)
		fmt.Fprintf(b, `<title>%s</title></rect>`, title)
		return
	case k%4 == 2:
		fmt.Fprintf(b, `<path d="M%.1f,%.1fL%.1f,%.1fL%.1f,%.1fZ" fill="%s" stroke="%s">`, x, y-1.3*r, x+1.3*r, y+r, x-1.3*r, y+r, fill, stroke)
	default:
		fmt.Fprintf(b, `<path d="M%.1f,%.1fL%.1f,%.1fL%.1f,%.1fL%.1f,%.1fZ" fill="%s" stroke="%s">`, x, y-1.4*r, x+1.4*r, y, x, y+1.4*r, x-1.4*r, y, fill, stroke)
	}
	fmt.Fprintf(b, `<title>%s</title></path>`, title)
}

// hasFailed says whether any point of p is a failed one.
func hasFailed(p Plot) bool {
	for _, s := range p.Series {
		for _, pt := range s.Points {
			if strings.HasPrefix(pt.Label, FailedLabel) {
				return true
			}
		}
	}
	return false
}

// SVGPlot draws a line chart the width of the page: axes (log latency
// when it spans decades), series told apart by colour, dash and marker,
// horizontal target lines, dashed marks, cliff lines labelled in rows
// of their own, shaded spans and a legend under the plot.
func SVGPlot(p Plot) string {
	pw := plotW - plotML - plotMR
	xmin, xmax := math.Inf(1), math.Inf(-1)
	var ys []float64
	for _, s := range p.Series {
		for _, pt := range s.Points {
			xmin, xmax = math.Min(xmin, pt.X), math.Max(xmax, pt.X)
			ys = append(ys, pt.Y, pt.Hi)
			if pt.Hi > pt.Lo {
				ys = append(ys, pt.Lo)
			}
		}
	}
	for _, t := range p.Targets {
		ys = append(ys, t.Y)
	}
	for _, t := range p.XTicks {
		xmin, xmax = math.Min(xmin, t.X), math.Max(xmax, t.X)
	}
	if math.IsInf(xmin, 0) {
		xmin, xmax = 0, 1
	}
	if xmax == xmin {
		xmin, xmax = xmin-1, xmax+1
	}
	xa := xAxis{log: p.XLog && xmin > 0, min: xmin, max: xmax}
	ya := newYAxis(p.YLabel, ys)
	var cliffs []Point
	for _, c := range p.Cliffs {
		if c.X >= xmin && c.X <= xmax {
			cliffs = append(cliffs, c)
		}
	}
	mt := 30 + float64(len(cliffs))*cliffRow
	sx := func(x float64) float64 { return plotML + xa.frac(x)*pw }
	sy := func(y float64) float64 { return mt + plotPH - ya.frac(y)*plotPH }
	bottom := mt + plotPH

	// The legend: series, then target lines, then span kinds.
	var items []legendItem
	for i, s := range p.Series {
		mk := i
		if len(s.Points) > 60 {
			mk = -1
		}
		items = append(items, legendItem{name: s.Name, colour: palette[i%len(palette)], dash: dashes[i%len(dashes)], marker: mk})
	}
	if hasFailed(p) {
		items = append(items, legendItem{name: "held", colour: "#333", marker: 0, noLine: true},
			legendItem{name: "failed (did not hold)", colour: "#333", marker: failedMarker, noLine: true})
	}
	for _, t := range p.Targets {
		items = append(items, legendItem{name: t.Label, colour: "#333", dash: "6,3", marker: -1})
	}
	seen := map[string]bool{}
	for _, sp := range p.Spans {
		if !seen[sp.Label] {
			seen[sp.Label] = true
			items = append(items, legendItem{name: sp.Label, colour: spanColour(sp.Label), box: true})
		}
	}
	if len(p.Gaps) > 0 {
		items = append(items, legendItem{name: gapLegend, colour: gapColour, box: true})
	}
	lxs, lrows := layoutLegend(items, pw)
	nrows := 0
	if len(lrows) > 0 {
		nrows = lrows[len(lrows)-1] + 1
	}
	legendTop := bottom + 56
	h := legendTop + float64(nrows)*legendRow + 6

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="plot" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" role="img">`, plotW, h, plotW, h)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="#fff"/><text x="%.0f" y="18" font-size="15" font-weight="bold">%s</text>`, plotML, html.EscapeString(p.Title))
	for _, sp := range p.Spans {
		from, to := math.Max(sp.From, xmin), math.Min(sp.To, xmax)
		if to < from {
			continue
		}
		// At least 2 px wide, so a short job still shows.
		wd := math.Max(sx(to)-sx(from), 2)
		fmt.Fprintf(&b, `<rect class="span" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" fill-opacity="0.25"><title>%s %s-%s</title></rect>`,
			sx(from), mt, wd, plotPH, spanColour(sp.Label), html.EscapeString(sp.Label), siNum(sp.From)+"s", siNum(sp.To)+"s")
	}
	for _, sh := range p.Shades {
		from, to := math.Max(sh.From, xmin), math.Min(sh.To, xmax)
		if to <= from {
			continue
		}
		fmt.Fprintf(&b, `<rect class="shade" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="#c7e9c0" fill-opacity="0.6"><title>%s</title></rect><text x="%.1f" y="%.1f" fill="#666">%s</text>`,
			sx(from), mt, sx(to)-sx(from), plotPH, html.EscapeString(sh.Label), sx(from)+3, mt+11, html.EscapeString(sh.Label))
	}
	drawGaps(&b, p.Gaps, xmin, xmax, sx, mt)
	for _, y := range ya.ticks {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e4e4e4"/><text x="%.1f" y="%.1f" text-anchor="end">%s</text>`, plotML, sy(y), plotML+pw, sy(y), plotML-5, sy(y)+4, ya.tick(y))
	}
	if len(p.XTicks) > 0 {
		for _, t := range p.XTicks {
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#f0f0f0"/><text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`, sx(t.X), mt, sx(t.X), bottom, sx(t.X), bottom+17, html.EscapeString(t.Label))
		}
	} else {
		for _, x := range xa.ticks() {
			if x < xmin-1e-9*(xmax-xmin) || x > xmax+1e-9*(xmax-xmin) {
				continue
			}
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`, sx(x), bottom+17, tickLabel(p.XLabel, x))
		}
	}
	fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#333"/><line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#333"/>`, plotML, bottom, plotML+pw, bottom, plotML, mt, plotML, bottom)
	lastLabel := math.Inf(-1)
	for _, m := range p.Marks {
		if m.X < xmin || m.X > xmax {
			continue
		}
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#999" stroke-dasharray="3,3"><title>%s</title></line>`, sx(m.X), mt, sx(m.X), bottom, html.EscapeString(m.Label))
		// Each dashed line says what it is, written up along it (a
		// line too close to the last labelled one keeps its tooltip).
		if x := sx(m.X); x-lastLabel >= markGap {
			lastLabel = x
			fmt.Fprintf(&b, `<text class="mark-label" x="%.1f" y="%.1f" fill="#555" text-anchor="end" transform="rotate(-90 %.1f %.1f)">%s</text>`, x-3, mt+4, x-3, mt+4, html.EscapeString(shorten(m.Label, 40)))
		}
	}
	for _, t := range p.Targets {
		fmt.Fprintf(&b, `<line class="target" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#333" stroke-width="1.5" stroke-dasharray="6,3"><title>%s</title></line>`, plotML, sy(t.Y), plotML+pw, sy(t.Y), html.EscapeString(t.Label))
	}
	// Cliffs at one stage (two variants failing together) sit side by
	// side, 5 px apart, so each colour shows.
	var cxs []float64
	at := map[float64]int{}
	for _, c := range cliffs {
		x := sx(c.X)
		cxs = append(cxs, x+5*float64(at[x]))
		at[x]++
	}
	for i, l := range layoutCliffLabels(cxs, 24, plotML, pw) {
		col := cliffPalette[int(cliffs[i].Y)%len(cliffPalette)]
		fmt.Fprintf(&b, `<line class="cliff" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="2.5"><title>%s</title></line>`, cxs[i], mt, cxs[i], bottom, col, html.EscapeString(cliffs[i].Label))
		fmt.Fprintf(&b, `<text class="cliff-label" x="%.1f" y="%.1f" fill="%s" text-anchor="%s">%s</text>`, l.x, l.y, col, l.anchor, html.EscapeString(cliffs[i].Label))
	}
	fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`, plotML+pw/2, bottom+36, html.EscapeString(p.XLabel))
	fmt.Fprintf(&b, `<text x="16" y="%.1f" text-anchor="middle" transform="rotate(-90 16 %.1f)">%s</text>`, mt+plotPH/2, mt+plotPH/2, html.EscapeString(ya.label))
	for i, s := range p.Series {
		col, dash := palette[i%len(palette)], dashes[i%len(dashes)]
		da := ""
		if dash != "" {
			da = ` stroke-dasharray="` + dash + `"`
		}
		for _, seg := range s.segments() {
			var pts []string
			for _, pt := range seg {
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", sx(pt.X), sy(pt.Y)))
			}
			if len(pts) > 1 {
				fmt.Fprintf(&b, `<polyline class="series" fill="none" stroke="%s" stroke-width="%g"%s points="%s"/>`, col, seriesWidth(i), da, strings.Join(pts, " "))
			} else if len(s.Points) > 60 {
				// A lone bucket between gaps: a dot, not nothing.
				fmt.Fprintf(&b, `<circle class="series" cx="%s" r="2" fill="%s"/>`, strings.Replace(pts[0], ",", `" cy="`, 1), col)
			}
		}
		if len(s.Points) > 60 {
			continue // a time series: the line alone
		}
		for _, pt := range s.Points {
			if pt.Hi > pt.Lo {
				x := sx(pt.X)
				fmt.Fprintf(&b, `<path class="errbar" d="M%.1f,%.1fV%.1fM%.1f,%.1fH%.1fM%.1f,%.1fH%.1f" stroke="%s" fill="none"><title>%s %s: %s-%s</title></path>`,
					x, sy(pt.Lo), sy(pt.Hi), x-4, sy(pt.Lo), x+4, x-4, sy(pt.Hi), x+4, col, html.EscapeString(s.Name), html.EscapeString(pt.Label), axisLabel(p.YLabel, pt.Lo), axisLabel(p.YLabel, pt.Hi))
			}
			mk := i
			if strings.HasPrefix(pt.Label, FailedLabel) {
				mk = failedMarker
			}
			marker(&b, mk, markerScale(i), sx(pt.X), sy(pt.Y), col, col, html.EscapeString(s.Name+" "+pt.Label+": "+axisLabel(p.YLabel, pt.Y)))
		}
	}
	for i, it := range items {
		x, y := plotML+lxs[i], legendTop+float64(lrows[i])*legendRow
		if it.box {
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="30" height="10" fill="%s" fill-opacity="0.25"/>`, x, y-9, it.colour)
		} else {
			da := ""
			if it.dash != "" {
				da = ` stroke-dasharray="` + it.dash + `"`
			}
			if !it.noLine {
				fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="2"%s/>`, x, y-4, x+30, y-4, it.colour, da)
			}
			if it.marker >= 0 || it.marker == failedMarker {
				marker(&b, it.marker, 1.2, x+15, y-4, it.colour, it.colour, html.EscapeString(it.name))
			}
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f">%s</text>`, x+36, y, html.EscapeString(it.name))
	}
	b.WriteString("</svg>")
	return b.String()
}

// The seams' gaps: one grey, which no series or span takes.
const (
	gapColour = "#3a3a3a"
	gapLegend = "soakd down (resumed; its ops lost)"
)

// drawGaps shades each gap at least 3 px wide, its label written up
// along its left edge and in its tooltip.
func drawGaps(b *strings.Builder, gaps []Span, xmin, xmax float64, sx func(float64) float64, mt float64) {
	for _, g := range gaps {
		from, to := math.Max(g.From, xmin), math.Min(g.To, xmax)
		if to < from {
			continue
		}
		x := sx(from)
		fmt.Fprintf(b, `<rect class="gap" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" fill-opacity="0.3"><title>%s, +%ss to +%ss</title></rect>`,
			x, mt, math.Max(sx(to)-x, 3), plotPH, gapColour, html.EscapeString(g.Label), siNum(g.From), siNum(g.To))
		fmt.Fprintf(b, `<text class="gap-label" x="%.1f" y="%.1f" fill="#333" text-anchor="end" transform="rotate(-90 %.1f %.1f)">%s</text>`,
			x-3, mt+4, x-3, mt+4, html.EscapeString(shorten(g.Label, 40)))
	}
}

func spanColour(kind string) string {
	if c := spanColours[kind]; c != "" {
		return c
	}
	return "#999999"
}

// shorten cuts s to n runes, ending it with an ellipsis.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
