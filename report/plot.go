package report

// The chart model: what the HTML report's builders (html.go, timeline.go,
// suite.go, ...) make and SVGPlot (svg.go) draws.

// Point is one plotted value.
type Point struct {
	X     float64 `json:"x"`
	Y     float64 `json:"y"`
	Label string  `json:"label,omitempty"`
	// Lo and Hi, when Hi > Lo, are Y's interval: drawn as an error bar.
	Lo float64 `json:"lo,omitempty"`
	Hi float64 `json:"hi,omitempty"`
}

// Series is one line of a plot.
type Series struct {
	Name   string  `json:"name"`
	Points []Point `json:"points"`
	// MaxGap, when above 0, is the widest x step drawn as a line: past
	// it the line breaks, so a stretch with no data stays empty.
	MaxGap float64 `json:"max_gap,omitempty"`
	// Breaks are x values the line does not cross (a bucket whose ops
	// all failed: no latency there, and no line pretending there was).
	Breaks []float64 `json:"breaks,omitempty"`
}

// FailedLabel starts the label of a point that failed (a capacity probe
// that did not hold): drawn as a cross, with a legend entry of its own.
const FailedLabel = "failed"

// segments splits s's points into the runs drawn as one line each: a
// step wider than MaxGap starts a new run.
func (s Series) segments() [][]Point {
	var out [][]Point
	start := 0
	for i := 1; i <= len(s.Points); i++ {
		if i == len(s.Points) || (s.MaxGap > 0 && s.Points[i].X-s.Points[i-1].X > s.MaxGap) || s.breaksAt(s.Points[i-1].X, s.Points[i].X) {
			out = append(out, s.Points[start:i])
			start = i
		}
	}
	return out
}

// Plot is one chart: what report.html draws, kept as data so it can be
// tested apart from the SVG.
type Plot struct {
	Title  string `json:"title"`
	XLabel string `json:"x_label"`
	// XLog draws x on a log10 axis (rates from 1 to 2,000 ops/s).
	XLog   bool    `json:"x_log,omitempty"`
	YLabel string  `json:"y_label"`
	XTicks []Point `json:"x_ticks,omitempty"` // fixed labelled ticks (spectrum)
	Marks  []Point `json:"marks,omitempty"`   // labelled vertical lines (stage starts)
	// Cliffs are labelled vertical lines at a growth phase's cliff stage,
	// drawn solid on every per-stage chart; Y is the line's colour (the
	// variant's place in a comparison, an index into cliffPalette).
	Cliffs []Point `json:"cliffs,omitempty"`
	// Targets are labelled horizontal lines at Y (the target rate).
	Targets []Point `json:"targets,omitempty"`
	// Spans are shaded x ranges (BGSAVE and AOF rewrite periods on the
	// latency-over-time chart).
	Spans []Span `json:"spans,omitempty"`
	// Shades are shaded x ranges drawn green (the warmup).
	Shades []Span `json:"shades,omitempty"`
	// Gaps are x ranges where soakd was down (a resumed run's seams:
	// their ops lost), shaded grey and labelled; no series crosses one.
	Gaps   []Span   `json:"gaps,omitempty"`
	Series []Series `json:"series"`
}

// Span is a labelled x range, shaded.
type Span struct {
	From  float64 `json:"from"`
	To    float64 `json:"to"`
	Label string  `json:"label"`
}

// breaksAt says whether a break lies between x0 and x1.
func (s Series) breaksAt(x0, x1 float64) bool {
	for _, b := range s.Breaks {
		if b > x0 && b < x1 {
			return true
		}
	}
	return false
}
