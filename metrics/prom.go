package metrics

import (
	"sort"
	"strconv"
	"sync"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/soakd/soakd/scenarios"
)

// LatencyBuckets are the classic histogram bounds in seconds: fine below
// 1 ms (where in-memory stores live), coarser up to a minute.
func LatencyBuckets() []float64 {
	return []float64{
		0.000025, 0.00005, 0.0001, 0.00015, 0.0002, 0.0003, 0.0004, 0.0005, 0.0006, 0.0007, 0.0008, 0.0009,
		0.001, 0.0015, 0.002, 0.003, 0.005, 0.0075, 0.01, 0.015, 0.02, 0.03, 0.05, 0.075,
		0.1, 0.15, 0.2, 0.3, 0.5, 0.75, 1, 2, 5, 10, 30, 60,
	}
}

// WindowQuantiles are exported as soakd_op_latency_quantile_seconds.
func WindowQuantiles() []float64 { return []float64{50, 90, 99, 99.9, 99.99, 100} }

// Exporter turns the engine's interval data into Prometheus metrics at
// scrape time. Nothing is observed on the hot path: histograms are built
// from the cumulative HDR data, so the exposition costs nothing per op.
type Exporter struct {
	mu       sync.Mutex
	scenario string
	shard    string
	classes  []string
	phases   map[string]*phaseState
	order    []string

	opsTotal, dropped, latency, service, quantile, targetRate, achieved, lag, info *prometheus.Desc
	runInfo                                                                        map[string]string
}

type phaseState struct {
	total      *Set
	window     *Set
	targetRate float64
	achieved   float64
}

// NewExporter builds an exporter; classes names the outcome labels by
// class index (targets.Classes()).
func NewExporter(scenario, shard string, classes []string, info map[string]string) *Exporter {
	l := []string{"scenario", "shard", "phase", "op"}
	p := []string{"scenario", "shard", "phase"}
	infoKeys := make([]string, 0, len(info))
	for k := range info {
		infoKeys = append(infoKeys, k)
	}
	sort.Strings(infoKeys)
	return &Exporter{
		scenario: scenario, shard: shard, classes: classes, phases: map[string]*phaseState{}, runInfo: info,
		opsTotal:   prometheus.NewDesc("soakd_ops_total", "Operations completed, by outcome (ok or an error class).", append(l, "outcome"), nil),
		dropped:    prometheus.NewDesc("soakd_ops_dropped_total", "Operations not sent because they were later than max_lag.", l, nil),
		latency:    prometheus.NewDesc("soakd_op_latency_seconds", "Latency from the intended start on the schedule.", l, nil),
		service:    prometheus.NewDesc("soakd_op_service_seconds", "Service time from the actual send.", l, nil),
		quantile:   prometheus.NewDesc("soakd_op_latency_quantile_seconds", "Latency from intended start at a quantile over the last interval (HDR, 3 digits).", append(l, "quantile"), nil),
		targetRate: prometheus.NewDesc("soakd_target_rate_ops", "Target rate of the phase in ops/s (0 = closed loop).", p, nil),
		achieved:   prometheus.NewDesc("soakd_achieved_rate_ops", "Achieved rate over the last interval in ops/s.", p, nil),
		lag:        prometheus.NewDesc("soakd_schedule_lag_seconds", "Lag from intended start to actual send.", p, nil),
		info:       prometheus.NewDesc("soakd_run_info", "Run description; value is 1.", append([]string{"scenario", "shard"}, infoKeys...), nil),
	}
}

// Describe implements prometheus.Collector.
func (e *Exporter) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{e.opsTotal, e.dropped, e.latency, e.service, e.quantile, e.targetRate, e.achieved, e.lag, e.info} {
		ch <- d
	}
}

// Update folds one interval into the phase's totals.
func (e *Exporter) Update(phase string, targetRate, achieved float64, window *Set) {
	e.mu.Lock()
	defer e.mu.Unlock()
	ps := e.phases[phase]
	if ps == nil {
		ps = &phaseState{total: NewSet(nil), window: NewSet(nil)}
		e.phases[phase] = ps
		e.order = append(e.order, phase)
	}
	ps.total.Merge(window)
	ps.window = NewSet(nil)
	ps.window.Merge(window)
	ps.targetRate, ps.achieved = targetRate, achieved
}

// Collect implements prometheus.Collector.
func (e *Exporter) Collect(ch chan<- prometheus.Metric) {
	e.mu.Lock()
	defer e.mu.Unlock()
	keys := []string{}
	vals := []string{e.scenario, e.shard}
	for k := range e.runInfo {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		vals = append(vals, e.runInfo[k])
	}
	ch <- prometheus.MustNewConstMetric(e.info, prometheus.GaugeValue, 1, vals...)
	for _, name := range e.order {
		ps := e.phases[name]
		ch <- prometheus.MustNewConstMetric(e.targetRate, prometheus.GaugeValue, ps.targetRate, e.scenario, e.shard, name)
		ch <- prometheus.MustNewConstMetric(e.achieved, prometheus.GaugeValue, ps.achieved, e.scenario, e.shard, name)
		ch <- ConstHistogram(e.lag, ps.total.Lag, e.scenario, e.shard, name)
		for op, os := range ps.total.Ops {
			if os == nil {
				continue
			}
			opName := scenarios.Op(op).String()
			for ci, n := range os.Classes {
				if ci < len(e.classes) && (n > 0 || ci == 0) {
					ch <- prometheus.MustNewConstMetric(e.opsTotal, prometheus.CounterValue, float64(n), e.scenario, e.shard, name, opName, e.classes[ci])
				}
			}
			ch <- prometheus.MustNewConstMetric(e.dropped, prometheus.CounterValue, float64(os.Dropped), e.scenario, e.shard, name, opName)
			ch <- ConstHistogram(e.latency, os.Latency, e.scenario, e.shard, name, opName)
			ch <- ConstHistogram(e.service, os.Service, e.scenario, e.shard, name, opName)
			if w := ps.window.Ops[op]; w != nil && w.Latency.TotalCount() > 0 {
				for _, q := range WindowQuantiles() {
					ch <- prometheus.MustNewConstMetric(e.quantile, prometheus.GaugeValue, Quantile(w.Latency, q),
						e.scenario, e.shard, name, opName, strconv.FormatFloat(q/100, 'g', -1, 64))
				}
			}
		}
	}
}

// ConstHistogram converts an HDR histogram (ns) into a classic
// Prometheus histogram (seconds) with LatencyBuckets.
func ConstHistogram(d *prometheus.Desc, h *hdr.Histogram, labels ...string) prometheus.Metric {
	bounds := LatencyBuckets()
	counts := make(map[float64]uint64, len(bounds))
	var sum float64
	var total uint64
	if h != nil && h.TotalCount() > 0 {
		cum := make([]uint64, len(bounds))
		for _, b := range h.Distribution() {
			if b.Count == 0 {
				continue
			}
			// A bar's values are equivalent within 3 digits; place it by its
			// upper edge (conservative: never report a value as faster).
			v := float64(b.To) / 1e9
			sum += float64(b.Count) * (float64(b.From) + float64(b.To)) / 2 / 1e9
			total += uint64(b.Count)
			i := sort.SearchFloat64s(bounds, v)
			if i < len(cum) {
				cum[i] += uint64(b.Count)
			}
		}
		var acc uint64
		for i, b := range bounds {
			acc += cum[i]
			counts[b] = acc
		}
	} else {
		for _, b := range bounds {
			counts[b] = 0
		}
	}
	return prometheus.MustNewConstHistogram(d, total, sum, counts, labels...)
}
