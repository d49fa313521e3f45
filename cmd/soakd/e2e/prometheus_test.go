package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"gopkg.in/yaml.v3"

	"github.com/soakd/soakd/grafana"
	"github.com/soakd/soakd/internal/testutil"
	"github.com/soakd/soakd/targets/cql/cqltest"
)

// TestPrometheusEndToEnd runs the real binary against a redis-server it
// starts, has a real Prometheus (native histograms on) scrape it every
// second with the shipped rules loaded, injects a 200 ms store stall
// (DEBUG SLEEP 0.2) and a BGSAVE (fork), then evaluates every PromQL
// expression in the shipped dashboards and rules through the HTTP API:
// each must parse and return data.
func TestPrometheusEndToEnd(t *testing.T) {
	// -short is the quick local loop; make test and CI never pass it, so this runs there.
	if testing.Short() {
		t.Skip("end-to-end: skipped with -short")
	}
	redisBin := testutil.NeedTool(t, "redis-server")
	dir := t.TempDir()
	redisPort, soakdPort, cqlSoakdPort := freePort(t), freePort(t), freePort(t)

	// Store. AOF is on so its figures (delayed fsyncs) have series for
	// the server dashboard.
	start(t, dir, "redis", redisBin, "--port", strconv.Itoa(redisPort), "--bind", "127.0.0.1", "--save", "",
		"--appendonly", "yes", "--appendfsync", "everysec", "--enable-debug-command", "yes", "--dir", dir)
	rc := goredis.NewClient(&goredis.Options{Addr: fmt.Sprintf("127.0.0.1:%d", redisPort)})
	defer rc.Close()
	waitFor(t, 5*time.Second, func() bool { return rc.Ping(context.Background()).Err() == nil })

	// Binary.
	bin := filepath.Join(dir, "soakd")
	if out, err := exec.Command("go", "build", "-o", bin, "..").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	// Prometheus with the shipped rules.
	rules, _ := filepath.Glob("../../../deploy/prometheus/rules/*.yml")
	for i, r := range rules {
		rules[i], _ = filepath.Abs(r)
	}
	prom := startPrometheus(t, dir, fmt.Sprintf("global: {scrape_interval: 1s, evaluation_interval: 1s}\nrule_files: %s\nscrape_configs:\n  - job_name: soakd\n    static_configs: [{targets: ['127.0.0.1:%d', '127.0.0.1:%d']}]\n",
		jsonList(rules), soakdPort, cqlSoakdPort))

	// The run: a short load, then up to 5 min at 1000 ops/s, stopped
	// (SIGINT) once the stall and the fork after it were scraped: a
	// slow host stretches the waits, never past the run's end.
	const steady = 5 * time.Minute
	writeFile(t, filepath.Join(dir, "e2e.yaml"), fmt.Sprintf(`name: e2e
target: {kind: redis, url: "redis://127.0.0.1:%d"}
record: {fields: 2, field_bytes: 50}
keyspace: {records: 2000, distribution: uniform}
phases:
  - {name: load, kind: load, concurrency: 8}
  - {name: steady, kind: steady, rate: 1000, duration: %s, concurrency: 16, max_lag: 1s, mix: {read: 50, update: 50}}
slo:
  latency: {"*": {p99: 50ms, p99.9: 100ms}}
`, redisPort, steady))
	run := exec.Command(bin, "run", filepath.Join(dir, "e2e.yaml"), "--quiet", "--out", filepath.Join(dir, "run"),
		"--listen", fmt.Sprintf("127.0.0.1:%d", soakdPort))
	runLog, _ := os.Create(filepath.Join(dir, "soakd.log"))
	run.Stdout, run.Stderr = runLog, runLog
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- run.Wait() }()
	t.Cleanup(func() {
		if run.ProcessState == nil {
			_ = run.Process.Kill()
			<-done
		}
	})

	// Alongside, a light run against the CQL test server, so the server
	// dashboard's CQL row has data too. It outlasts the Redis run.
	startCQLRun(t, dir, bin, cqlSoakdPort, steady+15*time.Second)

	// Wait for the steady phase to be scraped, then stall and fork.
	waitFor(t, 2*time.Minute, func() bool {
		return len(query(t, prom, `soakd_target_rate_ops{scenario="e2e",phase="steady"}`, time.Now()).Result) > 0
	})
	// A baseline before the stall: five scrapes of the steady phase.
	waitFor(t, 2*time.Minute, func() bool {
		return len(query(t, prom, `count_over_time(soakd_target_rate_ops{scenario="e2e",phase="steady"}[10s]) >= 5`, time.Now()).Result) > 0
	})
	stallAt := time.Now()
	if err := rc.Do(context.Background(), "DEBUG", "SLEEP", "0.2").Err(); err != nil {
		t.Fatalf("DEBUG SLEEP: %v", err)
	}
	// lastScrape is the time of the newest scrape of the steady phase.
	lastScrape := func() time.Time {
		r := query(t, prom, `timestamp(soakd_target_rate_ops{scenario="e2e",phase="steady"})`, time.Now()).Result
		if len(r) == 0 || len(r[0].Value) != 2 {
			return time.Time{}
		}
		ts, _ := strconv.ParseFloat(fmt.Sprint(r[0].Value[1]), 64)
		return time.UnixMilli(int64(ts * 1000))
	}
	// The fork after the stall's window was scraped: a sample 3 s on.
	scrapedAfter := func(at time.Time) {
		t.Helper()
		waitFor(t, 2*time.Minute, func() bool { return !lastScrape().Before(at) })
	}
	scrapedAfter(stallAt.Add(3 * time.Second))
	forkAt := time.Now()
	if err := rc.BgSave(context.Background()).Err(); err != nil {
		t.Fatalf("BGSAVE: %v", err)
	}
	// The fork's figures scraped (soakd's INFO poll saw the fork and
	// Prometheus scraped that poll: a loaded host can take seconds), then
	// the run is stopped. The panels are evaluated at that last scrape, a
	// moment soakd was still being scraped.
	scrapedAfter(forkAt.Add(3 * time.Second))
	waitFor(t, 2*time.Minute, func() bool {
		return len(query(t, prom, `changes(soakd_server_latest_fork_seconds{scenario="e2e"}[1m]) > 0`, time.Now()).Result) > 0
	})
	at := lastScrape()
	_ = run.Process.Signal(os.Interrupt)
	select {
	case err := <-done:
		b, _ := os.ReadFile(runLog.Name())
		if err != nil && run.ProcessState.ExitCode() != 1 { // 1 = interrupted (or SLO missed)
			t.Fatalf("soakd run: %v\n%s", err, b)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("soakd run did not stop on SIGINT")
	}

	// The stall as Prometheus saw it.
	t.Logf("stall injected at %s; evaluating at %s", stallAt.Format("15:04:05.000"), at.Format("15:04:05.000"))
	spikeAt := time.Time{}
	for _, q := range []string{
		`max by (op) (soakd_op_latency_quantile_seconds{scenario="e2e",quantile="0.99"})`,
		`max by (op) (soakd_op_latency_quantile_seconds{scenario="e2e",quantile="1"})`,
		`histogram_quantile(0.99, sum by (op) (rate(soakd_op_latency_seconds{scenario="e2e"}[5s])))`,
		`histogram_quantile(0.99, sum by (op, le) (rate(soakd_op_latency_classic_seconds_bucket{scenario="e2e"}[5s])))`,
		`histogram_quantile(0.99, sum by (op) (rate(soakd_op_service_seconds{scenario="e2e"}[5s])))`,
	} {
		series := queryRange(t, prom, q, stallAt.Add(-4*time.Second), stallAt.Add(12*time.Second))
		for _, s := range series {
			var b strings.Builder
			for _, v := range s.Values {
				ts := time.UnixMilli(int64(v[0].(float64) * 1000))
				f, _ := strconv.ParseFloat(v[1].(string), 64)
				fmt.Fprintf(&b, " %+.0fs=%.4g", ts.Sub(stallAt).Seconds(), f)
				// The p99 gauge of the 1 s window, or the native
				// histogram's p99 over 5 s: a scrape interval that
				// jitters past 1 s can skip one gauge window.
				p99 := strings.Contains(q, `quantile="0.99"`) || strings.Contains(q, `(rate(soakd_op_latency_seconds{`)
				if p99 && f >= 0.1 && ts.After(stallAt) && (spikeAt.IsZero() || ts.Before(spikeAt)) {
					spikeAt = ts
				}
			}
			t.Logf("%s %v:%s", q, s.Metric, b.String())
		}
	}
	if spikeAt.IsZero() || spikeAt.Sub(stallAt) > 15*time.Second {
		t.Errorf("the 200 ms stall did not show as p99 >= 100 ms within 15 s (first at %v)", spikeAt)
	} else {
		t.Logf("p99 spike visible %.1f s after the stall", spikeAt.Sub(stallAt).Seconds())
	}
	for _, q := range []string{
		`max_over_time(soakd_op_latency_quantile_seconds{quantile="0.99"}[30s])`,
		`max_over_time(soakd_op_latency_quantile_seconds{quantile="1"}[30s])`,
		`soakd:op_latency_seconds:p99_5m`,
	} {
		for _, s := range query(t, prom, q, at).Result {
			t.Logf("%s %v = %v", q, s.Metric, s.Value)
		}
	}
	// Native histograms are stored as such (not as classic buckets).
	if r := query(t, prom, `soakd_op_latency_seconds{scenario="e2e"}`, at).Result; len(r) == 0 || r[0].Histogram == nil {
		t.Errorf("soakd_op_latency_seconds is not a native histogram in Prometheus: %+v", r)
	}

	// Every shipped expression.
	exprs := shippedExprs(t)
	if len(exprs) < 40 {
		t.Fatalf("only %d expressions found", len(exprs))
	}
	for _, e := range exprs {
		q := substitute(e.expr)
		res := query(t, prom, q, at)
		if len(res.Result) > 0 || res.Scalar {
			continue
		}
		subs, ok := normallyEmpty[e.expr]
		if !ok && strings.HasPrefix(e.where, "soakd-slo.yml Soakd") {
			// A burn-rate alert is quiet in a healthy run, and this
			// scenario has no budget series (only the shipped ones do):
			// its ratios and the budgets must have data.
			subs, ok = burnParts.FindAllString(e.expr, -1), true
		}
		if !ok && strings.Contains(e.where+e.expr, "soakd:slo_budget_left:") {
			// Budgets exist for the shipped scenarios only, not this
			// one: the budget series and the counts the budget left is
			// made of must have data (burnrate.TestBudgetLeftPromtool
			// checks the arithmetic).
			subs, ok = budgetLeftParts, true
		}
		if !ok {
			// Prometheus parsed it (query fails the test otherwise); a
			// server row of another store has no data in a Redis run.
			// grafana.TestStoreRowsMatchAdapters checks its metric names.
			if store := otherStore(e.expr); store != "" {
				t.Logf("%s: parsed; no data expected (%s server stats)", e.where, store)
				continue
			}
			// The overview's daemon panels read what soakd serve
			// registers; this test scrapes soakd run.
			// daemon.TestAPIStartRateStopAndRegression checks those series.
			if daemonSeries.MatchString(e.expr) {
				t.Logf("%s: parsed; no data expected (the daemon's own series)", e.where)
				continue
			}
			t.Errorf("%s: no data for %s", e.where, q)
			continue
		}
		for _, s := range subs {
			if r := query(t, prom, substitute(s), at); len(r.Result) == 0 {
				t.Errorf("%s: no data for its part %s", e.where, s)
			}
		}
	}
	t.Logf("evaluated %d expressions from dashboards and rules", len(exprs))
}

