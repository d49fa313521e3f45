package grafana

import (
	"regexp"

	"github.com/grafana/grafana-foundation-sdk/go/common"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
	"github.com/grafana/grafana-foundation-sdk/go/timeseries"
)

// lostSeries is soakd_ops_lost_total on the dashboard's selection.
var lostSeries = opSel("soakd_ops_lost_total")

// lostCounterLegend ends the legend of the lost-ops counter's series
// (the panel's right axis).
const lostCounterLegend = "lost (counter)"

// lostOps is the panel of the ops a killed and resumed run lost
// (soakd_ops_lost_total), per op: the rate and the counter. A resumed
// soakd exports its own seam's lost ops from its first scrape, and
// nothing is scraped while it is down: the seam is a gap, then a step.
// No line is drawn across the gap, and the seams are annotated
// (seamAnnotation).
func lostOps() *timeseries.PanelBuilder {
	return series("Lost ops (run killed and resumed)",
		"soakd_ops_lost_total: the ops the schedule called for while soakd was down, and those in flight at the kill, counted when the run resumed (soakd run --resume, or the daemon on restart); scheduled = completed + dropped + lost. "+
			"A resumed soakd exports its own seam's lost ops (right axis): nothing is scraped while it is down, so the seam is a gap, never bridged by a line; the Resumes annotation marks it. summary.json's seams hold every seam of the run.",
		"ops", 24,
		target{"sum by (op) (rate(" + lostSeries + "[$__rate_interval]))", "{{op}} lost/s"},
		target{"sum by (op) (" + lostSeries + ")", "{{op}} " + lostCounterLegend}).
		SpanNulls(common.BoolOrFloat64{Bool: ptr(false)}).
		ShowPoints(common.VisibilityModeAlways).PointSize(4).
		OverrideByRegexp("/ "+regexp.QuoteMeta(lostCounterLegend)+"$/", []dashboard.DynamicConfigValue{
			{Id: "unit", Value: "short"},
			{Id: "custom.axisPlacement", Value: "right"},
		})
}

// seamAnnotation marks a resume that lost ops: a step where a phase's
// lost-ops counter has appeared (nothing was scraped a minute before:
// soakd was down) or changed (a new process counts its own seam).
func seamAnnotation() *dashboard.AnnotationQueryBuilder {
	lost := sel("soakd_ops_lost_total")
	return annotation("Resumes (ops lost)", "rgba(140, 140, 140, 1)",
		"sum by (phase) ("+lost+" > 0 unless "+lost+" offset 1m == "+lost+")",
		"run resumed: {{phase}} lost ops", "phase {{phase}}: ops due while soakd was down (soakd_ops_lost_total)", false)
}
