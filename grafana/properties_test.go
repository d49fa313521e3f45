package grafana

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// The properties people read the dashboards by, asserted on the
// generated JSON (Grafana cannot run here).

type jmap = map[string]any

func rendered(t *testing.T) map[string]jmap {
	t.Helper()
	out := map[string]jmap{}
	for _, d := range Dashboards() {
		b, err := Render(d)
		if err != nil {
			t.Fatal(err)
		}
		var m jmap
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		out[m["uid"].(string)] = m
	}
	return out
}

// panels flattens the top level and collapsed rows, rows included, in
// layout order.
func panels(d jmap) []jmap {
	var out []jmap
	for _, p := range d["panels"].([]any) {
		pm := p.(jmap)
		out = append(out, pm)
		if sub, ok := pm["panels"].([]any); ok {
			for _, c := range sub {
				out = append(out, c.(jmap))
			}
		}
	}
	return out
}

func str(v any) string { s, _ := v.(string); return s }

func get(m jmap, path ...string) any {
	var v any = m
	for _, k := range path {
		mm, ok := v.(jmap)
		if !ok {
			return nil
		}
		v = mm[k]
	}
	return v
}

func targetsOf(p jmap) []jmap {
	var out []jmap
	ts, _ := p["targets"].([]any)
	for _, tg := range ts {
		out = append(out, tg.(jmap))
	}
	return out
}

// colorAt is the threshold color of value v: the last step at or below it.
func colorAt(t *testing.T, p jmap, v float64) string {
	t.Helper()
	steps, _ := get(p, "fieldConfig", "defaults", "thresholds", "steps").([]any)
	if len(steps) == 0 {
		t.Fatalf("panel %q has no thresholds", p["title"])
	}
	color := ""
	for _, s := range steps {
		sm := s.(jmap)
		if from, ok := sm["value"].(float64); !ok || v >= from {
			color = str(sm["color"])
		}
	}
	return color
}

// effectiveUnit is the unit a target's series is drawn with: a by-name
// override of its legend, else the panel's unit.
func effectiveUnit(p jmap, legend string) string {
	ovs, _ := get(p, "fieldConfig", "overrides").([]any)
	for _, o := range ovs {
		om := o.(jmap)
		if str(get(om, "matcher", "id")) != "byName" || str(get(om, "matcher", "options")) != legend {
			continue
		}
		for _, pr := range om["properties"].([]any) {
			if pm := pr.(jmap); pm["id"] == "unit" {
				return str(pm["value"])
			}
		}
	}
	return str(get(p, "fieldConfig", "defaults", "unit"))
}

func TestStatusRowFirstAndRed(t *testing.T) {
	ov := rendered(t)["soakd-overview"]
	ps := panels(ov)
	if ps[0]["type"] != "row" || ps[0]["title"] != "Status" {
		t.Fatalf("the overview starts with %v %q, want the Status row", ps[0]["type"], ps[0]["title"])
	}
	tiles := map[string]jmap{}
	for _, p := range ps[1:] {
		if p["type"] == "row" {
			break
		}
		if p["type"] != "stat" {
			t.Errorf("status row: %q is a %v, want a stat tile", p["title"], p["type"])
		}
		if get(p, "gridPos", "y").(float64) != 1 {
			t.Errorf("status tile %q is not on the top line: %v", p["title"], p["gridPos"])
		}
		if get(p, "options", "colorMode") != "background" || get(p, "fieldConfig", "defaults", "color", "mode") != "thresholds" {
			t.Errorf("status tile %q is not colored by its thresholds", p["title"])
		}
		tiles[str(p["title"])] = p
	}
	for _, c := range []struct {
		tile string
		v    float64
		want string
	}{
		{"Target up", 0, "red"}, {"Target up", 1, "green"},
		{"Error ratio", 0, "green"}, {"Error ratio", 0.0001, "orange"}, {"Error ratio", 0.001, "red"}, {"Error ratio", 1, "red"},
		{"Ops over their p99 SLO", 0.001, "green"}, {"Ops over their p99 SLO", 0.01, "red"},
		{"Stats collection", 0, "red"}, {"Stats collection", 1, "green"},
		{"Stats collection duration", 0.05, "green"}, {"Stats collection duration", 2, "red"},
		{"Regressed ops (daemon)", 0, "green"}, {"Regressed ops (daemon)", 2, "red"},
	} {
		p := tiles[c.tile]
		if p == nil {
			t.Errorf("no status tile %q (have %v)", c.tile, tiles)
			continue
		}
		if got := colorAt(t, p, c.v); got != c.want {
			t.Errorf("%s at %g is %s, want %s", c.tile, c.v, got, c.want)
		}
	}
	// DOWN and FAILED are words, not a red 0.
	for _, c := range []struct{ tile, text string }{{"Target up", "DOWN"}, {"Stats collection", "FAILED"}} {
		b, _ := json.Marshal(get(tiles[c.tile], "fieldConfig", "defaults", "mappings"))
		if !strings.Contains(string(b), `"text":"`+c.text+`"`) {
			t.Errorf("%s: 0 is not mapped to %s: %s", c.tile, c.text, b)
		}
	}
}

