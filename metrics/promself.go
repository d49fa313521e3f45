package metrics

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/soakd/soakd/internal/selfhealth"
)

// selfMetrics exports soakd's own health, the last interval's sample
// (internal/selfhealth): what says whether a slow figure was soakd's or
// the host's rather than the store's. Nothing is exported before the
// first sample.
type selfMetrics struct {
	mu   sync.Mutex
	last selfhealth.Sample
	has  bool

	cpu, cpuRate, threadMax, rq, rqRatio, load, steal, threads *prometheus.Desc
}

func newSelfMetrics() *selfMetrics {
	r := []string{"scenario", "shard"}
	return &selfMetrics{
		cpu:       prometheus.NewDesc("soakd_self_cpu_seconds_total", "soakd's own process CPU time (user + system), from /proc/self/stat.", r, nil),
		cpuRate:   prometheus.NewDesc("soakd_self_cpu_cores", "soakd's own process CPU over the last interval in cores (CPU-seconds per second).", r, nil),
		threadMax: prometheus.NewDesc("soakd_self_thread_cpu_max_cores", "CPU of soakd's busiest thread over the last interval (1 = a whole core: a single-thread bottleneck).", r, nil),
		rq:        prometheus.NewDesc("soakd_self_runqueue_delay_seconds_total", "Time soakd's threads spent runnable but waiting for a CPU (schedstat run_delay, summed over threads).", r, nil),
		rqRatio:   prometheus.NewDesc("soakd_self_runqueue_delay_ratio", "Seconds soakd's threads waited for a CPU per second over the last interval (summed over threads).", r, nil),
		load:      prometheus.NewDesc("soakd_host_load1", "The host's 1-minute load average.", r, nil),
		steal:     prometheus.NewDesc("soakd_host_steal_ratio", "Share of the host's CPU time stolen by the hypervisor over the last interval (0..1).", r, nil),
		threads:   prometheus.NewDesc("soakd_self_threads", "soakd's threads.", r, nil),
	}
}

// SetSelfHealth records the last interval's sample of soakd's own
// health.
func (e *Exporter) SetSelfHealth(s selfhealth.Sample) {
	e.self.mu.Lock()
	e.self.last, e.self.has = s, true
	e.self.mu.Unlock()
}

func (m *selfMetrics) describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{m.cpu, m.cpuRate, m.threadMax, m.rq, m.rqRatio, m.load, m.steal, m.threads} {
		ch <- d
	}
}

func (m *selfMetrics) collect(ch chan<- prometheus.Metric, scenario, shard string) {
	m.mu.Lock()
	s, has := m.last, m.has
	m.mu.Unlock()
	if !has {
		return
	}
	counter := func(d *prometheus.Desc, v float64) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, scenario, shard)
	}
	gauge := func(d *prometheus.Desc, v float64) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, scenario, shard)
	}
	counter(m.cpu, s.CPUSeconds)
	counter(m.rq, s.RunqueueDelaySeconds)
	gauge(m.cpuRate, s.CPU)
	gauge(m.threadMax, s.ThreadCPUMax)
	gauge(m.rqRatio, s.RunqueueDelay)
	gauge(m.load, s.Load1)
	gauge(m.steal, s.Steal)
	gauge(m.threads, float64(s.Threads))
}
