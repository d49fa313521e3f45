package grafana

import (
	"sort"
	"strings"

	"github.com/grafana/grafana-foundation-sdk/go/common"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
	"github.com/grafana/grafana-foundation-sdk/go/heatmap"
	"github.com/grafana/grafana-foundation-sdk/go/prometheus"
	"github.com/grafana/grafana-foundation-sdk/go/stat"
	"github.com/grafana/grafana-foundation-sdk/go/timeseries"
	"github.com/grafana/grafana-foundation-sdk/go/xychart"
)

// dsVarName is the datasource variable every query goes through, so the
// ${DS_PROMETHEUS} references resolve both when provisioned and when
// imported through the UI.
const dsVarName = "DS_PROMETHEUS"

func ds() common.DataSourceRef {
	typ, uid := "prometheus", "${"+dsVarName+"}"
	return common.DataSourceRef{Type: &typ, Uid: &uid}
}

// sel is a selector on metric for the dashboard's $scenario and $shard,
// plus matchers (`op=~"$op"`, `quantile="0.99"`).
func sel(metric string, matchers ...string) string {
	m := append([]string{`scenario=~"$scenario"`, `shard=~"$shard"`}, matchers...)
	return metric + "{" + strings.Join(m, ",") + "}"
}

// opSel is sel with the $op variable.
func opSel(metric string, matchers ...string) string {
	return sel(metric, append([]string{`op=~"$op"`}, matchers...)...)
}

// target is one PromQL query of a panel.
type target struct{ expr, legend string }

func queries(ts []target, instant bool) []*prometheus.DataqueryBuilder {
	out := make([]*prometheus.DataqueryBuilder, len(ts))
	for i, t := range ts {
		ref := string(rune('A' + i))
		if strings.Contains(t.legend, " SLO ") {
			ref = "SLO" + ref // apart from the panel's own A, B, ...
		}
		q := prometheus.NewDataqueryBuilder().Datasource(ds()).RefId(ref).Expr(t.expr).LegendFormat(t.legend)
		if instant {
			q = q.Instant()
		}
		out[i] = q
	}
	return out
}

// series is a time series panel w units wide.
func series(title, desc, unit string, w uint32, ts ...target) *timeseries.PanelBuilder {
	p := timeseries.NewPanelBuilder().Title(title).Description(desc).Datasource(ds()).Unit(unit).Height(8).Span(w).
		Legend(common.NewVizLegendOptionsBuilder().DisplayMode(common.LegendDisplayModeTable).
			Placement(common.LegendPlacementBottom).ShowLegend(true).Calcs([]string{"max", "lastNotNull"})).
		Tooltip(common.NewVizTooltipOptionsBuilder().Mode(common.TooltipDisplayModeMulti).Sort(common.SortOrderNone))
	for _, q := range queries(ts, false) {
		p = p.WithTarget(q)
	}
	return p
}

// logSeries is series on a log2 y axis, for latency spanning decades.
func logSeries(title, desc string, w uint32, ts ...target) *timeseries.PanelBuilder {
	return series(title, desc, "s", w, ts...).ScaleDistribution(common.NewScaleDistributionConfigBuilder().
		Type(common.ScaleDistributionLog).Log(2))
}

// single is a stat panel showing each series' last value.
func single(title, unit string, ts ...target) *stat.PanelBuilder {
	p := stat.NewPanelBuilder().Title(title).Datasource(ds()).Unit(unit).Height(4).Span(6).
		ReduceOptions(common.NewReduceDataOptionsBuilder().Calcs([]string{"lastNotNull"})).
		ColorMode(common.BigValueColorModeBackground)
	for _, q := range queries(ts, true) {
		p = p.WithTarget(q)
	}
	return p
}

// step is one threshold: from value up (nil: the base), color.
type step struct {
	from  *float64
	color string
}

func from(v float64, color string) step { return step{&v, color} }

// thresholds are absolute steps: the base color, then each from its value.
func thresholds(base string, more ...step) *dashboard.ThresholdsConfigBuilder {
	steps := []dashboard.Threshold{{Color: base}}
	for _, s := range more {
		steps = append(steps, dashboard.Threshold{Value: s.from, Color: s.color})
	}
	return dashboard.NewThresholdsConfigBuilder().Mode(dashboard.ThresholdsModeAbsolute).Steps(steps)
}

