package grafana

import (
	"regexp"
	"sort"

	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
	"github.com/grafana/grafana-foundation-sdk/go/timeseries"
)

// storeRow is one store's server stats: the soakd_server_* figures its
// adapter reports (targets/<store> ServerStats).
type storeRow struct {
	store, title string
	collapsed    bool
	panels       []storePanel
}

type storePanel struct {
	title, unit, desc string
	targets           []target
}

func last(metric, by, legend string) target {
	return target{"sum by (" + by + ") (" + sel("soakd_server_"+metric) + ")", legend}
}

func perSecond(metric, legend string) target {
	return target{"sum by (shard) (rate(" + sel("soakd_server_"+metric) + "[$__rate_interval]))", legend}
}

// meanTime is a counter of seconds over a counter of events: the mean
// time per event over the window.
func meanTime(seconds, count, legend string) target {
	return target{"sum by (shard) (rate(" + sel("soakd_server_"+seconds) + "[$__rate_interval])) / sum by (shard) (rate(" +
		sel("soakd_server_"+count) + "[$__rate_interval]))", legend}
}

func storeRows() []storeRow {
	return []storeRow{
		{store: "redis", title: "Redis", panels: []storePanel{
			{"Memory used vs limit", "bytes", "", []target{last("used_memory_bytes", "shard", "used {{shard}}"),
				last("maxmemory_bytes", "shard", "limit {{shard}} (0 = none)"), last("used_memory_rss_bytes", "shard", "rss {{shard}}")}},
			{"Evictions", "ops", "", []target{perSecond("evicted_keys_total", "evicted/s {{shard}}")}},
			{"Commands processed", "ops", "INFO total_commands_processed as a rate: the server's own count of what it served.",
				[]target{perSecond("commands_processed_total", "commands/s {{shard}}")}},
			{"Persistence", "short", "BGSAVEs and AOF rewrites started per second, and fsyncs the AOF had to delay (AOF on only).",
				[]target{perSecond("rdb_saves_total", "BGSAVE {{shard}}"), perSecond("aof_rewrites_total", "AOF rewrite {{shard}}"),
					perSecond("aof_delayed_fsync_total", "delayed fsync {{shard}}")}},
			{"Swap of the server process", "bytes", "VmSwap of the server process; only when the server runs on the soakd host.",
				[]target{last("process_swap_bytes", "shard", "swap {{shard}}")}},
			{"Last fork time", "s", "", []target{{"max by (shard) (" + sel("soakd_server_latest_fork_seconds") + ")", "fork {{shard}}"}}},
			{"Fragmentation ratio", "none", "", []target{{"max by (shard) (" + sel("soakd_server_mem_fragmentation_ratio") + ")", "{{shard}}"}}},
			{"Keys and clients", "short", "", []target{{"sum(" + sel("soakd_server_keys") + ")", "keys"},
				{"sum(" + sel("soakd_server_connected_clients") + ")", "clients"}}},
		}},
		{store: "mongo", title: "MongoDB (serverStatus, dbStats)", collapsed: true, panels: []storePanel{
			{"Operations (opcounters)", "ops", "", []target{
				perSecond("opcounters_insert", "insert {{shard}}"), perSecond("opcounters_query", "query {{shard}}"),
				perSecond("opcounters_update", "update {{shard}}"), perSecond("opcounters_delete", "delete {{shard}}"),
				perSecond("opcounters_getmore", "getmore {{shard}}"), perSecond("opcounters_command", "command {{shard}}")}},
			{"WiredTiger cache", "bytes", "", []target{last("wiredtiger_cache_bytes", "shard", "cache {{shard}}"),
				last("wiredtiger_cache_dirty_bytes", "shard", "dirty {{shard}}"), last("mem_resident_bytes", "shard", "resident {{shard}}")}},
			{"Pages read into cache", "ops", "Reads from disk into the cache: the working set no longer fits when this climbs.",
				[]target{perSecond("wiredtiger_pages_read_into_cache", "pages/s {{shard}}")}},
			{"Data and storage size", "bytes", "", []target{last("db_data_size_bytes", "shard", "data {{shard}}"),
				last("db_storage_size_bytes", "shard", "storage {{shard}}")}},
			{"Documents and connections", "short", "", []target{last("db_objects", "shard", "documents {{shard}}"),
				last("connections_current", "shard", "connections {{shard}}")}},
		}},
		{store: "elastic", title: "Elasticsearch (_nodes/stats, summed over nodes)", collapsed: true, panels: []storePanel{
			{"JVM heap", "bytes", "", []target{last("jvm_heap_used_bytes", "shard", "used {{shard}}"), last("jvm_heap_max_bytes", "shard", "max {{shard}}")}},
			{"GC time per second", "percentunit", "Seconds spent in garbage collection per second of wall time.", []target{
				perSecond("jvm_gc_young_collection_seconds_total", "young {{shard}}"), perSecond("jvm_gc_old_collection_seconds_total", "old {{shard}}")}},
			{"Indexing and search rate", "ops", "", []target{perSecond("indexing_index_total", "index {{shard}}"),
				perSecond("search_query_total", "search {{shard}}")}},
			{"Mean server time per index / search", "s", "", []target{
				meanTime("indexing_index_time_seconds_total", "indexing_index_total", "index {{shard}}"),
				meanTime("search_query_time_seconds_total", "search_query_total", "search {{shard}}")}},
			{"Query cache hit ratio", "percentunit", "", []target{{"sum by (shard) (rate(" + sel("soakd_server_query_cache_hit_total") +
				"[$__rate_interval])) / (sum by (shard) (rate(" + sel("soakd_server_query_cache_hit_total") + "[$__rate_interval])) + sum by (shard) (rate(" +
				sel("soakd_server_query_cache_miss_total") + "[$__rate_interval])))", "hit ratio {{shard}}"}}},
			{"Segments and nodes", "short", "", []target{last("segments_count", "shard", "segments {{shard}}"), last("nodes", "shard", "nodes {{shard}}")}},
		}},
		{store: "cql", title: "Cassandra / ScyllaDB (CQL driver and system tables)", collapsed: true, panels: []storePanel{
			{"Hosts", "short", "", []target{last("cql_hosts_known", "shard", "known {{shard}}"), last("cql_hosts_up", "shard", "up {{shard}}")}},
			{"CQL errors by kind", "ops", "", []target{
				perSecond("cql_errors_unavailable_total", "unavailable {{shard}}"), perSecond("cql_errors_overloaded_total", "overloaded {{shard}}"),
				perSecond("cql_errors_read_timeout_total", "read timeout {{shard}}"), perSecond("cql_errors_write_timeout_total", "write timeout {{shard}}"),
				perSecond("cql_errors_client_timeout_total", "client timeout {{shard}}"), perSecond("cql_connect_errors_total", "connect {{shard}}")}},
			{"Mean request time, slowest and fastest host", "s", "The driver's per-host mean since the last stats call: a gap between the two is one slow node.",
				[]target{last("cql_host_mean_request_seconds_max", "shard", "slowest host {{shard}}"),
					last("cql_host_mean_request_seconds_min", "shard", "fastest host {{shard}}")}},
			{"Thread pools (system_views, Cassandra 4+)", "short", "", []target{last("cql_thread_pool_pending_tasks", "shard", "pending {{shard}}"),
				last("cql_thread_pool_blocked_tasks", "shard", "blocked {{shard}}"), last("cql_native_clients", "shard", "clients {{shard}}")}},
			{"ScyllaDB reactor utilization (metrics_port)", "percent", "", []target{last("scylla_reactor_utilization_percent", "shard", "reactor {{shard}}")}},
			{"ScyllaDB cache used (metrics_port)", "bytes", "", []target{last("scylla_cache_bytes_used", "shard", "cache {{shard}}")}},
		}},
	}
}

