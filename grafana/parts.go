package grafana

import (
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
		q := prometheus.NewDataqueryBuilder().Datasource(ds()).RefId(string(rune('A' + i))).Expr(t.expr).LegendFormat(t.legend)
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

// variables are the datasource, $scenario, $shard and $op.
func variables(d *dashboard.DashboardBuilder) *dashboard.DashboardBuilder {
	d = d.WithVariable(dashboard.NewDatasourceVariableBuilder(dsVarName).Label("Prometheus").Type("prometheus"))
	all := dashboard.VariableOption{
		Selected: ptr(true),
		Text:     dashboard.StringOrArrayOfString{ArrayOfString: []string{"All"}},
		Value:    dashboard.StringOrArrayOfString{ArrayOfString: []string{"$__all"}},
	}
	for _, v := range []struct{ name, label, def string }{
		{"scenario", "Scenario", "label_values(soakd_run_info, scenario)"},
		{"shard", "Shard", `label_values(soakd_run_info{scenario=~"$scenario"}, shard)`},
		{"op", "Op", `label_values(soakd_ops_total{scenario=~"$scenario"}, op)`},
	} {
		d = d.WithVariable(dashboard.NewQueryVariableBuilder(v.name).Label(v.label).Datasource(ds()).
			Query(dashboard.StringOrMap{Map: map[string]any{"query": v.def, "refId": v.name}}).Definition(v.def).
			Refresh(dashboard.VariableRefreshOnTimeRangeChanged).Multi(true).IncludeAll(true).AllValue(".*").
			Sort(dashboard.VariableSortAlphabeticalAsc).Current(all))
	}
	return d
}

// base is a dashboard with soakd's common settings, variables and event
// annotations.
func base(uid, title, desc string) *dashboard.DashboardBuilder {
	d := dashboard.NewDashboardBuilder(title).Uid(uid).Description(desc).Tags([]string{"soakd"}).
		Editable().Refresh("5s").Time("now-15m", "now").Tooltip(dashboard.DashboardCursorSyncCrosshair).
		Timepicker(dashboard.NewTimePickerBuilder().RefreshIntervals([]string{"5s", "10s", "30s", "1m", "5m"}))
	d = variables(d)
	for _, a := range eventAnnotations() {
		d = d.Annotation(a)
	}
	return d
}

func ptr[T any](v T) *T { return &v }
