// Package burnrate turns scenarios' SLOs into error budgets and those
// into multi-window, multi-burn-rate Prometheus alerting rules (the
// tiers of the Google SRE workbook, "Alerting on SLOs").
//
// A latency limit "p99: 10ms" of an op allows 1% of the op's ops to be
// slower than 10 ms (from intended start): the bad events are
// soakd_op_latency_over_slo_total{quantile="0.99"}, counted by the
// exporter against that very limit, over the op's ops
// (soakd_op_latency_classic_seconds_count). max_error_ratio is a budget
// of failed ops (soakd_ops_total with an error outcome) over all ops.
// Budgets are per phase that the SLO judges (steady, ramp, growth,
// replay; not load, capacity or sweep phases, which run flat out by
// design).
//
// A tier fires when the budget burns at Factor times the sustainable
// rate over both its long and its short window: the long window makes
// it significant, the short one makes it stop soon after the burn does.
package burnrate

//go:generate go run ../cmd/soakd slo-rules --out ../deploy/prometheus/rules/soakd-slo.yml ../scenarios

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/verdict"
)

// Tier is one alert of the multi-window scheme.
type Tier struct {
	Severity    string  // label severity: page or ticket
	Factor      float64 // burn rate: 1 spends the budget exactly over the SLO period
	Long, Short time.Duration
}

// Workbook are the SRE workbook's tiers for a 30-day budget: 2% of it
// spent in an hour and 5% in six hours page, 10% in three days files a
// ticket.
func Workbook() []Tier {
	return []Tier{
		{Severity: "page", Factor: 14.4, Long: time.Hour, Short: 5 * time.Minute},
		{Severity: "page", Factor: 6, Long: 6 * time.Hour, Short: 30 * time.Minute},
		{Severity: "ticket", Factor: 1, Long: 72 * time.Hour, Short: 6 * time.Hour},
	}
}

// Scaled returns tiers with every window divided by div (rounded down
// to whole seconds, at least 1 s): the same rules over short windows,
// for tests.
func Scaled(tiers []Tier, div int) []Tier {
	out := make([]Tier, len(tiers))
	for i, t := range tiers {
		t.Long = max(time.Second, (t.Long / time.Duration(div)).Truncate(time.Second))
		t.Short = max(time.Second, (t.Short / time.Duration(div)).Truncate(time.Second))
		out[i] = t
	}
	return out
}

// Kinds of budget.
const (
	KindLatency = "latency"
	KindErrors  = "errors"
)

// Budget is the share of a phase's ops of an op that may be bad.
type Budget struct {
	Scenario, Phase, Op string
	Kind                string
	Quantile            string  // KindLatency: the exporter's quantile label ("0.99")
	Limit               float64 // KindLatency: seconds; KindErrors: the ratio
	SLO                 string  // as the scenario states it: "p99 <= 10ms", "error ratio <= 0.001"
	Ratio               float64 // the budget: 1 - quantile, or the error ratio
}

// judged reports whether the SLO judges a phase of kind k on latency
// and errors.
func judged(k scenarios.PhaseKind) bool { return k.Budgeted() }

// Budgets lists sc's budgets, by phase, op and kind. A limit with no
// room for bad ops (max, or max_error_ratio: 0) has no budget to burn:
// it is left to the run's verdict.
func Budgets(sc *scenarios.Scenario) ([]Budget, error) {
	ops, err := sc.OpTable()
	if err != nil {
		return nil, err
	}
	lim, err := verdict.New(sc.SLO, ops)
	if err != nil {
		return nil, err
	}
	var out []Budget
	for _, p := range sc.Phases {
		if !judged(p.Kind) {
			continue
		}
		seen := map[string]bool{}
		var names []string
		for _, m := range p.Mixes() {
			for op := range m {
				if !seen[op] {
					seen[op] = true
					names = append(names, op)
				}
			}
		}
		sort.Strings(names)
		for _, op := range names {
			for _, l := range lim.For(op) {
				if l.Percentile.Value >= 100 {
					continue
				}
				out = append(out, Budget{Scenario: sc.Name, Phase: p.Name, Op: op, Kind: KindLatency,
					Quantile: verdict.QuantileLabel(l.Percentile.Value), Limit: l.Limit.Seconds(),
					SLO:   fmt.Sprintf("%s <= %s", l.Percentile.Name, l.Limit),
					Ratio: round(1 - l.Percentile.Value/100)})
			}
			if r := sc.SLO.MaxErrorRatio; r != nil && *r > 0 {
				out = append(out, Budget{Scenario: sc.Name, Phase: p.Name, Op: op, Kind: KindErrors, Limit: *r,
					SLO: "error ratio <= " + num(*r), Ratio: *r})
			}
		}
	}
	return out, nil
}

