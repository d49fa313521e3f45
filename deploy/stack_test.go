// Package deploy holds no Go code of its own: its test reads the
// shipped deployment files (docker-compose.yml and every config the
// stack mounts, the systemd unit and the host's Prometheus config) and
// checks that what each names resolves to something that exists. There
// is no Docker engine on the development machines, and
// `docker-compose config` cannot see a scrape target naming the wrong
// container.
package deploy

import (
	"encoding/json"
	"net"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/soakd/soakd/daemon"
)

// repo is the repository root, relative to this package.
const repo = ".."

type service struct {
	Image   string   `yaml:"image"`
	Command any      `yaml:"command"`
	Ports   []string `yaml:"ports"`
	Expose  []string `yaml:"expose"`
	Volumes []string `yaml:"volumes"`
	Depends []string `yaml:"depends_on"`
}

type stack struct {
	t        *testing.T
	services map[string]service
}

func readYAML(t *testing.T, file string, v any) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}

func loadStack(t *testing.T) *stack {
	var c struct {
		Services map[string]service `yaml:"services"`
	}
	readYAML(t, filepath.Join(repo, "docker-compose.yml"), &c)
	if len(c.Services) == 0 {
		t.Fatal("docker-compose.yml has no services")
	}
	return &stack{t: t, services: c.Services}
}

func (s *stack) svc(name string) service {
	s.t.Helper()
	v, ok := s.services[name]
	if !ok {
		s.t.Fatalf("docker-compose.yml has no service %q", name)
	}
	return v
}

// args is a service's command as a list.
func (v service) args() []string {
	switch c := v.Command.(type) {
	case string:
		return strings.Fields(c)
	case []any:
		out := make([]string, len(c))
		for i, a := range c {
			out[i] = a.(string)
		}
		return out
	}
	return nil
}

// flag returns the value of --name=V or --name V in the command.
func (v service) flag(name string) string {
	a := v.args()
	for i, x := range a {
		if strings.HasPrefix(x, name+"=") {
			return strings.TrimPrefix(x, name+"=")
		}
		if x == name && i+1 < len(a) {
			return a[i+1]
		}
	}
	return ""
}

// containerPorts are the ports the service's container listens on as
// the compose file declares them (ports' container side, expose).
func (v service) containerPorts() map[string]bool {
	out := map[string]bool{}
	for _, p := range v.Ports {
		p = strings.TrimSuffix(strings.TrimSuffix(p, "/tcp"), "/udp")
		parts := strings.Split(p, ":")
		out[parts[len(parts)-1]] = true
	}
	for _, p := range v.Expose {
		out[p] = true
	}
	return out
}

// hostPort resolves a container path of the service through its bind
// mounts to a path in the repository ("" when no bind mount holds it).
func (s *stack) hostPath(name, container string) string {
	s.t.Helper()
	container = path.Clean(container)
	best, bestLen := "", -1
	for _, m := range s.svc(name).Volumes {
		parts := strings.Split(m, ":")
		if len(parts) < 2 || !strings.HasPrefix(parts[0], ".") {
			continue // a named volume
		}
		src, dst := parts[0], path.Clean(parts[1])
		if container != dst && !strings.HasPrefix(container, dst+"/") {
			continue
		}
		if len(dst) > bestLen {
			best, bestLen = filepath.Join(repo, filepath.FromSlash(src), filepath.FromSlash(strings.TrimPrefix(container, dst))), len(dst)
		}
	}
	return best
}

// mustFile is hostPath for a path that must be a file of the repository.
func (s *stack) mustFile(name, container string) string {
	s.t.Helper()
	p := s.hostPath(name, container)
	if p == "" {
		s.t.Fatalf("service %s: %s is not mounted from the repository", name, container)
	}
	if st, err := os.Stat(p); err != nil || st.IsDir() {
		s.t.Fatalf("service %s: %s (%s) is not a file: %v", name, container, p, err)
	}
	return p
}

// mustServe checks that host:port names a service of the stack that
// listens on port.
func (s *stack) mustServe(what, hostport string, listens map[string]map[string]bool) {
	s.t.Helper()
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		s.t.Errorf("%s: %q: %v", what, hostport, err)
		return
	}
	if _, ok := s.services[host]; !ok {
		s.t.Errorf("%s: %s names no service of the stack", what, hostport)
		return
	}
	if !listens[host][port] {
		s.t.Errorf("%s: %s: service %s listens on %v, not %s", what, hostport, host, keys(listens[host]), port)
	}
}