// daemonSeries are the daemon's own metrics (soakd serve, not soakd run).
var daemonSeries = regexp.MustCompile(`\bsoakd_(regression|history_shifts|daemon_runs_total|daemon_runs_active)\b`)

// burnParts are the series a burn-rate alert (burnrate.Rules) compares.
var burnParts = regexp.MustCompile(`soakd:slo_[a-z_]+:ratio(_rate[0-9a-z]+)?`)

// budgetLeftParts are what the rolling budget-left series is made of.
var budgetLeftParts = []string{"soakd:slo_budget:ratio", "increase(soakd_op_latency_over_slo_total[1d])",
	"increase(soakd_op_latency_classic_seconds_count[1d])", "increase(soakd_ops_total[1d])"}

// normallyEmpty lists the shipped expressions whose result is empty on a
// healthy run (an alert condition that is false, an annotation for an
// event that did not happen, a week-old offset): each must still parse,
// and every part listed here must return data.
var normallyEmpty = map[string][]string{
	// alerts
	"soakd:op_latency_seconds:p99_5m\n  > on (scenario, op) group_left ()\nmax by (scenario, op) (soakd_slo_latency_seconds{quantile=\"0.99\"})\n": {
		"soakd:op_latency_seconds:p99_5m", `max by (scenario, op) (soakd_slo_latency_seconds{quantile="0.99"})`},
	"soakd:op_latency_seconds:p99_1h\n  > 1.5 * (soakd:op_latency_seconds:p99_1h offset 1w)\n": {
		"soakd:op_latency_seconds:p99_1h"}, // no data a week old in a test
	"soakd:op_latency_seconds:p99_1h\n  > 1.5 * quantile_over_time(0.5, soakd:op_latency_seconds:p99_1h[7d])\n": {
		"soakd:op_latency_seconds:p99_1h", "quantile_over_time(0.5, soakd:op_latency_seconds:p99_1h[7d])"},
	"avg_over_time(soakd_achieved_rate_ops[2m])\n  < on (scenario, shard, phase)\n0.95 * (soakd_target_rate_ops > 0)\n": {
		"avg_over_time(soakd_achieved_rate_ops[2m])", "0.95 * (soakd_target_rate_ops > 0)"},
	"sum by (scenario, op) (rate(soakd_ops_dropped_total[5m])) > 0": {"sum by (scenario, op) (rate(soakd_ops_dropped_total[5m]))"},
	"min by (scenario, shard) (soakd_target_up) == 0":               {"min by (scenario, shard) (soakd_target_up)"},
	// lost ops: this run is never killed (the counters are there at 0);
	// deploy/prometheus/tests/alerts_test.yml fires the alert.
	"sum by (scenario, shard, phase) (\n  soakd_ops_lost_total > 0\n    unless\n  soakd_ops_lost_total offset 10m == soakd_ops_lost_total\n) > 0\n": {
		"soakd_ops_lost_total"},
	// soakd_change_points is set when a run ends (its change points come
	// from the finished latency.hlog); this test scrapes a running soak.
	// metrics.TestExporterValues checks the series itself.
	"max by (scenario, phase, op, metric) (\n  soakd_change_points{direction=\"up\", metric=~\"p99|p99.9\"}\n) > 0\n": nil,
	"max by (scenario, phase, op) (\n  soakd_change_points{direction=\"up\", metric=\"error_ratio\"}\n) > 0\n":        nil,
	// dashboard annotations: change points (set when the run ends, as
	// above; metrics.TestExporterEvents checks the series), cliffs (no
	// growth phase here), live rate changes (none without the daemon: the
	// counter is there at 0).
	`max by (phase, op, metric, direction, n) (soakd_change_point_time_seconds{scenario=~"$scenario",shard=~"$shard",metric!="rate"}) * 1000`: nil,
	`max by (phase, stage, reason) (soakd_cliff_time_seconds{scenario=~"$scenario",shard=~"$shard"}) * 1000`:                                  nil,
	`ceil(sum by (phase) (increase(soakd_rate_changes_total{scenario=~"$scenario",shard=~"$shard"}[$__rate_interval])) > 0)`: {
		`sum by (phase) (increase(soakd_rate_changes_total{scenario=~"$scenario",shard=~"$shard"}[$__rate_interval]))`},
	// no resume in this run (the counters are there at 0)
	`sum by (phase) (soakd_ops_lost_total{scenario=~"$scenario",shard=~"$shard"} > 0 unless soakd_ops_lost_total{scenario=~"$scenario",shard=~"$shard"} offset 1m == soakd_ops_lost_total{scenario=~"$scenario",shard=~"$shard"})`: {
		`soakd_ops_lost_total{scenario=~"$scenario",shard=~"$shard"}`},
	// a BGSAVE of 2000 keys lasts a few ms, between scrapes
	`max(soakd_server_rdb_bgsave_in_progress{scenario=~"$scenario",shard=~"$shard"} + soakd_server_aof_rewrite_in_progress{scenario=~"$scenario",shard=~"$shard"}) > 0`: {
		`max(soakd_server_rdb_bgsave_in_progress{scenario=~"$scenario",shard=~"$shard"} + soakd_server_aof_rewrite_in_progress{scenario=~"$scenario",shard=~"$shard"})`},
}

