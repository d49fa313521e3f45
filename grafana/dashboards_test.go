package grafana

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
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

// daemonMetrics are the daemon's own series the overview shows (no
// shard label); true when they have a scenario label.
var daemonMetrics = map[string]bool{
	"soakd_regression": true, "soakd_history_shifts": true,
	"soakd_daemon_runs_total": false, "soakd_daemon_runs_active": false,
}

type dashPanel struct {
	Type, Title string
	Datasource  struct{ UID string }
	Targets     []struct {
		Expr       string
		Format     string
		Datasource struct{ UID string }
	}
	Panels []dashPanel
}

type dashJSON struct {
	UID    string `json:"uid"`
	Title  string `json:"title"`
	Inputs []struct {
		Name, PluginID string
	} `json:"__inputs"`
	Templating struct {
		List []struct {
			Name, Type string
		}
	}
	Panels      []dashPanel
	Annotations struct {
		List []struct {
			Name            string
			Expr            string
			BuiltIn         int
			UseValueForTime bool
			Datasource      struct{ UID string }
		}
	}
}

// TestDashboards checks the generated dashboards' structure: stable
// UIDs and titles, the datasource variable, every query filtered by
// $scenario and $shard and naming only metrics soakd exports, the native
// histogram heatmap, and the event annotations.
func TestDashboards(t *testing.T) {
	wantUIDs := map[string]string{
		"soakd-overview.json": "soakd-overview/soakd / Soak overview",
		"soakd-server.json":   "soakd-server/soakd / Server",
		"soakd-growth.json":   "soakd-growth/soakd / Growth & capacity",
	}
	known := exportedNames()
	daemonLits := literals(t, []string{"../daemon"})
	for m := range daemonMetrics {
		if !daemonLits[m] {
			t.Errorf("daemon metric %s is not a name the daemon registers", m)
		}
	}
	metricRe := regexp.MustCompile(`\bsoakd_[a-z0-9_]+`)
	heatmaps := 0
	for _, dd := range Dashboards() {
		b, err := Render(dd)
		if err != nil {
			t.Fatal(err)
		}
		f := dd.File
		var d dashJSON
		if err := json.Unmarshal(b, &d); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if got := d.UID + "/" + d.Title; got != wantUIDs[f] {
			t.Errorf("%s: uid/title %q, want %q (provisioning and links use them)", f, got, wantUIDs[f])
		}
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
		var visit func(ps []dashPanel)
		visit = func(ps []dashPanel) {
			for _, p := range ps {
				if p.Type == "row" {
					visit(p.Panels)
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
				if p.Type == "heatmap" {
					heatmaps++
					if len(p.Targets) != 1 || !strings.Contains(p.Targets[0].Expr, "rate(soakd_op_latency_seconds{") || p.Targets[0].Format != "heatmap" {
						t.Errorf("%s: heatmap %q does not read the native histogram: %+v", f, p.Title, p.Targets)
					}
				}
			}
		}
		visit(d.Panels)
		names := map[string]bool{}
		for _, a := range d.Annotations.List {
			names[a.Name] = true
			if a.BuiltIn == 1 {
				continue
			}
			if a.Datasource.UID != "${DS_PROMETHEUS}" {
				t.Errorf("%s: annotation %q: datasource %q", f, a.Name, a.Datasource.UID)
			}
			if a.UseValueForTime && !strings.HasSuffix(a.Expr, "* 1000") {
				t.Errorf("%s: annotation %q takes its time from the value, which must be in ms: %s", f, a.Name, a.Expr)
			}
			exprs = append(exprs, a.Expr)
		}
		for _, n := range []string{"Change points", "Cliffs", "Rate changes", "Persistence (BGSAVE / AOF rewrite started)", "Resumes (ops lost)"} {
			if !names[n] {
				t.Errorf("%s: no %q annotation", f, n)
			}
		}
		for _, e := range exprs {
			ms := metricRe.FindAllString(e, -1)
			daemonOnly, scoped := true, false
			for _, m := range ms {
				perScenario, ok := daemonMetrics[m]
				daemonOnly = daemonOnly && ok
				scoped = scoped || perScenario
			}
			switch {
			case !daemonOnly && (!strings.Contains(e, `scenario=~"$scenario"`) || !strings.Contains(e, `shard=~"$shard"`)):
				t.Errorf("%s: query ignores $scenario/$shard: %s", f, e)
			case daemonOnly && scoped && !strings.Contains(e, `scenario=~"$scenario"`):
				t.Errorf("%s: query ignores $scenario: %s", f, e)
			}
			for _, m := range ms {
				if _, ok := daemonMetrics[m]; !known[m] && !ok && !strings.HasPrefix(m, "soakd_server_") {
					t.Errorf("%s: unknown metric %s in %s", f, m, e)
				}
			}
		}
	}
	if heatmaps == 0 {
		t.Error("no latency heatmap")
	}
}

// TestStoreRowsMatchAdapters: every soakd_server_* metric a store's row
// queries is a key that store's adapter can report. The adapters build
// their keys from string literals ("opcounters_" + op, "cql_errors_" +
// kind + "_total"), so a key counts as reported when it is one literal of
// the adapter's package, or two or three of them joined.
func TestStoreRowsMatchAdapters(t *testing.T) {
	dirs := map[string][]string{
		"redis":   {"../targets/redis", "../targets/internal/cgroup"},
		"mongo":   {"../targets/mongo"},
		"elastic": {"../targets/elastic"},
		"cql":     {"../targets/cql"},
	}
	rows := StoreMetrics()
	if len(rows) != len(dirs) {
		t.Fatalf("store rows %v, want one each for %v", rows, dirs)
	}
	for store, ms := range rows {
		lits := literals(t, dirs[store])
		if len(lits) == 0 {
			t.Fatalf("%s: no string literals read from %v", store, dirs[store])
		}
		for _, m := range ms {
			key := strings.TrimPrefix(m, "soakd_server_")
			if !joinable(key, lits, 3) {
				t.Errorf("%s row: %s is not a key the %s adapter reports", store, m, store)
			}
		}
	}
}

// literals collects the string literals of the non-test Go files in dirs.
func literals(t *testing.T, dirs []string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	fset := token.NewFileSet()
	for _, dir := range dirs {
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, path := range files {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			f, err := parser.ParseFile(fset, path, src, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				if bl, ok := n.(*ast.BasicLit); ok && bl.Kind == token.STRING {
					if s, err := strconv.Unquote(bl.Value); err == nil && s != "" {
						out[s] = true
					}
				}
				return true
			})
		}
	}
	return out
}

// joinable reports whether key is the concatenation of at most n
// literals.
func joinable(key string, lits map[string]bool, n int) bool {
	if lits[key] {
		return true
	}
	if n <= 1 {
		return false
	}
	for i := 1; i < len(key); i++ {
		if lits[key[:i]] && joinable(key[i:], lits, n-1) {
			return true
		}
	}
	return false
}
