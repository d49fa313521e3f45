package report

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// Bars is a grouped horizontal bar chart of several panels side by
// side that share their rows: one row group per label, one bar per
// series in each group, and each panel with its own value axis (the
// suite's achieved ops/s on the left and its p99 on the right, so a
// test's throughput and latency read along one row).
type Bars struct {
	Title  string
	Labels []string
	Panels []BarPanel
}

// BarPanel is one value axis of a Bars chart and its series, in the
// same order in every panel (a series keeps its colour across panels).
type BarPanel struct {
	Title  string
	Unit   string // "(s)" in it formats values as durations
	Series []BarSeries
}

// BarSeries is one column's bars; Present[i] false leaves label i's bar
// out.
type BarSeries struct {
	Name    string
	Values  []float64
	Present []bool
	// Lo and Hi, when set for a bar (Hi[i] > 0), are its 95% interval,
	// drawn as a whisker across the bar's end: a comparison's chart
	// shows what its table says is noise.
	Lo, Hi []float64
}

// interval is bar i's whisker, ok when it has one.
func (s BarSeries) interval(i int) (lo, hi float64, ok bool) {
	if i >= len(s.Lo) || i >= len(s.Hi) || !(s.Hi[i] > 0) || s.Hi[i] < s.Lo[i] {
		return 0, 0, false
	}
	return s.Lo[i], s.Hi[i], true
}

// The bar chart's geometry, in the units of its 1100-wide viewBox (the
// page scales it to its width, like the line charts).
const (
	barW      = plotW
	barH      = 10.0 // one bar
	barGap    = 10.0 // between row groups
	barTop    = 84.0 // title, legend, panel titles and ticks above the rows
	barRight  = 64.0 // room for the last panel's value labels
	barBetwen = 72.0 // between panels: the value labels of the one before
)

// axisMax is the top tick of a panel's linear axis from 0.
func (p BarPanel) axisMax() (float64, []float64) {
	vmax := 0.0
	for _, s := range p.Series {
		for i, v := range s.Values {
			if i < len(s.Present) && s.Present[i] {
				vmax = math.Max(vmax, v)
			}
		}
	}
	if vmax <= 0 {
		vmax = 1
	}
	// Whiskers widen the axis up to half again the longest bar; a wider
	// interval runs to the edge (its tooltip has the whole of it).
	wmax := vmax
	for _, s := range p.Series {
		for i := range s.Values {
			if _, hi, ok := s.interval(i); ok && i < len(s.Present) && s.Present[i] {
				wmax = math.Max(wmax, math.Min(hi, 1.5*vmax))
			}
		}
	}
	ticks := niceTicks(0, wmax, 5)
	return ticks[len(ticks)-1], ticks
}