// startCQLRun runs soakd for d against the CQL test server (a Cassandra
// 4 with system_views) with /metrics on port; the run is killed at the
// end of the test if still going.
func startCQLRun(t *testing.T, dir, bin string, port int, d time.Duration) {
	t.Helper()
	srv, err := cqltest.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	srv.SetViews(&cqltest.Views{Clients: 3, ThreadPools: []cqltest.ThreadPool{
		{Name: "ReadStage", Active: 1, ActiveLimit: 32, Pending: 2}, {Name: "Native-Transport-Requests", Active: 2, ActiveLimit: 128}}})
	writeFile(t, filepath.Join(dir, "e2e-cql.yaml"), fmt.Sprintf(`name: e2e-cql
target: {kind: cql, url: "cql://%s/ycsb"}
record: {fields: 2, field_bytes: 16}
keyspace: {records: 400}
phases:
  - {name: load, kind: load, concurrency: 2}
  - {name: steady, kind: steady, rate: 200, duration: %s, concurrency: 4, mix: {read: 50, update: 50}}
`, srv.Addr(), d))
	cmd := exec.Command(bin, "run", filepath.Join(dir, "e2e-cql.yaml"), "--quiet", "--out", filepath.Join(dir, "run-cql"),
		"--listen", fmt.Sprintf("127.0.0.1:%d", port))
	logf, _ := os.Create(filepath.Join(dir, "soakd-cql.log"))
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		logf.Close()
		if t.Failed() {
			b, _ := os.ReadFile(logf.Name())
			t.Logf("soakd (cql) log:\n%s", b)
		}
	})
}