func TestDaemonVerdictsOnOverview(t *testing.T) {
	ov := rendered(t)["soakd-overview"]
	found := map[string]string{}
	for _, p := range panels(ov) {
		for _, tg := range targetsOf(p) {
			for _, m := range []string{"soakd_regression", "soakd_history_shifts", "soakd_daemon_runs_total", "soakd_daemon_runs_active"} {
				if strings.Contains(str(tg["expr"]), m+"{") || strings.Contains(str(tg["expr"]), m+"[") || strings.Contains(str(tg["expr"]), m+")") {
					found[m] = str(p["title"])
				}
			}
		}
	}
	for _, m := range []string{"soakd_regression", "soakd_history_shifts", "soakd_daemon_runs_total", "soakd_daemon_runs_active"} {
		if found[m] == "" {
			t.Errorf("no overview panel shows %s", m)
		}
	}
}

var opLatency = regexp.MustCompile(`\bsoakd_op_(latency|service)_(quantile_|classic_)?seconds`)

// Every time series panel of op latency draws the scenario's SLO, as a
// red dashed line that is not filled.
func TestLatencyPanelsDrawSLO(t *testing.T) {
	n := 0
	for uid, d := range rendered(t) {
		for _, p := range panels(d) {
			if p["type"] != "timeseries" {
				continue
			}
			latency, slo := false, ""
			for _, tg := range targetsOf(p) {
				e := str(tg["expr"])
				if strings.Contains(e, "soakd_slo_latency_seconds") {
					slo = str(tg["legendFormat"])
				} else if opLatency.MatchString(e) {
					latency = true
				}
			}
			if !latency {
				continue
			}
			n++
			if slo == "" {
				t.Errorf("%s: latency panel %q draws no SLO", uid, p["title"])
				continue
			}
			styled := false
			for _, o := range get(p, "fieldConfig", "overrides").([]any) {
				om := o.(jmap)
				if str(get(om, "matcher", "id")) != "byRegexp" {
					continue
				}
				re := strings.Trim(str(get(om, "matcher", "options")), "/")
				if !regexp.MustCompile(re).MatchString(strings.ReplaceAll(slo, "{{op}}", "read")) {
					continue
				}
				b, _ := json.Marshal(om["properties"])
				styled = strings.Contains(string(b), `"fixedColor":"red"`) && strings.Contains(string(b), `"fill":"dash"`)
			}
			if !styled {
				t.Errorf("%s: panel %q: the SLO series %q is not a red dashed line", uid, p["title"], slo)
			}
		}
	}
	if n < 6 {
		t.Errorf("only %d latency panels", n)
	}
}

