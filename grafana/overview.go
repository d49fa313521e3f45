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
	over := opSel("soakd_op_latency_over_slo_total", `quantile="0.99"`)
	return base("soakd-overview", "soakd / Soak overview",
		"Status first, then per-op latency from intended start (SLOs as red dashed lines), target vs achieved rate, errors, drops, schedule lag, and the daemon's verdicts. Shards are merged (max of window quantiles, sum of histograms). Annotations: change points, cliffs, live rate changes, persistence.").
		WithRow(dashboard.NewRowBuilder("Status")).
		WithPanel(status("Target up", "soakd_target_up: DOWN when server stats fail or an interval's ops all fail to connect.", "none", 4,
			thresholds("red", from(1, "green")), target{"min(" + sel("soakd_target_up") + ")", "up"}).
			Mappings(texts(map[string][2]string{"0": {"DOWN", "red"}, "1": {"UP", "green"}})).NoValue("no run")).
		WithPanel(status("Error ratio", "Failed ops (outcomes other than ok and miss) over all ops: orange at any error, red from 0.1% (the shipped scenarios' max_error_ratio).", "percentunit", 4,
			thresholds("green", from(1e-9, "orange"), from(0.001, "red")),
			target{"sum(" + rate(errs) + ") / sum(" + rate(opSel("soakd_ops_total")) + ")", "errors"})).
		WithPanel(status("Ops over their p99 SLO", "Share of ops slower than their op's p99 limit (soakd_op_latency_over_slo_total): the p99 error budget is 1%; red from there.", "percentunit", 4,
			thresholds("green", from(0.005, "orange"), from(0.01, "red")),
			target{"sum(" + rate(over) + ") / sum(" + rate(opSel("soakd_op_latency_classic_seconds_count")) + " and on (scenario, shard, phase, op) " + over + ")", "over SLO"})).
		WithPanel(status("Stats collection", "soakd_stats_collection_success per source: FAILED (red) when the last read of the target's server stats failed.", "none", 4,
			thresholds("red", from(1, "green")), target{"min by (source) (" + sel("soakd_stats_collection_success") + ")", "{{source}}"}).
			Mappings(texts(map[string][2]string{"0": {"FAILED", "red"}, "1": {"OK", "green"}})).NoValue("no stats")).
		WithPanel(status("Stats collection duration", "Orange from 0.5 s, red from 1 s: the collection interval.", "s", 4,
			thresholds("green", from(0.5, "orange"), from(1, "red")),
			target{"max by (source) (" + sel("soakd_stats_collection_duration_seconds") + ")", "{{source}}"})).
		WithPanel(status("Regressed ops (daemon)", "soakd_regression: ops whose last completed run regressed against the scenario's history (soakd serve only).", "none", 4,
			thresholds("green", from(1, "red")), target{"sum(" + scenarioSel("soakd_regression") + ")", "regressed"}).NoValue("no verdict")).
		WithRow(dashboard.NewRowBuilder("SLO budgets (rolling day)")).
		WithPanel(status("Budget left, worst op (rolling day)", "soakd:slo_budget_left:ratio_rolling1d (the shipped rules, from the scenarios' SLOs): the share of each latency and error budget the last 24 hours left, the worst of the selected scenarios' ops. Red when spent, orange below a quarter.", "percentunit", 8,
			thresholds("red", from(0, "orange"), from(0.25, "green")),
			target{"min(" + scenarioSel(budgetLeft) + ")", "worst"}).NoValue("no budget (scenario not in the rules)")).
		WithPanel(series("Budget left by op and SLO (rolling day)", "1 untouched, 0 spent, below 0 overspent: 1 - (bad ops / ops over 24 h) / budget; a p99 limit's budget is 1% of the op's ops.", "percentunit", 16,
			target{"min by (phase, op, slo) (" + scenarioSel(budgetLeft) + ")", "{{op}} {{slo}} ({{phase}})"})).
		WithRow(dashboard.NewRowBuilder("Latency (from intended start)")).
		WithPanel(withSLO(logSeries("Latency per op, 1 s HDR window (max over shards)",
			"soakd_op_latency_quantile_seconds: exact (HDR, 3 digits) per interval; a store stall shows here within one scrape. Log axis; the scenario's SLOs dashed red.", 24,
			quantileAt("0.5", "p50"), quantileAt("0.99", "p99"), quantileAt("0.999", "p99.9"), quantileAt("1", "max")))).
		WithPanel(latencyHeatmap("Latency heatmap (native histogram, all selected ops)",
			"soakd_op_latency_seconds: ops/s per schema-3 bucket (~9% wide), summed over shards and ops. Needs Prometheus --enable-feature=native-histograms.",
			"sum("+rate(lat)+")")).
		WithPanel(withSLO(logSeries("p99 latency, native histogram merged over shards", "Needs Prometheus --enable-feature=native-histograms.", 12,
			nativeQ("0.5", lat, "op", "{{op}} p50"), nativeQ("0.99", lat, "op", "{{op}} p99"), nativeQ("0.999", lat, "op", "{{op}} p99.9")))).
		WithPanel(withSLO(logSeries("p99 latency, classic buckets merged over shards",
			"soakd_op_latency_classic_seconds: works on any Prometheus; buckets are fine below 1 ms.", 12,
			nativeQ("0.99", latC, "op, le", "{{op}} p99"), nativeQ("0.999", latC, "op, le", "{{op}} p99.9")))).
		WithPanel(withSLO(logSeries("Service time p99 (from actual send)",
			"Latency minus service time is queueing inside soakd or the client: coordinated omission made visible. The SLO (dashed) judges latency from intended start.", 12,
			nativeQ("0.99", opSel("soakd_op_service_seconds"), "op", "{{op}} service p99"),
			nativeQ("0.99", opSel("soakd_op_service_classic_seconds_bucket"), "op, le", "{{op}} service p99 (classic)")))).
		WithPanel(sloLine(series("Latency p99 vs SLO", "", "s", 12,
			quantileAt("0.99", "p99"),
			target{"max by (op) (" + opSel("soakd_slo_latency_seconds", `quantile="0.99"`) + ")", "{{op}} SLO p99"}))).
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
		WithPanel(lostOps()).
		WithRow(dashboard.NewRowBuilder("Daemon (soakd serve): verdicts across runs")).
		WithPanel(status("Regression verdict per op", "soakd_regression: the last completed run of the scenario against its history (soakd compare's verdict).", "none", 8,
			thresholds("green", from(1, "red")), target{"max by (op) (" + scenarioSel("soakd_regression") + ")", "{{op}}"}).
			Mappings(texts(map[string][2]string{"0": {"ok", "green"}, "1": {"regressed", "red"}})).NoValue("no verdict yet")).
		WithPanel(status("History shifts (change points across runs)", "soakd_history_shifts: change points across the scenario's last completed runs, by phase, op, metric and direction; GET /api/v1/shifts names the run each began at.", "none", 8,
			thresholds("green", from(1, "orange")),
			target{"sum by (phase, op, metric, direction) (" + scenarioSel("soakd_history_shifts") + ")", "{{phase}} {{op}} {{metric}} {{direction}}"}).NoValue("none")).
		WithPanel(series("Daemon runs (all scenarios)", "soakd_daemon_runs_total by final state (finished per interval) and soakd_daemon_runs_active (queued or running).", "short", 8,
			target{"sum by (state) (increase(soakd_daemon_runs_total[$__rate_interval]))", "finished {{state}}"},
			target{"sum(soakd_daemon_runs_active)", "active"}))
}

// budgetLeft is the rolling day's budget-left series the shipped SLO
// rules record (burnrate.BudgetLeft(24 * time.Hour)).
const budgetLeft = "soakd:slo_budget_left:ratio_rolling1d"

// scenarioSel is a selector on a daemon metric, which has a scenario
// label but no shard.
func scenarioSel(metric string) string { return metric + `{scenario=~"$scenario"}` }