// storesInRun are the stores this test runs soakd against.
var storesInRun = map[string]bool{"redis": true, "cql": true}

// otherStore names why a server dashboard query has no data here: its
// store is not run (MongoDB, Elasticsearch), or it reads ScyllaDB's own
// metrics (metrics_port, a real ScyllaDB node). "" otherwise.
func otherStore(expr string) string {
	for store, ms := range grafana.StoreMetrics() {
		for _, m := range ms {
			if !regexp.MustCompile(`\b` + m + `\b`).MatchString(expr) {
				continue
			}
			if !storesInRun[store] {
				return store
			}
			if strings.HasPrefix(m, "soakd_server_scylla_") {
				return "ScyllaDB metrics_port"
			}
		}
	}
	return ""
}

type shipped struct{ where, expr string }

var labelValues = regexp.MustCompile(`^label_values\((.*),\s*\w+\)$`)

// shippedExprs reads every PromQL expression from grafana/dashboards and
// deploy/prometheus/rules; template variable queries label_values(sel, l)
// contribute sel.
func shippedExprs(t *testing.T) []shipped {
	t.Helper()
	var out []shipped
	dash, _ := filepath.Glob("../../../grafana/dashboards/*.json")
	if len(dash) != 3 {
		t.Fatalf("dashboards: %v", dash)
	}
	for _, f := range dash {
		var v any
		if err := json.Unmarshal(readFile(t, f), &v); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		walk(v, func(path string, m map[string]any) {
			if e, ok := m["expr"].(string); ok {
				out = append(out, shipped{filepath.Base(f) + path, e})
			}
			if q, ok := m["query"].(map[string]any); ok {
				if s, ok := q["query"].(string); ok {
					if mm := labelValues.FindStringSubmatch(s); mm != nil {
						out = append(out, shipped{filepath.Base(f) + path + " variable", mm[1]})
					} else if s != "" {
						out = append(out, shipped{filepath.Base(f) + path + " variable", s})
					}
				}
			}
		}, "")
	}
	rules, _ := filepath.Glob("../../../deploy/prometheus/rules/*.yml")
	for _, f := range rules {
		var rf struct {
			Groups []struct {
				Rules []struct {
					Record, Alert, Expr string
				}
			}
		}
		if err := yaml.Unmarshal(readFile(t, f), &rf); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, g := range rf.Groups {
			for _, r := range g.Rules {
				out = append(out, shipped{filepath.Base(f) + " " + r.Record + r.Alert, r.Expr})
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].where < out[j].where })
	return out
}