// texts maps exact values to a text and color ("0": DOWN in red).
func texts(m map[string][2]string) []dashboard.ValueMapping {
	vals := make([]string, 0, len(m))
	for v := range m {
		vals = append(vals, v)
	}
	sort.Strings(vals)
	opts := map[string]dashboard.ValueMappingResult{}
	for i, v := range vals {
		opts[v] = dashboard.ValueMappingResult{Text: ptr(m[v][0]), Color: ptr(m[v][1]), Index: ptr(int32(i))}
	}
	return []dashboard.ValueMapping{{ValueMap: &dashboard.ValueMap{Type: dashboard.MappingTypeValueToText, Options: opts}}}
}

// status is a stat tile of the status row: colored by th, the whole
// tile (background), w units wide.
func status(title, desc, unit string, w uint32, th *dashboard.ThresholdsConfigBuilder, ts ...target) *stat.PanelBuilder {
	return single(title, unit, ts...).Description(desc).Span(w).Thresholds(th).ColorScheme(
		dashboard.NewFieldColorBuilder().Mode(dashboard.FieldColorModeIdThresholds))
}

// sloTargets are the scenario's p99 and p99.9 latency limits per op
// (soakd_slo_latency_seconds), drawn on a latency panel as lines.
func sloTargets() []target {
	return []target{
		{"max by (op) (" + opSel("soakd_slo_latency_seconds", `quantile="0.99"`) + ")", "{{op}} SLO p99"},
		{"max by (op) (" + opSel("soakd_slo_latency_seconds", `quantile="0.999"`) + ")", "{{op}} SLO p99.9"},
	}
}

// sloLine draws the series named "... SLO ..." as red dashed lines
// without fill: the limit, not a measurement.
func sloLine(p *timeseries.PanelBuilder) *timeseries.PanelBuilder {
	return p.OverrideByRegexp("/ SLO /", []dashboard.DynamicConfigValue{
		{Id: "color", Value: map[string]any{"mode": "fixed", "fixedColor": "red"}},
		{Id: "custom.lineStyle", Value: map[string]any{"fill": "dash", "dash": []int{10, 10}}},
		{Id: "custom.lineWidth", Value: 2},
		{Id: "custom.fillOpacity", Value: 0},
	})
}

// withSLO adds the SLO lines to a latency panel.
func withSLO(p *timeseries.PanelBuilder) *timeseries.PanelBuilder {
	for _, q := range queries(sloTargets(), false) {
		p = p.WithTarget(q)
	}
	return sloLine(p)
}

// scatter is an xy chart of two series joined on time: the first
// query's values are x (auto mapping takes the first number field), the
// second's y.
func scatter(title, unit string, ts ...target) *xychart.PanelBuilder {
	p := xychart.NewPanelBuilder().Title(title).Datasource(ds()).Unit(unit).Height(8).Span(12).
		Mapping(xychart.SeriesMappingAuto).Show(xychart.XYShowModePoints).
		Legend(common.NewVizLegendOptionsBuilder().DisplayMode(common.LegendDisplayModeList).Placement(common.LegendPlacementBottom).ShowLegend(true)).
		Tooltip(common.NewVizTooltipOptionsBuilder().Mode(common.TooltipDisplayModeSingle).Sort(common.SortOrderNone)).
		WithTransformation(dashboard.DataTransformerConfig{Id: "joinByField", Options: map[string]any{"byField": "Time", "mode": "inner"}})
	for _, q := range queries(ts, false) {
		p = p.WithTarget(q)
	}
	return p
}

// latencyHeatmap draws a native histogram's buckets over time: each
// column is one step's rate() of the histogram summed over shards, on a
// log y axis (schema-3 buckets are ~9% wide at every scale).
func latencyHeatmap(title, desc, expr string) *heatmap.PanelBuilder {
	q := prometheus.NewDataqueryBuilder().Datasource(ds()).RefId("A").Expr(expr).
		Format(prometheus.PromQueryFormatHeatmap).LegendFormat("{{le}}")
	return heatmap.NewPanelBuilder().Title(title).Description(desc).Datasource(ds()).Height(9).Span(24).
		Calculate(false).
		YAxis(heatmap.NewYAxisConfigBuilder().Unit("s").
			ScaleDistribution(common.NewScaleDistributionConfigBuilder().Type(common.ScaleDistributionLog).Log(2))).
		Color(heatmap.NewHeatmapColorOptionsBuilder().Mode(heatmap.HeatmapColorModeScheme).Scheme("Oranges").
			Scale(heatmap.HeatmapColorScaleExponential).Exponent(0.5).Steps(64)).
		CellValues(heatmap.NewCellValuesBuilder().Unit("ops")).
		Tooltip(heatmap.NewHeatmapTooltipBuilder().Mode(common.TooltipDisplayModeSingle).YHistogram(true).ShowColorScale(true)).
		WithTarget(q)
}