func server() *dashboard.DashboardBuilder {
	d := base("soakd-server", "soakd / Server",
		"The target's own figures (soakd_server_*), one row per store; soakd exports what the target's adapter reads. Persistence, forks, cliffs, change points and rate changes are annotated.").
		WithPanel(withSLO(logSeries("Latency p99 / max (events annotated)", "The scenario's SLOs dashed red.", 24,
			quantileAt("0.99", "p99"), quantileAt("1", "max"))))
	for _, r := range storeRows() {
		row := dashboard.NewRowBuilder(r.title).Collapsed(r.collapsed)
		var panels []*timeseries.PanelBuilder
		for _, p := range r.panels {
			panels = append(panels, series(p.title, p.desc, p.unit, 12, p.targets...))
		}
		if r.collapsed {
			for _, p := range panels {
				row = row.WithPanel(p)
			}
			d = d.WithRow(row)
			continue
		}
		d = d.WithRow(row)
		for _, p := range panels {
			d = d.WithPanel(p)
		}
	}
	return d
}

var serverMetric = regexp.MustCompile(`\bsoakd_server_[a-z0-9_]+`)

// StoreMetrics returns, per store (redis, mongo, elastic, cql), the
// soakd_server_* metrics its row of the server dashboard queries.
func StoreMetrics() map[string][]string {
	out := map[string][]string{}
	for _, r := range storeRows() {
		seen := map[string]bool{}
		for _, p := range r.panels {
			for _, t := range p.targets {
				for _, m := range serverMetric.FindAllString(t.expr, -1) {
					if !seen[m] {
						seen[m] = true
						out[r.store] = append(out[r.store], m)
					}
				}
			}
		}
		sort.Strings(out[r.store])
	}
	return out
}