// Options shape the generated rules.
type Options struct {
	// Tiers are the alerts per budget kind (Workbook when nil).
	Tiers []Tier
	// DaemonURL is where people reach the daemon's page: each alert
	// links the page of the scenario's running run there (its newest
	// when none runs).
	DaemonURL string
	// BudgetWindow is the rolling window of the budget-left series
	// (BudgetLeft; one day when 0).
	BudgetWindow time.Duration
}

// DefaultDaemonURL is the daemon as docker-compose.yml publishes it and
// as the systemd unit serves it (listen 127.0.0.1:9470).
const DefaultDaemonURL = "http://localhost:9470"

// Names of the generated series and alerts.
const (
	BudgetSeries  = "soakd:slo_budget:ratio"
	budgetLeft    = "soakd:slo_budget_left:ratio_rolling"
	LatencyAlert  = "SoakdLatencyBudgetBurn"
	ErrorsAlert   = "SoakdErrorBudgetBurn"
	latencyPrefix = "soakd:slo_latency_over:ratio_rate"
	errorsPrefix  = "soakd:slo_errors:ratio_rate"
)

// LatencyRatio and ErrorsRatio name the recorded bad-event ratio over
// window w.
func LatencyRatio(w time.Duration) string { return latencyPrefix + dur(w) }

// ErrorsRatio is the recorded error ratio over window w.
func ErrorsRatio(w time.Duration) string { return errorsPrefix + dur(w) }

// BudgetLeft names the recorded share of each budget left over the
// rolling window w: 1 untouched, 0 spent, below 0 overspent (the run
// summary's budget_left, over a rolling window of a continuous soak).
func BudgetLeft(w time.Duration) string { return budgetLeft + dur(w) }

// dur writes d as a PromQL duration in its largest whole unit ("3d",
// "6h", "72m", "90s").
func dur(d time.Duration) string {
	for _, u := range []struct {
		d time.Duration
		s string
	}{{24 * time.Hour, "d"}, {time.Hour, "h"}, {time.Minute, "m"}, {time.Second, "s"}} {
		if d%u.d == 0 {
			return strconv.FormatInt(int64(d/u.d), 10) + u.s
		}
	}
	return strconv.FormatInt(d.Milliseconds(), 10) + "ms"
}

// round drops the float noise of 1 - 99.9/100 (12 significant digits).
func round(f float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(f, 'g', 12, 64), 64)
	return v
}

