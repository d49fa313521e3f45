package daemon

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/soakd/soakd/metrics"
)

// daemonMetrics are the daemon's own series on GET /metrics, beside
// the live series of its running runs (runCollector).
type daemonMetrics struct {
	reg           *prometheus.Registry
	regression    *prometheus.GaugeVec
	runsTotal     *prometheus.CounterVec
	skipped       *prometheus.CounterVec
	reloads       *prometheus.CounterVec
	historyShifts *prometheus.GaugeVec // set by updateShifts (shifts.go)
}

func newDaemonMetrics() daemonMetrics {
	m := daemonMetrics{reg: prometheus.NewRegistry()}
	m.regression = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "soakd_regression",
		Help: "1 when the last completed run of the scenario regressed on this op against its history, else 0."}, []string{"scenario", "op"})
	m.runsTotal = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "soakd_daemon_runs_total",
		Help: "Runs the daemon finished, by final state."}, []string{"state"})
	m.skipped = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "soakd_schedule_skipped_total",
		Help: "Schedule firings skipped because the schedule's previous run was still going (overlap: skip)."}, []string{"schedule"})
	m.reloads = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "soakd_config_reloads_total",
		Help: "Config reloads (SIGHUP) by result."}, []string{"result"})
	m.historyShifts = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "soakd_history_shifts",
		Help: "Change points found across the scenario's last completed runs (GET /api/v1/shifts names the run each began at), by phase, op (\"\" for the achieved rate), metric and direction."},
		[]string{"scenario", "phase", "op", "metric", "direction"})
	for _, st := range []string{StateCompleted, StateInterrupted, StateFailed} {
		m.runsTotal.WithLabelValues(st)
	}
	for _, r := range []string{"ok", "error"} {
		m.reloads.WithLabelValues(r)
	}
	return m
}

func (d *Daemon) initMetrics() {
	d.m = newDaemonMetrics()
	active := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "soakd_daemon_runs_active", Help: "Runs queued or running now."},
		func() float64 { d.mu.Lock(); defer d.mu.Unlock(); return float64(len(d.active)) })
	d.m.reg.MustRegister(d.m.regression, d.m.historyShifts, d.m.runsTotal, d.m.skipped, d.m.reloads, active, runCollector{d},
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	// The gauge survives restarts: the newest verdict per scenario.
	seen := map[string]bool{}
	for _, e := range d.hist.List() {
		if e.Regression == nil || e.Regression.NotJudged != "" || seen[e.Scenario] {
			continue
		}
		seen[e.Scenario] = true
		d.m.setRegression(e.Scenario, e.Regression)
	}
}

func (m daemonMetrics) setRegression(scenario string, v *Regression) {
	for op, bad := range v.OpRegressed() {
		val := 0.0
		if bad {
			val = 1
		}
		m.regression.WithLabelValues(scenario, op).Set(val)
	}
}

// runCollector exposes the live metrics (and server stats) of every
// running run, and the annotation series of recently finished ones.
type runCollector struct{ d *Daemon }

func (runCollector) Describe(chan<- *prometheus.Desc) {}

func (c runCollector) Collect(ch chan<- prometheus.Metric) {
	c.d.mu.Lock()
	exps := make([]*metrics.Exporter, 0, len(c.d.active))
	for _, r := range c.d.active {
		if r.exp != nil && r.running {
			exps = append(exps, r.exp)
		}
	}
	kept := c.d.finished.current(c.d.o.Now())
	c.d.mu.Unlock()
	for _, e := range exps {
		e.Collect(ch)
		e.CollectServer(ch)
	}
	collectKept(ch, exps, kept)
}