func keys(m map[string]bool) []string {
	out := []string{}
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

type promConfig struct {
	RuleFiles []string `yaml:"rule_files"`
	Alerting  struct {
		Alertmanagers []struct {
			Static []struct {
				Targets []string `yaml:"targets"`
			} `yaml:"static_configs"`
		} `yaml:"alertmanagers"`
	} `yaml:"alerting"`
	Scrape []struct {
		Job    string `yaml:"job_name"`
		Path   string `yaml:"metrics_path"`
		Static []struct {
			Targets []string `yaml:"targets"`
		} `yaml:"static_configs"`
	} `yaml:"scrape_configs"`
}

func (c promConfig) targets() (scrape, alert []string) {
	for _, sc := range c.Scrape {
		for _, st := range sc.Static {
			scrape = append(scrape, st.Targets...)
		}
	}
	for _, am := range c.Alerting.Alertmanagers {
		for _, st := range am.Static {
			alert = append(alert, st.Targets...)
		}
	}
	return scrape, alert
}

type amRoute struct {
	Receiver string    `yaml:"receiver"`
	Routes   []amRoute `yaml:"routes"`
}

// checkAlertmanager checks that every route of an Alertmanager config
// names a receiver it defines, and that the config has a route.
func checkAlertmanager(t *testing.T, file string) {
	t.Helper()
	var c struct {
		Route     *amRoute `yaml:"route"`
		Receivers []struct {
			Name string `yaml:"name"`
		} `yaml:"receivers"`
	}
	readYAML(t, file, &c)
	if c.Route == nil || c.Route.Receiver == "" {
		t.Fatalf("%s: no route with a receiver", file)
	}
	have := map[string]bool{}
	for _, r := range c.Receivers {
		have[r.Name] = true
	}
	var walk func(r amRoute, depth int)
	n := 0
	walk = func(r amRoute, depth int) {
		if r.Receiver != "" {
			n++
			if !have[r.Receiver] {
				t.Errorf("%s: route sends to receiver %q, which is not defined", file, r.Receiver)
			}
		} else if depth == 0 {
			t.Errorf("%s: the top route has no receiver", file)
		}
		for _, c := range r.Routes {
			walk(c, depth+1)
		}
	}
	walk(*c.Route, 0)
	if n < 2 {
		t.Errorf("%s: %d routes with a receiver, want pages and tickets apart", file, n)
	}
}

// checkRuleFiles checks that every rule_files entry of a Prometheus
// config, resolved by resolve, matches at least one file, and that
// together they hold every file of deploy/prometheus/rules.
func checkRuleFiles(t *testing.T, what string, files []string, resolve func(string) string) {
	t.Helper()
	loaded := map[string]bool{}
	for _, f := range files {
		p := resolve(f)
		if p == "" {
			t.Errorf("%s: rule file %s is not mounted from the repository", what, f)
			continue
		}
		m, _ := filepath.Glob(p)
		if len(m) == 0 {
			t.Errorf("%s: rule file %s (%s) matches no file", what, f, p)
		}
		for _, x := range m {
			loaded[filepath.Base(x)] = true
		}
	}
	shipped, _ := filepath.Glob(filepath.Join(repo, "deploy", "prometheus", "rules", "*.yml"))
	if len(shipped) < 3 {
		t.Fatalf("shipped rule files: %v", shipped)
	}
	for _, f := range shipped {
		if !loaded[filepath.Base(f)] {
			t.Errorf("%s: does not load the shipped rules %s", what, filepath.Base(f))
		}
	}
}

func TestComposeStackResolves(t *testing.T) {
	s := loadStack(t)
	for _, name := range []string{"soakd", "prometheus", "alertmanager", "grafana", "redis"} {
		s.svc(name)
	}
	for name, v := range s.services {
		for _, d := range v.Depends {
			if _, ok := s.services[d]; !ok {
				t.Errorf("service %s depends on %s, which is not a service", name, d)
			}
		}
	}
	listens := map[string]map[string]bool{}
	for name, v := range s.services {
		listens[name] = v.containerPorts()
	}

	// The daemon: its config is mounted, it listens on a published
	// port, and its soaks' scenarios and targets resolve.
	cfgFile := s.mustFile("soakd", s.svc("soakd").flag("--config"))
	var dc struct {
		Listen string `yaml:"listen"`
		Soaks  []struct {
			Scenario, Target string
		} `yaml:"soaks"`
		Schedules []struct {
			Scenario, Target string
		} `yaml:"schedules"`
	}
	readYAML(t, cfgFile, &dc)
	_, port, err := net.SplitHostPort(dc.Listen)
	if err != nil {
		t.Fatalf("%s listen %q: %v", cfgFile, dc.Listen, err)
	}
	if !strings.HasPrefix(dc.Listen, "0.0.0.0:") && !strings.HasPrefix(dc.Listen, ":") {
		t.Errorf("%s: listen %s is unreachable from the other containers", cfgFile, dc.Listen)
	}
	if !listens["soakd"][port] {
		t.Errorf("soakd listens on %s, the compose file publishes %v", port, keys(listens["soakd"]))
	}
	listens["soakd"] = map[string]bool{port: true}
	runs := append(dc.Soaks, dc.Schedules...)
	if len(runs) == 0 {
		t.Errorf("%s runs nothing", cfgFile)
	}
	for _, r := range runs {
		s.mustFile("soakd", r.Scenario)
		u, err := url.Parse(r.Target)
		if err != nil {
			t.Errorf("target %q: %v", r.Target, err)
			continue
		}
		s.mustServe("soakd target", u.Host, listens)
	}

	// Prometheus: scrapes the daemon, sends to Alertmanager, loads
	// every shipped rule file.
	pv := s.svc("prometheus")
	promFile := s.mustFile("prometheus", pv.flag("--config.file"))
	if !strings.Contains(strings.Join(pv.args(), " "), "--enable-feature=native-histograms") {
		t.Error("prometheus runs without native histograms")
	}
	var pc promConfig
	readYAML(t, promFile, &pc)
	scrape, alert := pc.targets()
	scrapesDaemon := false
	for _, tg := range scrape {
		s.mustServe("prometheus scrape target", tg, listens)
		if h, _, _ := net.SplitHostPort(tg); h == "soakd" {
			scrapesDaemon = true
		}
	}
	if !scrapesDaemon {
		t.Errorf("prometheus scrapes %v, not the daemon", scrape)
	}
	for _, sc := range pc.Scrape {
		if sc.Path != "" && sc.Path != "/metrics" {
			t.Errorf("job %s scrapes %s; the daemon serves /metrics", sc.Job, sc.Path)
		}
	}
	if len(alert) == 0 {
		t.Error("prometheus sends alerts nowhere")
	}
	for _, tg := range alert {
		s.mustServe("prometheus alertmanager", tg, listens)
		if h, _, _ := net.SplitHostPort(tg); h != "alertmanager" {
			t.Errorf("prometheus sends alerts to %s, not the alertmanager service", tg)
		}
	}
	promDir := path.Dir(pv.flag("--config.file"))
	checkRuleFiles(t, "compose prometheus", pc.RuleFiles, func(f string) string {
		if !path.IsAbs(f) {
			f = path.Join(promDir, f)
		}
		return s.hostPath("prometheus", f)
	})

	// Alertmanager: its config is mounted and every route has a receiver.
	checkAlertmanager(t, s.mustFile("alertmanager", s.svc("alertmanager").flag("--config.file")))

	// Grafana: the datasource is the prometheus service; the provider's
	// path holds the shipped dashboards.
	const prov = "/etc/grafana/provisioning"
	dsFiles, _ := filepath.Glob(filepath.Join(s.hostPath("grafana", prov+"/datasources"), "*.yml"))
	if len(dsFiles) == 0 {
		t.Fatalf("grafana: nothing mounted at %s/datasources", prov)
	}
	defaultProm := false
	for _, f := range dsFiles {
		var c struct {
			Datasources []struct {
				Type, URL string
				IsDefault bool `yaml:"isDefault"`
			} `yaml:"datasources"`
		}
		readYAML(t, f, &c)
		for _, ds := range c.Datasources {
			u, err := url.Parse(ds.URL)
			if err != nil || u.Host == "" {
				t.Errorf("%s: datasource URL %q", f, ds.URL)
				continue
			}
			s.mustServe("grafana datasource "+ds.URL, u.Host, listens)
			if ds.Type == "prometheus" && ds.IsDefault && u.Hostname() == "prometheus" {
				defaultProm = true
			}
		}
	}
	if !defaultProm {
		t.Error("grafana: no default prometheus datasource at the prometheus service (the dashboards' ${DS_PROMETHEUS} falls back to the default)")
	}
	provFiles, _ := filepath.Glob(filepath.Join(s.hostPath("grafana", prov+"/dashboards"), "*.yml"))
	if len(provFiles) == 0 {
		t.Fatalf("grafana: nothing mounted at %s/dashboards", prov)
	}
	shipped, _ := filepath.Glob(filepath.Join(repo, "grafana", "dashboards", "*.json"))
	if len(shipped) < 3 {
		t.Fatalf("shipped dashboards: %v", shipped)
	}
	for _, f := range provFiles {
		var c struct {
			Providers []struct {
				Options struct {
					Path string `yaml:"path"`
				} `yaml:"options"`
			} `yaml:"providers"`
		}
		readYAML(t, f, &c)
		for _, p := range c.Providers {
			dir := s.hostPath("grafana", p.Options.Path)
			if dir == "" {
				t.Errorf("%s: provider path %s is not mounted from the repository", f, p.Options.Path)
				continue
			}
			for _, d := range shipped {
				if _, err := os.Stat(filepath.Join(dir, filepath.Base(d))); err != nil {
					t.Errorf("%s: dashboard %s is not under the provider's path %s: %v", f, filepath.Base(d), p.Options.Path, err)
				}
			}
		}
	}
}

// The dashboards link to each other by UID: every link resolves to a
// shipped dashboard.
func TestDashboardLinksResolve(t *testing.T) {
	shipped, _ := filepath.Glob(filepath.Join(repo, "grafana", "dashboards", "*.json"))
	uids := map[string]bool{}
	var links []string
	re := regexp.MustCompile(`^/d/([^/?#]+)`)
	for _, f := range shipped {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var d struct {
			UID   string `json:"uid"`
			Links []struct {
				URL string `json:"url"`
			} `json:"links"`
		}
		if err := json.Unmarshal(data, &d); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		uids[d.UID] = true
		for _, l := range d.Links {
			if m := re.FindStringSubmatch(l.URL); m != nil {
				links = append(links, filepath.Base(f)+" -> "+m[1])
			}
		}
	}
	for _, l := range links {
		if uid := l[strings.LastIndex(l, " ")+1:]; !uids[uid] {
			t.Errorf("dashboard link %s: no shipped dashboard has that uid", l)
		}
	}
}

// The host path: the systemd unit's daemon (its config's listen, the
// default) beside a Prometheus using prometheus-host.yml and an
// Alertmanager on its default port.
func TestHostStackResolves(t *testing.T) {
	unit, err := os.ReadFile(filepath.Join(repo, "deploy", "systemd", "soakd.service"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^ExecStart=\S+ serve --config (\S+)$`).FindSubmatch(unit)
	if m == nil {
		t.Fatal("soakd.service: no ExecStart ... serve --config FILE")
	}
	if string(m[1]) != "/etc/soakd/soakd.yaml" {
		t.Errorf("the unit reads %s; deploy/soakd.example.yaml is documented for /etc/soakd/soakd.yaml", m[1])
	}
	var ex struct {
		Listen string `yaml:"listen"`
	}
	readYAML(t, filepath.Join(repo, "deploy", "soakd.example.yaml"), &ex)
	listen := ex.Listen
	if listen == "" {
		listen = daemon.DefaultListen
	}
	_, port, _ := net.SplitHostPort(listen)
	var pc promConfig
	hostCfg := filepath.Join(repo, "deploy", "prometheus", "prometheus-host.yml")
	readYAML(t, hostCfg, &pc)
	scrape, alert := pc.targets()
	want := net.JoinHostPort("127.0.0.1", port)
	found := false
	for _, tg := range scrape {
		found = found || tg == want
	}
	if !found {
		t.Errorf("prometheus-host.yml scrapes %v, not the daemon at %s", scrape, want)
	}
	if len(alert) != 1 || alert[0] != "127.0.0.1:9093" {
		t.Errorf("prometheus-host.yml sends alerts to %v, want Alertmanager's default 127.0.0.1:9093", alert)
	}
	checkRuleFiles(t, "prometheus-host.yml", pc.RuleFiles, func(f string) string {
		if filepath.IsAbs(f) {
			return ""
		}
		return filepath.Join(filepath.Dir(hostCfg), filepath.FromSlash(f))
	})
	checkAlertmanager(t, filepath.Join(repo, "deploy", "alertmanager", "alertmanager.yml"))
	if _, err := strconv.Atoi(port); err != nil {
		t.Errorf("daemon port %q", port)
	}
}
