package metrics

import "github.com/prometheus/client_golang/prometheus"

// CollectAnnotations sends the series the shipped dashboards' event
// annotations read: live rate changes (soakd_rate_changes_total), the
// finished run's change points (soakd_change_point_time_seconds and
// their counts, soakd_change_points), its confirmed cliffs
// (soakd_cliff_time_seconds) and the server's persistence counters
// (soakd_server_rdb_saves_total, soakd_server_aof_rewrites_total). Each
// is also in Collect or the server collector; the daemon keeps sending
// these of a finished run for a while (most are set only as it ends).
func (e *Exporter) CollectAnnotations(ch chan<- prometheus.Metric) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for k, n := range e.changes {
		ch <- prometheus.MustNewConstMetric(e.changePoints, prometheus.GaugeValue, n, e.scenario, e.shard, k.phase, k.op, k.metric, k.direction)
	}
	e.ev.collect(ch, e.scenario, e.shard, e.order)
	for name, v := range e.serverStats {
		if persistenceCounter(name) {
			ch <- prometheus.MustNewConstMetric(e.serverDescs[name], prometheus.CounterValue, v, e.scenario, e.shard)
		}
	}
}

// CollectServer sends the target's server stats: what the collector
// Register adds sends, for a registry that collects exporters itself
// (the daemon's, one collector over its running runs).
func (e *Exporter) CollectServer(ch chan<- prometheus.Metric) { serverCollector{e}.Collect(ch) }

// persistenceCounter says whether a server series is a persistence
// counter the dashboards' annotations take increase() of: a job that
// ends in a run's last seconds is counted once a later scrape sees it.
func persistenceCounter(name string) bool {
	switch name {
	case "soakd_server_rdb_saves_total", "soakd_server_aof_rewrites_total":
		return true
	}
	return false
}