// Rates are in ops/s, records are counts, latency in seconds: on every
// panel, for the series each is drawn as (overrides included).
func TestUnits(t *testing.T) {
	checked := 0
	for uid, d := range rendered(t) {
		for _, p := range panels(d) {
			for _, tg := range targetsOf(p) {
				e, legend := str(tg["expr"]), str(tg["legendFormat"])
				u := effectiveUnit(p, legend)
				var want []string
				switch {
				case strings.Contains(e, "soakd_achieved_rate_ops"), strings.Contains(e, "soakd_target_rate_ops"), strings.Contains(e, "rate(soakd_ops_total"):
					want = []string{"ops", "reqps"}
				case strings.Contains(e, "soakd_dataset_records"):
					want = []string{"short"}
				case strings.Contains(e, "soakd_op_latency_quantile_seconds") && p["type"] != "stat":
					want = []string{"s"}
				default:
					continue
				}
				if !strings.Contains(e, " / ") && !contains(want, u) {
					t.Errorf("%s: panel %q draws %q in %q, want %v", uid, p["title"], legend, u, want)
				}
				checked++
			}
			// Unlike figures do not share one axis.
			var units []string
			for _, tg := range targetsOf(p) {
				e := str(tg["expr"])
				switch {
				case strings.Contains(e, "_percent"):
					units = append(units, "percent")
				case strings.Contains(e, "_bytes") && !strings.Contains(e, "_bytes_total"):
					units = append(units, "bytes")
				}
			}
			if contains(units, "percent") && contains(units, "bytes") {
				t.Errorf("%s: panel %q puts a percentage and bytes on one axis", uid, p["title"])
			}
		}
	}
	if checked < 8 {
		t.Errorf("only %d series checked", checked)
	}
	// The ScyllaDB figures: each on its own axis, in its unit.
	for _, p := range panels(rendered(t)["soakd-server"]) {
		for _, tg := range targetsOf(p) {
			e := str(tg["expr"])
			if strings.Contains(e, "scylla_reactor_utilization_percent") && effectiveUnit(p, str(tg["legendFormat"])) != "percent" ||
				strings.Contains(e, "scylla_cache_bytes_used") && effectiveUnit(p, str(tg["legendFormat"])) != "bytes" {
				t.Errorf("panel %q: %s in %q", p["title"], e, effectiveUnit(p, str(tg["legendFormat"])))
			}
		}
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

// One scenario at a time by default (runs of unrelated scenarios do not
// merge); shards and ops default to all.
func TestScenarioVariableOneByDefault(t *testing.T) {
	for uid, d := range rendered(t) {
		vars := map[string]jmap{}
		for _, v := range get(d, "templating", "list").([]any) {
			vars[str(v.(jmap)["name"])] = v.(jmap)
		}
		sc := vars["scenario"]
		if sc == nil || sc["includeAll"] == true || sc["multi"] == true {
			t.Errorf("%s: scenario variable %v: want one scenario, no All", uid, sc)
		} else if b, _ := json.Marshal(sc["current"]); strings.Contains(string(b), "All") {
			t.Errorf("%s: scenario defaults to %s", uid, b)
		}
		for _, n := range []string{"shard", "op"} {
			if vars[n] == nil || vars[n]["includeAll"] != true {
				t.Errorf("%s: %s variable %v: want All", uid, n, vars[n])
			}
		}
		if vars["daemon_url"] == nil || vars["daemon_url"]["type"] != "textbox" || !strings.Contains(string(mustJSON(vars["daemon_url"])), DefaultDaemonURL) {
			t.Errorf("%s: daemon_url variable %v", uid, vars["daemon_url"])
		}
	}
}

func mustJSON(v any) []byte { b, _ := json.Marshal(v); return b }

// Each dashboard links the others (keeping variables and time) and the
// scenario's page on the daemon.
func TestLinks(t *testing.T) {
	all := rendered(t)
	for uid, d := range all {
		urls := map[string]jmap{}
		ls, _ := d["links"].([]any)
		for _, l := range ls {
			urls[str(l.(jmap)["url"])] = l.(jmap)
		}
		for other := range all {
			if other == uid {
				continue
			}
			l := urls["/d/"+other]
			if l == nil || l["includeVars"] != true || l["keepTime"] != true {
				t.Errorf("%s: link to %s: %v", uid, other, l)
			}
		}
		if urls["${daemon_url}/#/scenario/${scenario}"] == nil {
			t.Errorf("%s: no link to the scenario's page on the daemon: %v", uid, urls)
		}
	}
}

// A live rate change is one annotation, not also a change point.
func TestRateChangeNotAChangePoint(t *testing.T) {
	for uid, d := range rendered(t) {
		for _, a := range get(d, "annotations", "list").([]any) {
			am := a.(jmap)
			if am["name"] == "Change points" && !strings.Contains(str(am["expr"]), `metric!="rate"`) {
				t.Errorf("%s: change-point annotation also marks rate changes: %s", uid, am["expr"])
			}
		}
	}
}
