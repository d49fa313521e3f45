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
}

// Plot is one chart: what report.html draws, kept as data so it can be
// tested apart from the SVG.
type Plot struct {
	Title  string  `json:"title"`
	XLabel string  `json:"x_label"`
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
	Shades []Span   `json:"shades,omitempty"`
	Series []Series `json:"series"`
}

// Span is a labelled x range, shaded.
type Span struct {
	From  float64 `json:"from"`
	To    float64 `json:"to"`
	Label string  `json:"label"`
}