func walk(v any, f func(string, map[string]any), path string) {
	switch x := v.(type) {
	case map[string]any:
		if title, ok := x["title"].(string); ok {
			path += " / " + title
		} else if name, ok := x["name"].(string); ok {
			path += " / " + name
		}
		f(path, x)
		for k, c := range x {
			if k != "query" {
				walk(c, f, path)
			}
		}
	case []any:
		for _, c := range x {
			walk(c, f, path)
		}
	}
}

// substitute replaces Grafana variables as a user with "All" selected
// would see them.
func substitute(e string) string {
	r := strings.NewReplacer("$scenario", ".*", "$shard", ".*", "$op", ".*", "$__rate_interval", "1m", "$__range", "1m")
	return r.Replace(e)
}

type promResult struct {
	Scalar bool
	Result []struct {
		Metric    map[string]string `json:"metric"`
		Value     []any             `json:"value"`
		Values    [][]any           `json:"values"`
		Histogram []any             `json:"histogram"`
	}
}

func query(t *testing.T, prom, q string, at time.Time) promResult {
	t.Helper()
	return api(t, prom+"/api/v1/query?"+url.Values{"query": {q}, "time": {ts(at)}}.Encode(), q)
}

func queryRange(t *testing.T, prom, q string, from, to time.Time) []struct {
	Metric    map[string]string `json:"metric"`
	Value     []any             `json:"value"`
	Values    [][]any           `json:"values"`
	Histogram []any             `json:"histogram"`
} {
	t.Helper()
	return api(t, prom+"/api/v1/query_range?"+url.Values{"query": {q}, "start": {ts(from)}, "end": {ts(to)}, "step": {"1"}}.Encode(), q).Result
}

