package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"gopkg.in/yaml.v3"

	"github.com/soakd/soakd/burnrate"
	"github.com/soakd/soakd/internal/testutil"
	"github.com/soakd/soakd/targets"
)

// amNotice is what Alertmanager posts to a webhook receiver.
type amNotice struct {
	Receiver string `json:"receiver"`
	Status   string `json:"status"`
	Alerts   []struct {
		Status      string            `json:"status"`
		Labels      map[string]string `json:"labels"`
		Annotations map[string]string `json:"annotations"`
	} `json:"alerts"`
}

// TestPagingEndToEnd is the loop a team deploys, with real processes:
// `soakd serve` runs a continuous soak against a real redis-server,
// Prometheus scrapes the daemon with the shipped rules and the burn-rate
// rules of the soak's scenario (the generator's, windows 60 times
// shorter: 14.4x over 1m and 5s pages), and Alertmanager routes with the
// shipped config to webhook receivers in this test. Undisturbed for
// quietFor: no burn-rate alert, no page. Then the store is slowed down
// (DEBUG SLEEP 0.5 over and over): the page arrives at the page receiver,
// names scenario, op and SLO, and links the scenario's page on the
// daemon, which serves it.
func TestPagingEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end: skipped with -short")
	}
	promBin := testutil.NeedTool(t, "prometheus")
	amBin := testutil.NeedTool(t, "alertmanager", "prometheus-alertmanager")
	redisBin := testutil.NeedTool(t, "redis-server")
	dir := t.TempDir()
	redisPort, daemonPort, promPort, amPort := freePort(t), freePort(t), freePort(t), freePort(t)
	daemonURL := fmt.Sprintf("http://127.0.0.1:%d", daemonPort)

	// The pager: one webhook receiver per route.
	var mu sync.Mutex
	var notices []amNotice
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var n amNotice
		b, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(b, &n); err != nil {
			t.Errorf("webhook %s: %v: %s", r.URL.Path, err, b)
		}
		mu.Lock()
		notices = append(notices, n)
		mu.Unlock()
	}))
	defer hook.Close()
	pages := func() []amNotice {
		mu.Lock()
		defer mu.Unlock()
		var out []amNotice
		for _, n := range notices {
			if n.Receiver == "soakd-page" && n.Status == "firing" {
				out = append(out, n)
			}
		}
		return out
	}

	// The store.
	start(t, dir, "redis", redisBin, "--port", strconv.Itoa(redisPort), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--enable-debug-command", "yes", "--dir", dir)
	rc := goredis.NewClient(&goredis.Options{Addr: fmt.Sprintf("127.0.0.1:%d", redisPort), ReadTimeout: 5 * time.Second})
	defer rc.Close()
	waitFor(t, 10*time.Second, func() bool { return rc.Ping(context.Background()).Err() == nil })

	// The scenario and its rules, through the generator the shipped rules
	// come from.
	scen := filepath.Join(dir, "paging.yaml")
	writeFile(t, scen, fmt.Sprintf(`name: paging
target: {kind: redis, url: "redis://127.0.0.1:%d"}
record: {fields: 2, field_bytes: 50}
keyspace: {records: 1000, distribution: uniform}
phases:
  - {name: load, kind: load, concurrency: 4}
  - {name: soak, kind: steady, rate: 200, duration: 10m, concurrency: 32, max_lag: 10s, mix: {read: 50, update: 50}}
slo:
  latency: {"*": {p99: 200ms}}
  max_error_ratio: 0.01
`, redisPort))
	rules, err := burnrate.Generate([]string{scen}, targets.LoadScenario, burnrate.Options{
		Tiers: burnrate.Scaled(burnrate.Workbook(), 60), DaemonURL: daemonURL})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "slo.yml"), string(rules))

	// Alertmanager with the shipped routes, delivering to the hook
	// without the shipped waits.
	var am map[string]any
	if err := yaml.Unmarshal(readFile(t, "../../../deploy/alertmanager/alertmanager.yml"), &am); err != nil {
		t.Fatal(err)
	}
	var quick func(r map[string]any)
	quick = func(r map[string]any) {
		r["group_wait"], r["group_interval"] = "1s", "1s"
		if sub, ok := r["routes"].([]any); ok {
			for _, s := range sub {
				quick(s.(map[string]any))
			}
		}
	}
	quick(am["route"].(map[string]any))
	for _, r := range am["receivers"].([]any) {
		rm := r.(map[string]any)
		rm["webhook_configs"] = []any{map[string]any{"url": hook.URL + "/" + rm["name"].(string), "send_resolved": true}}
	}
	amCfg, _ := yaml.Marshal(am)
	writeFile(t, filepath.Join(dir, "alertmanager.yml"), string(amCfg))
	start(t, dir, "alertmanager", amBin, "--config.file="+filepath.Join(dir, "alertmanager.yml"),
		"--storage.path="+filepath.Join(dir, "am"), fmt.Sprintf("--web.listen-address=127.0.0.1:%d", amPort), "--cluster.listen-address=")

	// Prometheus: the shipped recording rules and alerts, and the
	// scenario's burn-rate rules.
	ruleFiles := []string{filepath.Join(dir, "slo.yml")}
	for _, f := range []string{"soakd-recording.yml", "soakd-alerts.yml"} {
		abs, _ := filepath.Abs(filepath.Join("../../../deploy/prometheus/rules", f))
		ruleFiles = append(ruleFiles, abs)
	}
	writeFile(t, filepath.Join(dir, "prometheus.yml"), fmt.Sprintf(`global: {scrape_interval: 1s, evaluation_interval: 1s}
rule_files: %s
alerting:
  alertmanagers: [{static_configs: [{targets: ['127.0.0.1:%d']}]}]
scrape_configs:
  - job_name: soakd
    static_configs: [{targets: ['127.0.0.1:%d']}]
`, jsonList(ruleFiles), amPort, daemonPort))
	start(t, dir, "prometheus", promBin, "--enable-feature=native-histograms", "--config.file="+filepath.Join(dir, "prometheus.yml"),
		"--storage.tsdb.path="+filepath.Join(dir, "tsdb"), fmt.Sprintf("--web.listen-address=127.0.0.1:%d", promPort))
	prom := fmt.Sprintf("http://127.0.0.1:%d", promPort)

	// The daemon, soaking the scenario continuously.
	bin := filepath.Join(dir, "soakd")
	if out, err := exec.Command("go", "build", "-o", bin, "..").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	writeFile(t, filepath.Join(dir, "soakd.yaml"), fmt.Sprintf(`listen: 127.0.0.1:%d
token_env: SOAKD_TOKEN
data_dir: %s
soaks:
  - name: paging
    scenario: %s
    target: redis://127.0.0.1:%d
    pause: 1s
`, daemonPort, filepath.Join(dir, "data"), scen, redisPort))
	os.MkdirAll(filepath.Join(dir, "data"), 0o755)
	t.Setenv("SOAKD_TOKEN", "paging-test")
	start(t, dir, "soakd", bin, "serve", "--config", filepath.Join(dir, "soakd.yaml"))

	now := func() time.Time { return time.Now() }
	series := func(q string) int { return len(query(t, prom, q, now()).Result) }
	// The chain is up once the short-window ratio of the soak phase is
	// recorded, and the phase has run 10 s (its first seconds, with the
	// connections new, are not what this test is about).
	waitFor(t, 90*time.Second, func() bool {
		return series(`soakd:slo_latency_over:ratio_rate5s{scenario="paging",phase="soak"}`) > 0 &&
			series(`soakd:slo_budget:ratio{scenario="paging"}`) > 0 &&
			series(`count_over_time(soakd_op_latency_classic_seconds_count{scenario="paging",phase="soak",op="read"}[1m]) >= 10`) > 0
	})

	// Undisturbed: no burn-rate alert (pending or firing), no page.
	const quietFor = 30 * time.Second
	for end := time.Now().Add(quietFor); time.Now().Before(end); time.Sleep(time.Second) {
		r := query(t, prom, `ALERTS{alertname=~"Soakd(Latency|Error)BudgetBurn", severity="page"}`, now())
		if len(r.Result) > 0 {
			t.Fatalf("undisturbed soak: burn-rate alert %v", r.Result[0].Metric)
		}
	}
	if p := pages(); len(p) > 0 {
		t.Fatalf("undisturbed soak paged: %+v", p)
	}
	t.Logf("undisturbed for %s: no page", quietFor)

	// Slow the store down: it blocks 500 ms of every ~505, so most ops
	// wait past the 200 ms limit. (The limit is far above what a busy
	// two-core host's stalls do to an undisturbed soak in 5 s windows.)
	ctx, stop := context.WithCancel(context.Background())
	slowed := make(chan struct{})
	go func() {
		defer close(slowed)
		for ctx.Err() == nil {
			rc.Do(ctx, "DEBUG", "SLEEP", "0.5")
			time.Sleep(5 * time.Millisecond)
		}
	}()
	defer func() { stop(); <-slowed }()
	slowAt := time.Now()
	waitFor(t, 2*quietFor+30*time.Second, func() bool { return len(pages()) > 0 })
	t.Logf("paged %.1f s after the slowdown", time.Since(slowAt).Seconds())
	stop()
	<-slowed

	var got bool
	for _, n := range pages() {
		for _, a := range n.Alerts {
			l := a.Labels
			if a.Status != "firing" || l["alertname"] != "SoakdLatencyBudgetBurn" {
				continue
			}
			got = true
			if l["scenario"] != "paging" || l["phase"] != "soak" || (l["op"] != "read" && l["op"] != "update") ||
				l["slo"] != "p99 <= 200ms" || l["severity"] != "page" {
				t.Errorf("page labels %v", l)
			}
			if !strings.Contains(a.Annotations["summary"], "paging "+l["op"]) || !strings.Contains(a.Annotations["summary"], "p99 <= 200ms") {
				t.Errorf("page summary %q", a.Annotations["summary"])
			}
			if want := daemonURL + "/#/scenario/paging/current"; a.Annotations["run_page"] != want {
				t.Errorf("page links %q, want %q", a.Annotations["run_page"], want)
			}
		}
	}
	if !got {
		t.Fatalf("pages, none a latency budget burn: %+v", pages())
	}
	// The link: the daemon serves its page, and the scenario's runs
	// there include the running soak.
	u, _ := url.Parse(daemonURL + "/")
	resp, err := http.Get(u.String())
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("the run page link: GET %s: %v %v", u, err, resp)
	}
	resp.Body.Close()
	resp, err = http.Get(daemonURL + "/api/v1/runs?scenario=paging")
	if err != nil {
		t.Fatal(err)
	}
	var runs struct {
		Runs []struct {
			State string `json:"state"`
		} `json:"runs"`
	}
	json.NewDecoder(resp.Body).Decode(&runs)
	resp.Body.Close()
	running := false
	for _, r := range runs.Runs {
		running = running || r.State == "running"
	}
	if !running {
		t.Errorf("the scenario's runs on the daemon: %+v, none running", runs)
	}
}
