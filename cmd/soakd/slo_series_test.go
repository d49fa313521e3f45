package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// sloSeriesScenario has "*" limits and an op with limits of its own.
const sloSeriesScenario = `keyspace: {records: 100}
phases: [{kind: steady, rate: 50, duration: 2s, mix: {get: 100}}]
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
	var errb syncBuf
	a := &App{Stdout: &bytes.Buffer{}, Stderr: &errb, Getenv: func(string) string { return "" }, Now: time.Now}
	done := make(chan int)
	go func() {
		done <- a.Main(context.Background(), []string{"run", sc, "--out", filepath.Join(dir, "r"), "--listen", "127.0.0.1:0", "--quiet"})
	}()
	var url string
	deadline := time.Now().Add(5 * time.Second)
	for url == "" && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		if i := strings.Index(errb.String(), "metrics on "); i >= 0 {
			rest := errb.String()[i+len("metrics on "):]
			url = strings.TrimSpace(rest[:strings.Index(rest, "\n")])
		}
	}
	if url == "" {
		t.Fatal("no metrics address printed")
	}
	body := httpGet(t, url)
	var got []string
	for _, l := range strings.Split(body, "\n") {
		if strings.HasPrefix(l, "soakd_slo_latency_seconds{") {
			got = append(got, l)
		}
	}
	if strings.Join(got, "\n") != strings.Join(wantSLOSeries, "\n") {
		t.Errorf("SLO series:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantSLOSeries, "\n"))
	}
	if code := <-done; code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
}