func api(t *testing.T, u, q string) promResult {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var r struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			ResultType string          `json:"resultType"`
			Result     json.RawMessage `json:"result"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &r); err != nil || r.Status != "success" {
		t.Fatalf("query %s: status %s %s %s", q, r.Status, r.Error, body)
	}
	var out promResult
	if r.Data.ResultType == "scalar" {
		out.Scalar = true
		return out
	}
	if err := json.Unmarshal(r.Data.Result, &out.Result); err != nil {
		t.Fatalf("query %s: %v", q, err)
	}
	return out
}

func ts(t time.Time) string { return strconv.FormatFloat(float64(t.UnixMilli())/1000, 'f', 3, 64) }

func start(t *testing.T, dir, name, bin string, args ...string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	logf, _ := os.Create(filepath.Join(dir, name+".log"))
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		logf.Close()
		if t.Failed() {
			b, _ := os.ReadFile(logf.Name())
			if len(b) > 4000 {
				b = b[len(b)-4000:]
			}
			t.Logf("%s log:\n%s", name, b)
		}
	})
}

// startPrometheus starts Prometheus (native histograms on) in dir with
// config cfg, on a free port, and returns its URL once it is ready.
func startPrometheus(t *testing.T, dir, cfg string) string {
	t.Helper()
	bin := testutil.NeedTool(t, "prometheus")
	port := freePort(t)
	writeFile(t, filepath.Join(dir, "prometheus.yml"), cfg)
	start(t, dir, "prometheus", bin, "--enable-feature=native-histograms", "--config.file="+filepath.Join(dir, "prometheus.yml"),
		"--storage.tsdb.path="+filepath.Join(dir, "tsdb"), fmt.Sprintf("--web.listen-address=127.0.0.1:%d", port))
	prom := fmt.Sprintf("http://127.0.0.1:%d", port)
	waitFor(t, 2*time.Minute, func() bool {
		r, err := http.Get(prom + "/-/ready")
		if err == nil {
			r.Body.Close()
		}
		return err == nil && r.StatusCode == 200
	})
	return prom
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func waitFor(t *testing.T, d time.Duration, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s", d)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func jsonList(s []string) string { b, _ := json.Marshal(s); return string(b) }

func writeFile(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
