package grafana

import (
	"github.com/grafana/grafana-foundation-sdk/go/common"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
)

// eventAnnotations mark the run's events on every dashboard: change
// points and cliffs at the time the run found them (the series' value is
// the event's Unix time), live rate changes, the store's persistence
// (BGSAVE, AOF rewrite, fork), and resumes that lost ops. A change point
// of the rate itself is left out: a live rate change, which has its own
// annotation, makes one.
func eventAnnotations() []*dashboard.AnnotationQueryBuilder {
	grafanaDS := "grafana"
	return []*dashboard.AnnotationQueryBuilder{
		dashboard.NewAnnotationQueryBuilder().Name("Annotations & Alerts").BuiltIn(1).Type("dashboard").Enable(true).Hide(true).
			IconColor("rgba(0, 211, 255, 1)").Datasource(common.DataSourceRef{Type: &grafanaDS, Uid: ptr("-- Grafana --")}),
		annotation("Change points", "purple",
			"max by (phase, op, metric, direction, n) ("+sel("soakd_change_point_time_seconds", `metric!="rate"`)+") * 1000",
			"change point: {{op}} {{metric}} {{direction}}", "phase {{phase}}", true),
		annotation("Cliffs", "red",
			"max by (phase, stage, reason) ("+sel("soakd_cliff_time_seconds")+") * 1000",
			"cliff at stage {{stage}} ({{reason}})", "phase {{phase}}", true),
		annotation("Rate changes", "blue",
			"ceil(sum by (phase) (increase("+sel("soakd_rate_changes_total")+"[$__rate_interval])) > 0)",
			"live rate change", "phase {{phase}}", false),
		annotation("Persistence (BGSAVE / AOF rewrite started)", "orange",
			"ceil(sum(increase("+sel("soakd_server_rdb_saves_total")+"[$__rate_interval]))"+
				" + sum(increase("+sel("soakd_server_aof_rewrites_total")+"[$__rate_interval])) > 0)",
			"BGSAVE / AOF rewrite started", "persistence: fork and snapshot or rewrite", false),
		annotation("Persistence running", "yellow",
			"max("+sel("soakd_server_rdb_bgsave_in_progress")+" + "+sel("soakd_server_aof_rewrite_in_progress")+") > 0",
			"BGSAVE / AOF rewrite", "persistence in progress", false),
		annotation("Fork", "dark-red",
			"max(changes("+sel("soakd_server_latest_fork_seconds")+"[1m])) > 0",
			"Fork", "fork", false),
		seamAnnotation(),
	}
}

// annotation is a Prometheus annotation query. With valueIsTime the
// series' value (ms) is the event's time; otherwise every step where the
// expression's value is at least 1 is marked (Grafana before 10 ignores
// values below 1: increase() of a counter is rounded up).
func annotation(name, color, expr, title, text string, valueIsTime bool) *dashboard.AnnotationQueryBuilder {
	return dashboard.NewAnnotationQueryBuilder().Name(name).Datasource(ds()).Enable(true).IconColor(color).
		Expr(expr).Step("5s").TitleFormat(title).TextFormat(text).UseValueForTime(valueIsTime)
}
