package grafana

import (
	"regexp"
	"strings"
	"testing"
)

// The overview shows the ops a killed and resumed run lost, per op: the
// rate in ops/s and the counter on its own axis (short), drawn with no
// line across a gap (nothing is scraped while soakd is down), and every
// dashboard annotates the resumes that lost ops.
func TestLostOpsPanel(t *testing.T) {
	all := rendered(t)
	var lost jmap
	for _, p := range panels(all["soakd-overview"]) {
		for _, tg := range targetsOf(p) {
			if strings.Contains(str(tg["expr"]), "soakd_ops_lost_total") {
				lost = p
			}
		}
	}
	if lost == nil {
		t.Fatal("no overview panel reads soakd_ops_lost_total")
	}
	if lost["type"] != "timeseries" {
		t.Fatalf("lost ops panel %q is a %v", lost["title"], lost["type"])
	}
	if span, ok := get(lost, "fieldConfig", "defaults", "custom", "spanNulls").(bool); !ok || span {
		t.Errorf("lost ops panel: spanNulls %v, want false: no line across a seam's gap", get(lost, "fieldConfig", "defaults", "custom", "spanNulls"))
	}
	var rate, counter string
	for _, tg := range targetsOf(lost) {
		e, legend := str(tg["expr"]), str(tg["legendFormat"])
		if !strings.HasPrefix(e, "sum by (op) (") || !strings.Contains(legend, "{{op}}") {
			t.Errorf("lost ops panel: %q (%q) is not per op", e, legend)
		}
		if strings.Contains(e, "rate(soakd_ops_lost_total{") {
			rate = legend
		} else {
			counter = legend
		}
	}
	if rate == "" || counter == "" {
		t.Fatalf("lost ops panel: rate %q, counter %q: want both", rate, counter)
	}
	if u := str(get(lost, "fieldConfig", "defaults", "unit")); u != "ops" {
		t.Errorf("lost ops panel: the rate in %q, want ops", u)
	}
	// The counter's series (its legend with an op in it) is drawn in
	// short on the right axis by a regexp override; the rate's is not.
	name := strings.ReplaceAll(counter, "{{op}}", "read")
	styled := false
	for _, o := range get(lost, "fieldConfig", "overrides").([]any) {
		om := o.(jmap)
		re := regexp.MustCompile(strings.Trim(str(get(om, "matcher", "options")), "/"))
		if re.MatchString(strings.ReplaceAll(rate, "{{op}}", "read")) {
			t.Errorf("lost ops panel: override %v also matches the rate", om["matcher"])
		}
		if str(get(om, "matcher", "id")) == "byRegexp" && re.MatchString(name) {
			b := string(mustJSON(om["properties"]))
			styled = strings.Contains(b, `"value":"short"`) && strings.Contains(b, `"value":"right"`)
		}
	}
	if !styled {
		t.Errorf("lost ops panel: the counter %q is not drawn in short on the right axis", name)
	}
	for uid, d := range all {
		found := false
		for _, a := range get(d, "annotations", "list").([]any) {
			am := a.(jmap)
			found = found || am["name"] == "Resumes (ops lost)" && strings.Contains(str(am["expr"]), "soakd_ops_lost_total{")
		}
		if !found {
			t.Errorf("%s: no annotation of the resumes that lost ops", uid)
		}
	}
}