func num(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// Rules renders the rule file for budgets: the ratios each tier's
// windows need, one budget series per budget, and one alert per tier and
// kind that fires where a ratio over both windows of the tier exceeds
// Factor times its budget. The output is deterministic.
func Rules(budgets []Budget, o Options) []byte {
	tiers := o.Tiers
	if tiers == nil {
		tiers = Workbook()
	}
	if o.DaemonURL == "" {
		o.DaemonURL = DefaultDaemonURL
	}
	var b strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	w("# Burn-rate alerts on the error budgets of soakd's scenarios' SLOs.\n")
	w("# Generated by `soakd slo-rules` (go generate ./burnrate for the shipped\n")
	w("# scenarios): do not edit.\n")
	w("# A latency limit pNN <= X allows (100-NN)%% of an op's ops over X\n")
	w("# (soakd_op_latency_over_slo_total); max_error_ratio allows that share of\n")
	w("# failed ops. Tiers (burn rate over a long and a short window):\n")
	for _, t := range tiers {
		w("#   %s: %sx over %s and %s\n", t.Severity, num(t.Factor), dur(t.Long), dur(t.Short))
	}
	w("groups:\n")
	// Ratios, merged across shards, per phase and op.
	var windows []time.Duration
	seen := map[time.Duration]bool{}
	for _, t := range tiers {
		for _, d := range []time.Duration{t.Short, t.Long} {
			if !seen[d] {
				seen[d] = true
				windows = append(windows, d)
			}
		}
	}
	sort.Slice(windows, func(i, j int) bool { return windows[i] < windows[j] })
	// One group: its rules run in order, so each alert reads the ratios
	// of the same evaluation (groups run concurrently).
	w("  - name: soakd-slo\n    rules:\n")
	for _, d := range windows {
		w("      - record: %s\n", LatencyRatio(d))
		w("        expr: |\n")
		w("          sum by (scenario, phase, op, quantile) (rate(soakd_op_latency_over_slo_total[%s]))\n", dur(d))
		w("            / on (scenario, phase, op) group_left ()\n")
		w("          sum by (scenario, phase, op) (rate(soakd_op_latency_classic_seconds_count[%s]))\n", dur(d))
	}
	for _, d := range windows {
		w("      - record: %s\n", ErrorsRatio(d))
		w("        expr: |\n")
		w("          sum by (scenario, phase, op) (rate(soakd_ops_total{outcome!~\"ok|miss\"}[%s]))\n", dur(d))
		w("            /\n")
		w("          sum by (scenario, phase, op) (rate(soakd_ops_total[%s]))\n", dur(d))
	}
	// Budgets: constant series the alerts join on.
	for _, bu := range budgets {
		w("      - record: %s\n", BudgetSeries)
		w("        expr: vector(%s)\n", num(bu.Ratio))
		w("        labels:\n")
		w("          scenario: %s\n", quote(bu.Scenario))
		w("          phase: %s\n", quote(bu.Phase))
		w("          op: %s\n", quote(bu.Op))
		w("          kind: %s\n", bu.Kind)
		if bu.Kind == KindLatency {
			w("          quantile: %s\n", quote(bu.Quantile))
		}
		w("          slo: %s\n", quote(bu.SLO))
	}
	budgetLeftRules(w, o.BudgetWindow)
	// Alerts.
	link := strings.TrimSuffix(o.DaemonURL, "/") + "/#/scenario/{{ $labels.scenario }}/current"
	for _, k := range []struct{ kind, alert, on, what string }{
		{KindLatency, LatencyAlert, "scenario, phase, op, quantile", "ops slower than the limit"},
		{KindErrors, ErrorsAlert, "scenario, phase, op", "ops failed"},
	} {
		for _, t := range tiers {
			ratio := LatencyRatio
			if k.kind == KindErrors {
				ratio = ErrorsRatio
			}
			budget := fmt.Sprintf("%s * %s{kind=%q}", num(t.Factor), BudgetSeries, k.kind)
			w("      - alert: %s\n", k.alert)
			w("        # Budget spent at %sx the sustainable rate over %s and still over %s.\n", num(t.Factor), dur(t.Long), dur(t.Short))
			w("        expr: |\n")
			w("          (\n")
			w("            %s\n", ratio(t.Long))
			w("              > on (%s) group_left (slo)\n", k.on)
			w("            %s\n", budget)
			w("          )\n")
			w("          and on (%s)\n", k.on)
			w("          (\n")
			w("            %s\n", ratio(t.Short))
			w("              > on (%s) group_left ()\n", k.on)
			w("            %s\n", budget)
			w("          )\n")
			w("        labels:\n")
			w("          severity: %s\n", t.Severity)
			w("          burn_rate: %s\n", quote(num(t.Factor)))
			w("          long_window: %s\n", dur(t.Long))
			w("          short_window: %s\n", dur(t.Short))
			w("        annotations:\n")
			w("          summary: %s\n", quote(fmt.Sprintf("{{ $labels.scenario }} %s: SLO {{ $labels.slo }} burning its error budget at %sx or more", "{{ $labels.op }}", num(t.Factor))))
			w("          description: %s\n", quote(fmt.Sprintf("{{ $value | humanizePercentage }} of {{ $labels.op }} %s over the last %s (phase {{ $labels.phase }}), %sx the SLO's budget; still so over the last %s.", k.what, dur(t.Long), num(t.Factor), dur(t.Short))))
			w("          run_page: %s\n", quote(link))
		}
	}
	return []byte(b.String())
}

// budgetLeftRules records, per budget, the share left over the rolling
// window d (a day when 0): 1 - (bad ops / ops over d) / budget. Ops are
// counted with increase() merged across shards, as the alerts' ratios;
// an op with no failed ops has its whole error budget left (1), not no
// series.
func budgetLeftRules(w func(string, ...any), d time.Duration) {
	if d <= 0 {
		d = 24 * time.Hour
	}
	w("      - record: %s\n", BudgetLeft(d))
	w("        expr: |\n")
	w("          1 - (\n")
	w("            sum by (scenario, phase, op, quantile) (increase(soakd_op_latency_over_slo_total[%s]))\n", dur(d))
	w("              / on (scenario, phase, op) group_left ()\n")
	w("            sum by (scenario, phase, op) (increase(soakd_op_latency_classic_seconds_count[%s]))\n", dur(d))
	w("          ) / on (scenario, phase, op, quantile) group_left (kind, slo) %s{kind=\"latency\"}\n", BudgetSeries)
	w("      - record: %s\n", BudgetLeft(d))
	w("        expr: |\n")
	w("          1 - (\n")
	w("            (\n")
	w("              sum by (scenario, phase, op) (increase(soakd_ops_total{outcome!~\"ok|miss\"}[%s]))\n", dur(d))
	w("                or\n")
	w("              0 * sum by (scenario, phase, op) (increase(soakd_ops_total[%s]))\n", dur(d))
	w("            )\n")
	w("              /\n")
	w("            sum by (scenario, phase, op) (increase(soakd_ops_total[%s]))\n", dur(d))
	w("          ) / on (scenario, phase, op) group_left (kind, slo) %s{kind=\"errors\"}\n", BudgetSeries)
}

var plain = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// quote writes s as a YAML scalar: double-quoted unless it is plain
// (and not something YAML would read as another type).
func quote(s string) string {
	if plain.MatchString(s) {
		if _, err := strconv.ParseFloat(s, 64); err != nil && s != "true" && s != "false" && s != "null" && s != "yes" && s != "no" {
			return s
		}
	}
	return strconv.Quote(s)
}

// Files expands args (scenario files, or directories whose *.yaml and
// *.yml files are scenarios) into a sorted list of files.
func Files(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			out = append(out, a)
			continue
		}
		for _, pat := range []string{"*.yaml", "*.yml"} {
			m, _ := filepath.Glob(filepath.Join(a, pat))
			out = append(out, m...)
		}
	}
	sort.Strings(out)
	return out, nil
}

// Generate loads each file with load and renders the rules for all their
// budgets. Two files may not name the same scenario: their budgets would
// collide in the same series.
func Generate(files []string, load func(string) (*scenarios.Scenario, error), o Options) ([]byte, error) {
	var all []Budget
	from := map[string]string{}
	for _, f := range files {
		sc, err := load(f)
		if err != nil {
			return nil, err
		}
		if prev, ok := from[sc.Name]; ok {
			return nil, fmt.Errorf("%s and %s both name scenario %q", prev, f, sc.Name)
		}
		from[sc.Name] = f
		b, err := Budgets(sc)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		all = append(all, b...)
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].Scenario < all[j].Scenario })
	return Rules(all, o), nil
}