// DefaultDaemonURL is the daemon_url variable's default: the daemon's
// page as docker-compose.yml publishes it.
const DefaultDaemonURL = "http://localhost:9470"

// variables are the datasource, $scenario (one scenario at a time: the
// runs of unrelated scenarios do not merge into one line), $shard and
// $op (all by default), and $daemon_url, where links find the daemon.
func variables(d *dashboard.DashboardBuilder) *dashboard.DashboardBuilder {
	d = d.WithVariable(dashboard.NewDatasourceVariableBuilder(dsVarName).Label("Prometheus").Type("prometheus"))
	all := dashboard.VariableOption{
		Selected: ptr(true),
		Text:     dashboard.StringOrArrayOfString{ArrayOfString: []string{"All"}},
		Value:    dashboard.StringOrArrayOfString{ArrayOfString: []string{"$__all"}},
	}
	for _, v := range []struct {
		name, label, def string
		many             bool
	}{
		{"scenario", "Scenario", "label_values(soakd_run_info, scenario)", false},
		{"shard", "Shard", `label_values(soakd_run_info{scenario=~"$scenario"}, shard)`, true},
		{"op", "Op", `label_values(soakd_ops_total{scenario=~"$scenario"}, op)`, true},
	} {
		b := dashboard.NewQueryVariableBuilder(v.name).Label(v.label).Datasource(ds()).
			Query(dashboard.StringOrMap{Map: map[string]any{"query": v.def, "refId": v.name}}).Definition(v.def).
			Refresh(dashboard.VariableRefreshOnTimeRangeChanged).Sort(dashboard.VariableSortAlphabeticalAsc)
		if v.many {
			b = b.Multi(true).IncludeAll(true).AllValue(".*").Current(all)
		} else {
			// No current value: Grafana selects the first scenario.
			b = b.Multi(false).IncludeAll(false)
		}
		d = d.WithVariable(b)
	}
	return d.WithVariable(dashboard.NewTextBoxVariableBuilder("daemon_url").Label("soakd daemon").
		Description("Where the soakd daemon's page is reached, for the links to a scenario's runs.").
		DefaultValue(dashboard.StringOrMap{String: ptr(DefaultDaemonURL)}).
		Current(dashboard.VariableOption{Text: dashboard.StringOrArrayOfString{String: ptr(DefaultDaemonURL)},
			Value: dashboard.StringOrArrayOfString{String: ptr(DefaultDaemonURL)}}))
}

// links are every dashboard's links: the other soakd dashboards (the
// same scenario, shard, op and time range) and the scenario's page on
// the daemon (its runs, verdicts and history).
func links(d *dashboard.DashboardBuilder, self string) *dashboard.DashboardBuilder {
	for _, l := range []struct{ uid, title string }{
		{"soakd-overview", "Soak overview"}, {"soakd-server", "Server"}, {"soakd-growth", "Growth & capacity"},
	} {
		if l.uid == self {
			continue
		}
		d = d.Link(dashboard.NewDashboardLinkBuilder(l.title).Type(dashboard.DashboardLinkTypeLink).
			Url("/d/" + l.uid).Icon("dashboard").IncludeVars(true).KeepTime(true).Tooltip("soakd / " + l.title))
	}
	return d.Link(dashboard.NewDashboardLinkBuilder("Runs of ${scenario} (soakd daemon)").Type(dashboard.DashboardLinkTypeLink).
		Url("${daemon_url}/#/scenario/${scenario}").Icon("external link").TargetBlank(true).
		Tooltip("The scenario's page on the daemon: its runs, verdicts and history"))
}

// base is a dashboard with soakd's common settings, variables and event
// annotations.
func base(uid, title, desc string) *dashboard.DashboardBuilder {
	d := dashboard.NewDashboardBuilder(title).Uid(uid).Description(desc).Tags([]string{"soakd"}).
		Editable().Refresh("5s").Time("now-15m", "now").Tooltip(dashboard.DashboardCursorSyncCrosshair).
		Timepicker(dashboard.NewTimePickerBuilder().RefreshIntervals([]string{"5s", "10s", "30s", "1m", "5m"}))
	d = links(variables(d), uid)
	for _, a := range eventAnnotations() {
		d = d.Annotation(a)
	}
	return d
}

func ptr[T any](v T) *T { return &v }
