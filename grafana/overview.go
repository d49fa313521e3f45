package grafana

import (
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
)

func quantileAt(q, legend string) target {
	return target{"max by (op) (" + opSel("soakd_op_latency_quantile_seconds", `quantile="`+q+`"`) + ")", "{{op}} " + legend}
}

func nativeQ(q, metric, by, legend string) target {
	return target{"histogram_quantile(" + q + ", sum by (" + by + ") (rate(" + metric + "[$__rate_interval])))", legend}
}

func overview() *dashboard.DashboardBuilder {
	lat := opSel("soakd_op_latency_seconds")
	latC := opSel("soakd_op_latency_classic_seconds_bucket")
	rate := func(m string) string { return "rate(" + m + "[$__rate_interval])" }
	errs := opSel("soakd_ops_total", `outcome!~"ok|miss"`)
	return base("soakd-overview", "soakd / Soak overview",
		"Per-op latency from intended start, target vs achieved rate, errors, drops and schedule lag. Shards are merged (max of window quantiles, sum of histograms). Annotations: change points, cliffs, live rate changes, persistence.").
		WithRow(dashboard.NewRowBuilder("Latency (from intended start)")).
		WithPanel(logSeries("Latency per op, 1 s HDR window (max over shards)",
			"soakd_op_latency_quantile_seconds: exact (HDR, 3 digits) per interval; a store stall shows here within one scrape. Log axis.", 24,
			quantileAt("0.5", "p50"), quantileAt("0.99", "p99"), quantileAt("0.999", "p99.9"), quantileAt("1", "max"))).
		WithPanel(latencyHeatmap("Latency heatmap (native histogram, all selected ops)",
			"soakd_op_latency_seconds: ops/s per schema-3 bucket (~9% wide), summed over shards and ops. Needs Prometheus --enable-feature=native-histograms.",
			"sum("+rate(lat)+")")).
		WithPanel(logSeries("p99 latency, native histogram merged over shards", "Needs Prometheus --enable-feature=native-histograms.", 12,
			nativeQ("0.5", lat, "op", "{{op}} p50"), nativeQ("0.99", lat, "op", "{{op}} p99"), nativeQ("0.999", lat, "op", "{{op}} p99.9"))).
		WithPanel(logSeries("p99 latency, classic buckets merged over shards",
			"soakd_op_latency_classic_seconds: works on any Prometheus; buckets are fine below 1 ms.", 12,
			nativeQ("0.99", latC, "op, le", "{{op}} p99"), nativeQ("0.999", latC, "op, le", "{{op}} p99.9"))).
		WithPanel(logSeries("Service time p99 (from actual send)",
			"Latency minus service time is queueing inside soakd or the client: coordinated omission made visible.", 12,
			nativeQ("0.99", opSel("soakd_op_service_seconds"), "op", "{{op}} service p99"),
			nativeQ("0.99", opSel("soakd_op_service_classic_seconds_bucket"), "op, le", "{{op}} service p99 (classic)"))).
		WithPanel(series("Latency p99 vs SLO", "", "s", 12,
			quantileAt("0.99", "p99"),
			target{"max by (op) (" + opSel("soakd_slo_latency_seconds", `quantile="0.99"`) + ")", "{{op}} SLO p99"})).
		WithRow(dashboard.NewRowBuilder("Rate, errors, drops")).
		WithPanel(series("Target vs achieved rate (sum over shards)", "Live rate changes are annotated.", "ops", 12,
			target{"sum by (phase) (" + sel("soakd_target_rate_ops") + ")", "target {{phase}}"},
			target{"sum by (phase) (" + sel("soakd_achieved_rate_ops") + ")", "achieved {{phase}}"},
			target{"sum(" + rate(opSel("soakd_ops_total")) + ")", "completed (rate)"},
			target{"sum by (phase) (" + sel("soakd_goodput_rate_ops") + ")", "goodput {{phase}}"})).
		WithPanel(series("Errors by class", "", "ops", 12,
			target{"sum by (outcome) (" + rate(errs) + ")", "{{outcome}}"})).
		WithPanel(series("Dropped ops (later than max_lag)", "", "ops", 12,
			target{"sum by (op) (" + rate(opSel("soakd_ops_dropped_total")) + ")", "{{op}} dropped"})).
		WithPanel(series("Schedule lag (intended start to send)", "", "s", 12,
			nativeQ("0.99", sel("soakd_schedule_lag_seconds"), "phase", "p99 {{phase}}"),
			nativeQ("0.99", sel("soakd_schedule_lag_classic_seconds_bucket"), "phase, le", "p99 {{phase}} (classic)"),
			nativeQ("1", sel("soakd_schedule_lag_classic_seconds_bucket"), "phase, le", "max {{phase}} (classic)"))).
		WithRow(dashboard.NewRowBuilder("Health")).
		WithPanel(single("Target up", "none", target{"min(" + sel("soakd_target_up") + ")", "up"})).
		WithPanel(single("Error ratio", "percentunit",
			target{"sum(" + rate(errs) + ") / sum(" + rate(opSel("soakd_ops_total")) + ")", "errors"})).
		WithPanel(single("Stats collection duration", "s",
			target{"max by (source) (" + sel("soakd_stats_collection_duration_seconds") + ")", "{{source}}"})).
		WithPanel(single("Stats collection success", "none",
			target{"min by (source) (" + sel("soakd_stats_collection_success") + ")", "{{source}}"}))
}
