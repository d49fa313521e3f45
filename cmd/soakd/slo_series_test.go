package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// sloSeriesScenario has "*" limits and an op with limits of its own.
const sloSeriesScenario = `keyspace: {records: 100}
phases: [{kind: steady, rate: 50, duration: 10m, mix: {get: 100}}]
slo:
  latency:
    "*": {p99.9: 5s, max: 10s}
    get: {p50: 2s}
`

// wantSLOSeries are the soakd_slo_latency_seconds series for
// sloSeriesScenario: "*" limits for get, which has its own too, max as
// quantile 1, p99.9 as 0.999. Before: only get's p50 was exported.
var wantSLOSeries = []string{
	`soakd_slo_latency_seconds{op="get",quantile="0.5",scenario="m",shard="0"} 2`,
	`soakd_slo_latency_seconds{op="get",quantile="0.999",scenario="m",shard="0"} 5`,
	`soakd_slo_latency_seconds{op="get",quantile="1",scenario="m",shard="0"} 10`,
}

func TestRunExportsSLOSeries(t *testing.T) {
	dir := t.TempDir()
	sc := write(t, dir, "m.yaml", "name: m\n"+sloSeriesScenario)
	r := startServingRun(t, "run", sc, "--out", filepath.Join(dir, "r"), "--listen", "127.0.0.1:0", "--quiet")
	body := httpGet(t, r.url)
	var got []string
	for _, l := range strings.Split(body, "\n") {
		if strings.HasPrefix(l, "soakd_slo_latency_seconds{") {
			got = append(got, l)
		}
	}
	if strings.Join(got, "\n") != strings.Join(wantSLOSeries, "\n") {
		t.Errorf("SLO series:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantSLOSeries, "\n"))
	}
	r.stop(t)
}
