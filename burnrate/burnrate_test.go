package burnrate

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/soakd/soakd/internal/testutil"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"

	// The shipped scenarios name every store.
	_ "github.com/soakd/soakd/targets/cql"
	_ "github.com/soakd/soakd/targets/elastic"
	_ "github.com/soakd/soakd/targets/embedded"
	_ "github.com/soakd/soakd/targets/mongo"
	_ "github.com/soakd/soakd/targets/redis"
)

const shipped = "../deploy/prometheus/rules/soakd-slo.yml"

// The shipped rules are the generator's output for the shipped
// scenarios: a scenario's SLO and its alerts cannot disagree.
func TestShippedRulesCurrent(t *testing.T) {
	files, err := Files([]string{"../scenarios"})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 10 {
		t.Fatalf("scenario files: %v", files)
	}
	got, err := Generate(files, targets.LoadScenario, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(shipped)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is not the generator's output for scenarios/: run go generate ./burnrate", shipped)
	}
}

func parse(t *testing.T, src string) *scenarios.Scenario {
	t.Helper()
	sc, err := scenarios.Parse("t.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

const twoPhases = `name: bud
keyspace: {records: 100}
phases:
  - {name: fill, kind: load}
  - {name: soak, kind: steady, rate: 100, duration: 1m, mix: {read: 90, update: 10}}
slo:
  latency:
    "*": {p99: 10ms, p99.9: 50ms, max: 1s}
    update: {p99: 20ms}
  max_error_ratio: 0.002
`

// Budgets: judged phases only (not the load), "*" merged under an op's
// own limits, max has no budget, 1 - 99.9% without float noise.
func TestBudgets(t *testing.T) {
	got, err := Budgets(parse(t, twoPhases))
	if err != nil {
		t.Fatal(err)
	}
	b := func(op, kind, q string, limit float64, slo string, ratio float64) Budget {
		return Budget{Scenario: "bud", Phase: "soak", Op: op, Kind: kind, Quantile: q, Limit: limit, SLO: slo, Ratio: ratio}
	}
	want := []Budget{
		b("read", KindLatency, "0.99", 0.01, "p99 <= 10ms", 0.01),
		b("read", KindLatency, "0.999", 0.05, "p99.9 <= 50ms", 0.001),
		b("read", KindErrors, "", 0.002, "error ratio <= 0.002", 0.002),
		b("update", KindLatency, "0.99", 0.02, "p99 <= 20ms", 0.01),
		b("update", KindLatency, "0.999", 0.05, "p99.9 <= 50ms", 0.001),
		b("update", KindErrors, "", 0.002, "error ratio <= 0.002", 0.002),
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("budgets:\n got %+v\nwant %+v", got, want)
	}
	none, err := Budgets(parse(t, "name: n\nkeyspace: {records: 10}\nphases: [{kind: steady, rate: 10, duration: 1m, mix: {read: 100}}]\nslo: {latency: {'*': {max: 1s}}, max_error_ratio: 0}\n"))
	if err != nil || len(none) != 0 {
		t.Errorf("max and a zero error ratio have no budget: %+v %v", none, err)
	}
}

func TestWindows(t *testing.T) {
	w := Workbook()
	if len(w) != 3 || w[0].Factor != 14.4 || w[0].Long != time.Hour || w[0].Short != 5*time.Minute ||
		w[1].Factor != 6 || w[1].Long != 6*time.Hour || w[1].Short != 30*time.Minute ||
		w[2].Factor != 1 || w[2].Long != 72*time.Hour || w[2].Short != 6*time.Hour || w[2].Severity != "ticket" {
		t.Fatalf("workbook tiers %+v", w)
	}
	s := Scaled(w, 60)
	if s[0].Long != time.Minute || s[0].Short != 5*time.Second || s[2].Long != 72*time.Minute || w[0].Long != time.Hour {
		t.Errorf("scaled by 60: %+v (workbook now %+v)", s, w)
	}
	for d, want := range map[time.Duration]string{72 * time.Hour: "3d", 6 * time.Hour: "6h", 72 * time.Minute: "72m", 90 * time.Second: "90s", 5 * time.Second: "5s", 1500 * time.Millisecond: "1500ms"} {
		if got := dur(d); got != want {
			t.Errorf("dur(%v) = %s, want %s", d, got, want)
		}
	}
	rules := string(Rules(nil, Options{Tiers: s}))
	for _, want := range []string{"soakd:slo_latency_over:ratio_rate5s", "[72m]", "long_window: 1m", "short_window: 6m"} {
		if !strings.Contains(rules, want) {
			t.Errorf("scaled rules lack %q", want)
		}
	}
}

// The same generator with windows 60x shorter (1m and 5s, 6m and 30s,
// 72m and 6m), checked with promtool on 1 s samples: a burn pages within
// seconds and the fast page resolves once the 5 s window is clean.
func TestScaledRulesPromtool(t *testing.T) {
	page := func(pct, burn, long, short string) string {
		return `
          - exp_labels: {scenario: bud, phase: soak, op: read, quantile: "0.99", slo: "p99 <= 10ms", severity: ` + map[string]string{"1": "ticket"}[burn] + map[bool]string{true: "page"}[burn != "1"] + `, burn_rate: "` + burn + `", long_window: ` + long + `, short_window: ` + short + `}
            exp_annotations:
              summary: "bud read: SLO p99 <= 10ms burning its error budget at ` + burn + `x or more"
              description: "` + pct + ` of read ops slower than the limit over the last ` + long + ` (phase soak), ` + burn + `x the SLO's budget; still so over the last ` + short + `."
              run_page: "http://soakd.test:9470/#/scenario/bud/current"`
	}
	test := `rule_files: [slo.yml]
evaluation_interval: 1s
tests:
  - interval: 1s
    input_series:
      - series: 'soakd_op_latency_over_slo_total{scenario="bud",shard="0",phase="soak",op="read",quantile="0.99"}'
        values: '0+20x60 1200+0x60'
      - series: 'soakd_op_latency_classic_seconds_count{scenario="bud",shard="0",phase="soak",op="read"}'
        values: '0+100x120'
      - series: 'soakd_op_latency_over_slo_total{scenario="bud",shard="0",phase="soak",op="read",quantile="0.999"}'
        values: '0+0x120'
    alert_rule_test:
      - eval_time: 30s
        alertname: SoakdLatencyBudgetBurn
        exp_alerts:` + page("20%", "14.4", "1m", "5s") + page("20%", "6", "6m", "30s") + page("20%", "1", "72m", "6m") + `
      - eval_time: 70s
        alertname: SoakdLatencyBudgetBurn
        exp_alerts:` + page("17.14%", "6", "6m", "30s") + page("17.14%", "1", "72m", "6m") + `
`
	promtoolRules(t, Options{Tiers: Scaled(Workbook(), 60), DaemonURL: "http://soakd.test:9470/"}, test)
}

// promtoolRules runs `promtool test rules` on test against rules (as
// slo.yml), for budgets of twoPhases rendered with o.
func promtoolRules(t *testing.T, o Options, test string) {
	t.Helper()
	promtool := testutil.NeedTool(t, "promtool")
	bud, err := Budgets(parse(t, twoPhases))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	rules := Rules(bud, o)
	if err := os.WriteFile(filepath.Join(dir, "slo.yml"), rules, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "rules_test.yml"), []byte(test), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(promtool, "test", "rules", "rules_test.yml")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("promtool test rules: %v\n%s\n--- rules:\n%s", err, out, rules)
	}
}

// The rolling budget-left series, checked with promtool over a 2 m
// window after 60 s: read spent half of its p99 budget (1 in 200 ops
// over a 1% budget) and none of its p99.9 one; 1 in 200 ops failed
// against a 0.2% error budget (1 - 2.5 = -1.5 left); update, with no
// failed op at all, has its whole error budget left (1), not no series.
func TestBudgetLeftPromtool(t *testing.T) {
	const left = "soakd:slo_budget_left:ratio_rolling2m"
	if BudgetLeft(2*time.Minute) != left {
		t.Fatalf("BudgetLeft(2m) = %s", BudgetLeft(2*time.Minute))
	}
	lat := func(op, q, slo, v string) string {
		return `
          - labels: '` + left + `{scenario="bud",phase="soak",op="` + op + `",quantile="` + q + `",kind="latency",slo="` + slo + `"}'
            value: ` + v
	}
	errs := func(op, v string) string {
		return `
          - labels: '` + left + `{scenario="bud",phase="soak",op="` + op + `",kind="errors",slo="error ratio <= 0.002"}'
            value: ` + v
	}
	test := `rule_files: [slo.yml]
evaluation_interval: 1s
tests:
  - interval: 1s
    input_series:
      - series: 'soakd_op_latency_over_slo_total{scenario="bud",shard="0",phase="soak",op="read",quantile="0.99"}'
        values: '0+1x60'
      - series: 'soakd_op_latency_over_slo_total{scenario="bud",shard="0",phase="soak",op="read",quantile="0.999"}'
        values: '0+0x60'
      - series: 'soakd_op_latency_classic_seconds_count{scenario="bud",shard="0",phase="soak",op="read"}'
        values: '0+200x60'
      - series: 'soakd_ops_total{scenario="bud",shard="0",phase="soak",op="read",outcome="ok"}'
        values: '0+199x60'
      - series: 'soakd_ops_total{scenario="bud",shard="0",phase="soak",op="read",outcome="timeout"}'
        values: '0+1x60'
      - series: 'soakd_ops_total{scenario="bud",shard="0",phase="soak",op="update",outcome="ok"}'
        values: '0+100x60'
    promql_expr_test:
      - expr: ` + left + `{kind="latency"}
        eval_time: 60s
        exp_samples:` + lat("read", "0.99", "p99 <= 10ms", "0.5") + lat("read", "0.999", "p99.9 <= 50ms", "1") + `
      - expr: ` + left + `{kind="errors"}
        eval_time: 60s
        exp_samples:` + errs("read", "-1.5") + errs("update", "1") + `
`
	promtoolRules(t, Options{Tiers: Scaled(Workbook(), 60), BudgetWindow: 2 * time.Minute}, test)
}
