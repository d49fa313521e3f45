package metrics

import (
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// events holds the run's discrete events as Prometheus series, for
// dashboard annotations: live rate changes (a counter per phase, 0 from
// the phase's first interval so increase() sees the first change),
// change points and cliffs (gauges whose value is the event's wall
// time, for Grafana's "use series value as timestamp").
type events struct {
	mu          sync.Mutex
	rateChanges map[string]float64
	changeTimes map[changeTimeKey]float64
	cliffs      map[string]cliffEvent

	rateDesc, changeDesc, cliffDesc *prometheus.Desc
}

// changeTimeKey names one change point: n numbers the change points of
// the same phase, op, metric and direction in the order they were added.
type changeTimeKey struct {
	changeKey
	n int
}

type cliffEvent struct {
	stage, reason string
	at            float64
}

func newEvents() *events {
	return &events{
		rateChanges: map[string]float64{},
		changeTimes: map[changeTimeKey]float64{},
		cliffs:      map[string]cliffEvent{},
		rateDesc: prometheus.NewDesc("soakd_rate_changes_total",
			"Live rate changes applied to the phase (daemon API), by phase.", []string{"scenario", "shard", "phase"}, nil),
		changeDesc: prometheus.NewDesc("soakd_change_point_time_seconds",
			"Unix time of a change point the finished run found (see soakd_change_points), by phase, op, metric, direction and n (1-based within those).",
			[]string{"scenario", "shard", "phase", "op", "metric", "direction", "n"}, nil),
		cliffDesc: prometheus.NewDesc("soakd_cliff_time_seconds",
			"Unix time the confirmed cliff's stage started in a growth phase, by phase, stage and reason.",
			[]string{"scenario", "shard", "phase", "stage", "reason"}, nil),
	}
}

func (v *events) describe(ch chan<- *prometheus.Desc) {
	ch <- v.rateDesc
	ch <- v.changeDesc
	ch <- v.cliffDesc
}

// collect sends the events; phases are the phases seen so far (each
// gets its rate-change counter, zero or not).
func (v *events) collect(ch chan<- prometheus.Metric, scenario, shard string, phases []string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, p := range phases {
		ch <- prometheus.MustNewConstMetric(v.rateDesc, prometheus.CounterValue, v.rateChanges[p], scenario, shard, p)
	}
	for k, at := range v.changeTimes {
		ch <- prometheus.MustNewConstMetric(v.changeDesc, prometheus.GaugeValue, at, scenario, shard,
			k.phase, k.op, k.metric, k.direction, strconv.Itoa(k.n))
	}
	for p, c := range v.cliffs {
		ch <- prometheus.MustNewConstMetric(v.cliffDesc, prometheus.GaugeValue, c.at, scenario, shard, p, c.stage, c.reason)
	}
}

// RateChanged counts one live rate change applied to phase
// (soakd_rate_changes_total).
func (e *Exporter) RateChanged(phase string) {
	e.ev.mu.Lock()
	e.ev.rateChanges[phase]++
	e.ev.mu.Unlock()
}

// AddChangePointTime exposes the wall time of one change point of a
// finished phase as soakd_change_point_time_seconds.
func (e *Exporter) AddChangePointTime(phase, op, metric string, up bool, at time.Time) {
	dir := "down"
	if up {
		dir = "up"
	}
	k := changeTimeKey{changeKey{phase, op, metric, dir}, 1}
	e.ev.mu.Lock()
	for {
		if _, ok := e.ev.changeTimes[k]; !ok {
			break
		}
		k.n++
	}
	e.ev.changeTimes[k] = float64(at.UnixNano()) / 1e9
	e.ev.mu.Unlock()
}

// SetCliff exposes a growth phase's confirmed cliff as
// soakd_cliff_time_seconds: the stage it was found in, why, and when
// that stage started. A later call for the phase replaces it.
func (e *Exporter) SetCliff(phase, stage, reason string, start time.Time) {
	e.ev.mu.Lock()
	e.ev.cliffs[phase] = cliffEvent{stage: stage, reason: reason, at: float64(start.UnixNano()) / 1e9}
	e.ev.mu.Unlock()
}
