package grafana

import "github.com/grafana/grafana-foundation-sdk/go/dashboard"

func growth() *dashboard.DashboardBuilder {
	p99 := "max(" + opSel("soakd_op_latency_quantile_seconds", `quantile="0.99"`) + ")"
	records := "sum(" + sel("soakd_dataset_records") + ")"
	return base("soakd-growth", "soakd / Growth & capacity",
		"Growth and ramp phases: p99 against dataset size and rate, stage by stage. Cliffs are annotated at the start of the stage they were confirmed in.").
		WithPanel(sloLine(series("p99 latency and dataset size", "The scenario's p99 SLO dashed red; records on the right axis.", "s", 24,
			append([]target{quantileAt("0.99", "p99"), target{records, "records"}}, sloTargets()[0])...).
			OverrideByName("records", []dashboard.DynamicConfigValue{{Id: "unit", Value: "short"}, {Id: "custom.axisPlacement", Value: "right"}}))).
		WithPanel(series("Stage", "", "none", 12,
			target{"max by (phase) (" + sel("soakd_growth_stage") + ")", "stage {{phase}}"})).
		WithPanel(series("Target rate per stage", "", "ops", 12,
			target{"sum by (phase) (" + sel("soakd_target_rate_ops") + ")", "target {{phase}}"},
			target{"sum by (phase) (" + sel("soakd_achieved_rate_ops") + ")", "achieved {{phase}}"})).
		WithPanel(scatter("Throughput-latency curve (achieved ops/s vs p99)", "s",
			target{"sum(" + sel("soakd_achieved_rate_ops") + ")", "achieved"}, target{p99, "p99"}).
			OverrideByName("achieved", []dashboard.DynamicConfigValue{{Id: "unit", Value: "ops"}})).
		WithPanel(scatter("p99 vs dataset size (max over shards)", "s",
			target{records, "records"}, target{p99, "p99"}).
			OverrideByName("records", []dashboard.DynamicConfigValue{{Id: "unit", Value: "short"}}))
}