// SVGBars draws c as one chart the width of the page: the labels down
// the left, then each panel's bars from a shared zero line, the value at
// the end of each bar, shaded bands joining a row across the panels, and
// one legend above.
func SVGBars(c Bars) string {
	ml := 80.0
	for _, l := range c.Labels {
		ml = math.Max(ml, legendCharW*float64(len(l))+16)
	}
	ml = math.Min(ml, 320)
	np := max(1, len(c.Panels))
	ns := 0
	for _, p := range c.Panels {
		ns = max(ns, len(p.Series))
	}
	ns = max(ns, 1)
	group := float64(ns)*barH + barGap
	pw := (barW - ml - barRight - float64(np-1)*barBetwen) / float64(np)
	h := barTop + float64(len(c.Labels))*group + 8
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="bars" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" role="img">`, barW, h, barW, h)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="#fff"/><text x="%.0f" y="18" font-size="13" font-weight="bold">%s</text>`, ml, html.EscapeString(c.Title))
	// The legend: the series of the first panel (every panel has the same).
	if len(c.Panels) > 0 {
		items := make([]legendItem, len(c.Panels[0].Series))
		for i, s := range c.Panels[0].Series {
			items[i] = legendItem{name: s.Name}
		}
		xs, _ := layoutLegend(items, 1e9)
		for i, it := range items {
			x := ml + xs[i]
			fmt.Fprintf(&b, `<rect x="%.1f" y="27" width="24" height="10" fill="%s"/><text x="%.1f" y="36">%s</text>`, x, palette[i%len(palette)], x+30, html.EscapeString(it.name))
		}
	}
	// Row bands, across every panel, so a test's bars read as one row.
	for li := range c.Labels {
		if li%2 == 0 {
			fmt.Fprintf(&b, `<rect x="4" y="%.1f" width="%.1f" height="%.1f" fill="#f3f3f3"/>`, barTop+float64(li)*group-barGap/2, barW-8, group)
		}
	}
	for pi, p := range c.Panels {
		x0 := ml + float64(pi)*(pw+barBetwen)
		top, ticks := p.axisMax()
		sx := func(v float64) float64 { return x0 + v/top*pw }
		title, tick := barAxis(p.Title, p.Unit, top)
		fmt.Fprintf(&b, `<text class="panel-title" x="%.1f" y="58" font-weight="bold">%s</text>`, x0, html.EscapeString(title))
		for _, v := range ticks {
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/><text x="%.1f" y="%.1f" text-anchor="middle" fill="#555">%s</text>`,
				sx(v), barTop-6, sx(v), h-6, sx(v), barTop-9, tick(v))
		}
		for li, lbl := range c.Labels {
			y0 := barTop + float64(li)*group
			for si, s := range p.Series {
				if li >= len(s.Values) || li >= len(s.Present) || !s.Present[li] {
					continue
				}
				v := s.Values[li]
				y := y0 + float64(si)*barH
				text := axisLabel(p.Unit, v)
				fmt.Fprintf(&b, `<rect class="bar" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s %s: %s</title></rect>`,
					x0, y, math.Max(sx(v)-x0, 0.5), barH-1.5, palette[si%len(palette)], html.EscapeString(lbl), html.EscapeString(s.Name), text)
				tx := sx(v) + 3
				if lo, hi, ok := s.interval(li); ok {
					xl, xh := sx(math.Min(lo, top)), sx(math.Min(hi, top))
					cy := y + (barH-1.5)/2
					fmt.Fprintf(&b, `<path class="whisker" d="M%.1f %.1fH%.1fM%.1f %.1fV%.1fM%.1f %.1fV%.1f" stroke="#222" stroke-width="1.2" fill="none"><title>%s %s: 95%% interval %s..%s</title></path>`,
						xl, cy, xh, xl, y+1, y+barH-2.5, xh, y+1, y+barH-2.5, html.EscapeString(lbl), html.EscapeString(s.Name), axisLabel(p.Unit, lo), axisLabel(p.Unit, hi))
					tx = math.Max(tx, xh+3)
				}
				fmt.Fprintf(&b, `<text class="value" x="%.1f" y="%.1f" font-size="10" fill="#333">%s</text>`, tx, y+barH-2, text)
			}
		}
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#333"/>`, x0, barTop-6, x0, h-6)
	}
	for li, lbl := range c.Labels {
		y0 := barTop + float64(li)*group
		fmt.Fprintf(&b, `<text class="label" x="%.1f" y="%.1f" text-anchor="end">%s</text>`, ml-8, y0+float64(ns)*barH/2+4, html.EscapeString(lbl))
	}
	b.WriteString("</svg>")
	return b.String()
}

// barAxis is a panel's title and tick labels for an axis topping at
// top: a latency axis is in one unit (s, ms or us) named in its title
// in place of "(s)"; any other in plain numbers (20k).
func barAxis(title, unit string, top float64) (string, func(float64) string) {
	if !isLatency(unit) {
		return title, siNum
	}
	name, scale := "s", 1.0
	switch {
	case top < 1e-3:
		name, scale = "us", 1e6
	case top < 1:
		name, scale = "ms", 1e3
	}
	return strings.Replace(title, "(s)", "("+name+")", 1), func(v float64) string { return siNum(math.Round(v*scale*1000) / 1000) }
}
