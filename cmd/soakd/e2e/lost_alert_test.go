package e2e

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// promAlert is one alert of Prometheus's /api/v1/alerts.
type promAlert struct {
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
	State       string            `json:"state"`
	Value       string            `json:"value"`
}

// alertsNamed are Prometheus's alerts (pending or firing) named name.
func alertsNamed(t *testing.T, prom, name string) []promAlert {
	t.Helper()
	var r struct {
		Data struct {
			Alerts []promAlert `json:"alerts"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(httpGet(t, prom+"/api/v1/alerts")), &r); err != nil {
		t.Fatal(err)
	}
	var out []promAlert
	for _, a := range r.Data.Alerts {
		if a.Labels["alertname"] == name {
			out = append(out, a)
		}
	}
	return out
}

// TestLostOpsAlertEndToEnd: a real Prometheus scrapes a soak (12 s at
// 200 ops/s on the embedded store) each second with the shipped alerts
// loaded. The soak is SIGKILLed at a random moment after a checkpoint
// and, once Prometheus has seen it down, resumed with run --resume on
// the same address. SoakdOpsLost is quiet until the resume, then fires
// for the soak's phase and says how many ops were lost: exactly the
// phase's lost in summary.json once the run has finished (its one
// seam's).
func TestLostOpsAlertEndToEnd(t *testing.T) {
	dir := t.TempDir()
	port := freePort(t)
	rules, err := filepath.Abs("../../../deploy/prometheus/rules/soakd-alerts.yml")
	if err != nil {
		t.Fatal(err)
	}
	prom := startPrometheus(t, dir, fmt.Sprintf("global: {scrape_interval: 1s, evaluation_interval: 1s}\nrule_files: [%q]\nscrape_configs:\n  - job_name: soakd\n    static_configs: [{targets: ['127.0.0.1:%d']}]\n",
		rules, port))
	sc := write(t, dir, "soak.yaml", resumeScenario)
	out := filepath.Join(dir, "run")
	flags := []string{"--listen", fmt.Sprintf("127.0.0.1:%d", port), "--quiet", "--checkpoint-every", "1s"}
	s := startSoakd(t, append([]string{"run", sc, "--out", out}, flags...)...)
	waitFor(t, 30*time.Second, func() bool {
		return len(query(t, prom, `soakd_ops_lost_total{scenario="resume-e2e"}`, time.Now()).Result) > 0
	})
	waitCheckpoint(t, s, out, time.Time{}, nil)
	if s.kill(t, killRand(t)).IsZero() {
		t.Fatal("the soak ended before its kill")
	}
	waitFor(t, 30*time.Second, func() bool {
		return len(query(t, prom, `up{job="soakd"} == 0`, time.Now()).Result) > 0
	})
	if a := alertsNamed(t, prom, "SoakdOpsLost"); len(a) > 0 {
		t.Fatalf("SoakdOpsLost before the resume: %+v", a)
	}
	r := startSoakd(t, append([]string{"run", "--resume", out}, flags...)...)
	var firing []promAlert
	waitFor(t, 30*time.Second, func() bool {
		firing = alertsNamed(t, prom, "SoakdOpsLost")
		return len(firing) > 0 && firing[0].State == "firing"
	})
	if code := r.wait(t); code != exitOK {
		t.Fatalf("the resume: exit %d\n%s", code, r.out.String())
	}
	sum := completedSummary(t, out, 1)
	p := sum.Phases[0]
	if len(sum.Seams) != 1 || p.Lost <= 0 {
		t.Fatalf("seams %+v, phase lost %d: want one seam that lost ops", sum.Seams, p.Lost)
	}
	a := firing[0]
	t.Logf("SoakdOpsLost %v: %s", a.Labels, a.Annotations["summary"])
	if len(firing) != 1 || a.Labels["scenario"] != "resume-e2e" || a.Labels["shard"] != "0" || a.Labels["phase"] != p.Name {
		t.Errorf("alerts %+v, want one for scenario resume-e2e, shard 0, phase %s", firing, p.Name)
	}
	if v, err := strconv.ParseFloat(a.Value, 64); err != nil || int64(v) != p.Lost {
		t.Errorf("the alert's value %q, the phase lost %d", a.Value, p.Lost)
	}
	if !strings.Contains(a.Annotations["summary"], fmt.Sprintf(": %d ops lost", p.Lost)) {
		t.Errorf("the alert says %q, the phase lost %d", a.Annotations["summary"], p.Lost)
	}
}
