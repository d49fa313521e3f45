// Package grafana holds no Go code of its own: this test checks the
// shipped dashboards' structure. Their queries are evaluated against a
// real Prometheus in cmd/soakd's end-to-end test.
package grafana

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/soakd/soakd/metrics"
)

// exportedNames are the metric names soakd's exporter describes, plus
// the series names Prometheus derives from classic histograms.
func exportedNames() map[string]bool {
	e := metrics.NewExporter("s", "0", []string{"ok"}, nil)
	ch := make(chan *prometheus.Desc, 64)
	e.Describe(ch)
	close(ch)
	names := map[string]bool{}
	re := regexp.MustCompile(`fqName: "([^"]+)"`)
	for d := range ch {
		n := re.FindStringSubmatch(d.String())[1]
		names[n] = true
		for _, s := range []string{"_bucket", "_sum", "_count"} {
			names[n+s] = true
		}
	}
	return names
}

func TestDashboards(t *testing.T) {
	files, _ := filepath.Glob("dashboards/*.json")
	if len(files) != 3 {
		t.Fatalf("dashboards: %v", files)
	}
	known := exportedNames()
	metricRe := regexp.MustCompile(`\bsoakd_[a-z0-9_]+`)
	uids := map[string]bool{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var d struct {
			UID    string `json:"uid"`
			Inputs []struct {
				Name, PluginID string
			} `json:"__inputs"`
			Templating struct {
				List []struct {
					Name, Type string
				}
			}
			Panels []struct {
				Type, Title string
				Datasource  struct{ UID string }
				Targets     []struct {
					Expr       string
					Datasource struct{ UID string }
				}
			}
			Annotations struct {
				List []struct {
					Expr       string
					Datasource struct{ UID string }
				}
			}
		}
		if err := json.Unmarshal(b, &d); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if uids[d.UID] || d.UID == "" {
			t.Errorf("%s: uid %q empty or duplicate", f, d.UID)
		}
		uids[d.UID] = true
		if len(d.Inputs) != 1 || d.Inputs[0].Name != "DS_PROMETHEUS" {
			t.Errorf("%s: want one __inputs entry DS_PROMETHEUS, got %+v", f, d.Inputs)
		}
		vars := map[string]string{}
		for _, v := range d.Templating.List {
			vars[v.Name] = v.Type
		}
		for _, v := range []string{"scenario", "op", "shard"} {
			if vars[v] != "query" {
				t.Errorf("%s: template variable %s missing", f, v)
			}
		}
		if vars["DS_PROMETHEUS"] != "datasource" {
			t.Errorf("%s: no DS_PROMETHEUS datasource variable (provisioned dashboards need it)", f)
		}
		var exprs []string
		for _, p := range d.Panels {
			if p.Type == "row" {
				continue
			}
			if p.Datasource.UID != "${DS_PROMETHEUS}" || len(p.Targets) == 0 {
				t.Errorf("%s: panel %q: datasource %q, %d targets", f, p.Title, p.Datasource.UID, len(p.Targets))
			}
			for _, tg := range p.Targets {
				if tg.Datasource.UID != "${DS_PROMETHEUS}" {
					t.Errorf("%s: panel %q: target datasource %q", f, p.Title, tg.Datasource.UID)
				}
				exprs = append(exprs, tg.Expr)
			}
		}
		for _, a := range d.Annotations.List {
			if a.Expr != "" {
				exprs = append(exprs, a.Expr)
			}
		}
		for _, e := range exprs {
			if !strings.Contains(e, `scenario=~"$scenario"`) || !strings.Contains(e, `shard=~"$shard"`) {
				t.Errorf("%s: query ignores $scenario/$shard: %s", f, e)
			}
			for _, m := range metricRe.FindAllString(e, -1) {
				if !known[m] && !strings.HasPrefix(m, "soakd_server_") {
					t.Errorf("%s: unknown metric %s in %s", f, m, e)
				}
			}
		}
	}
}
