package report

import (
	"fmt"
	"html"
	"strings"
)

// SVGBars draws a grouped horizontal bar chart with a value axis on top
// and a legend.
func SVGBars(c Bars) string {
	const w, ml, mr, mt, bar, gap = 760.0, 170.0, 90.0, 48.0, 9.0, 8.0
	ns := max(1, len(c.Series))
	group := float64(ns)*bar + gap
	h := mt + float64(len(c.Labels))*group + 12
	vmax := 0.0
	for _, s := range c.Series {
		for i, v := range s.Values {
			if s.Present[i] {
				vmax = max(vmax, v)
			}
		}
	}
	if vmax <= 0 {
		vmax = 1
	}
	ticks := niceTicks(0, vmax, 5)
	vmax = ticks[len(ticks)-1]
	pw := w - ml - mr
	sx := func(v float64) float64 { return ml + v/vmax*pw }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="bars" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" role="img">`, w, h, w, h)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="#fff"/><text x="%.0f" y="16" font-weight="bold">%s</text>`, ml, html.EscapeString(c.Title))
	for i, s := range c.Series {
		lx := ml + float64(i)*110
		fmt.Fprintf(&b, `<rect x="%.1f" y="22" width="10" height="10" fill="%s"/><text x="%.1f" y="31">%s</text>`, lx, palette[i%len(palette)], lx+14, html.EscapeString(s.Name))
	}
	for _, v := range ticks {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#eee"/><text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`, sx(v), mt-4, sx(v), h-12, sx(v), mt-6, tickLabel(c.Unit, v))
	}
	for li, lbl := range c.Labels {
		y0 := mt + float64(li)*group
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="end">%s</text>`, ml-6, y0+float64(ns)*bar/2+4, html.EscapeString(lbl))
		for si, s := range c.Series {
			if li >= len(s.Values) || !s.Present[li] {
				continue
			}
			v := s.Values[li]
			y := y0 + float64(si)*bar
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s %s: %s</title></rect>`, ml, y, sx(v)-ml, bar-1, palette[si%len(palette)], html.EscapeString(s.Name), html.EscapeString(lbl), axisLabel(c.Unit, v))
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" font-size="9">%s</text>`, sx(v)+3, y+bar-1.5, axisLabel(c.Unit, v))
		}
	}
	fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#333"/>`, ml, mt-4, ml, h-12)
	b.WriteString("</svg>")
	return b.String()
}
