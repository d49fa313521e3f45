package metrics

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

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

// Native histogram layout: schema 3 (8 buckets per power of two, each
// about 9% wide); values at or below NativeZeroThreshold (1 us, the HDR
// resolution) go to the zero bucket.
const (
	NativeSchema        = 3
	NativeZeroThreshold = 1e-6
)

// WindowQuantiles are exported as soakd_op_latency_quantile_seconds.
func WindowQuantiles() []float64 { return []float64{50, 90, 99, 99.9, 99.99, 100} }

// StatsSourceServer is the source label of the target's server stats in
// soakd_stats_collection_*.
const StatsSourceServer = "server"

// Exporter turns the engine's interval data into Prometheus metrics at
// scrape time. Nothing is observed on the hot path: histograms are built
// from the cumulative HDR data, so the exposition costs nothing per op.
//
// Each latency-like histogram is exposed twice: as a native histogram
// under the SPEC name (soakd_op_latency_seconds...) and as a classic
// histogram under <name minus _seconds>_classic_seconds, because
// Prometheus 2.42 keeps only the native part of a histogram exposing
// both.
type Exporter struct {
	mu       sync.Mutex
	scenario string
	shard    string
	classes  []string
	phases   map[string]*phaseState
	order    []string
	current  string // phase of the last Update
	created  time.Time
	runInfo  map[string]string

	stage   int
	records int64
	opsUp   bool // last interval was not all connection failures

	hasStats    bool
	statsOK     bool
	statsDur    float64
	serverStats map[string]float64
	serverDescs map[string]*prometheus.Desc
	slo         []sloEntry
	changes     map[changeKey]float64
	// ops names the run's custom ops in the op label (SetOps).
	ops *scenarios.OpTable

	opsTotal, dropped, quantile, targetRate, achieved, info *prometheus.Desc
	goodput                                                 *prometheus.Desc
	latency, latencyClassic                                 *prometheus.Desc
	service, serviceClassic                                 *prometheus.Desc
	lag, lagClassic                                         *prometheus.Desc
	datasetRecords, growthStage, targetUp                   *prometheus.Desc
	statsDuration, statsSuccess, sloLatency                 *prometheus.Desc
	overSLO, changePoints                                   *prometheus.Desc
	lost                                                    *prometheus.Desc

	ev   *events      // events.go
	self *selfMetrics // promself.go
}

// changeKey labels soakd_change_points: all values from fixed sets
// (phase and op names from the scenario, metric and direction from the
// engine's).
type changeKey struct{ phase, op, metric, direction string }

type sloEntry struct {
	op, quantile string
	seconds      float64
}

type phaseState struct {
	total      *promTotals
	window     *Set
	targetRate float64
	achieved   float64
	goodput    float64
	// lost counts each op's lost ops (AddLost): due while soakd was down.
	lost [scenarios.NumOps]int64
}

// NewExporter builds an exporter; classes names the outcome labels by
// class index (targets.Classes()).
func NewExporter(scenario, shard string, classes []string, info map[string]string) *Exporter {
	l := []string{"scenario", "shard", "phase", "op"}
	p := []string{"scenario", "shard", "phase"}
	r := []string{"scenario", "shard"}
	infoKeys := make([]string, 0, len(info))
	for k := range info {
		infoKeys = append(infoKeys, k)
	}
	sort.Strings(infoKeys)
	const classicNote = " Classic buckets; the native histogram is "
	return &Exporter{
		scenario: scenario, shard: shard, classes: classes, phases: map[string]*phaseState{}, runInfo: info,
		created: time.Now(), opsUp: true, serverDescs: map[string]*prometheus.Desc{},
		opsTotal:       prometheus.NewDesc("soakd_ops_total", "Operations completed, by outcome (ok or an error class).", append(l, "outcome"), nil),
		dropped:        prometheus.NewDesc("soakd_ops_dropped_total", "Operations not sent because they were later than max_lag.", l, nil),
		lost:           prometheus.NewDesc("soakd_ops_lost_total", "Operations the schedule called for whose outcome is unknown: due while soakd was down before run --resume, or in flight at the kill. Scheduled = completed + dropped + lost.", l, nil),
		latency:        prometheus.NewDesc("soakd_op_latency_seconds", "Latency from the intended start on the schedule (native histogram).", l, nil),
		latencyClassic: prometheus.NewDesc("soakd_op_latency_classic_seconds", "Latency from the intended start on the schedule."+classicNote+"soakd_op_latency_seconds.", l, nil),
		service:        prometheus.NewDesc("soakd_op_service_seconds", "Service time from the actual send (native histogram).", l, nil),
		serviceClassic: prometheus.NewDesc("soakd_op_service_classic_seconds", "Service time from the actual send."+classicNote+"soakd_op_service_seconds.", l, nil),
		quantile:       prometheus.NewDesc("soakd_op_latency_quantile_seconds", "Latency from intended start at a quantile over the last interval (HDR, 3 digits); current phase only.", append(l, "quantile"), nil),
		targetRate:     prometheus.NewDesc("soakd_target_rate_ops", "Target rate of the running phase or stage in ops/s (0 = closed loop or as fast as allowed).", p, nil),
		achieved:       prometheus.NewDesc("soakd_achieved_rate_ops", "Achieved rate of the running phase over the last interval in ops/s.", p, nil),
		goodput:        prometheus.NewDesc("soakd_goodput_rate_ops", "Successful ops/s of the running phase over the last interval: the achieved rate less the ops that failed (an error class; misses succeed).", p, nil),
		lag:            prometheus.NewDesc("soakd_schedule_lag_seconds", "Lag from intended start to actual send (native histogram).", p, nil),
		lagClassic:     prometheus.NewDesc("soakd_schedule_lag_classic_seconds", "Lag from intended start to actual send."+classicNote+"soakd_schedule_lag_seconds.", p, nil),
		info:           prometheus.NewDesc("soakd_run_info", "Run description; value is 1.", append([]string{"scenario", "shard"}, infoKeys...), nil),
		datasetRecords: prometheus.NewDesc("soakd_dataset_records", "Records soakd has inserted into the keyspace (or the scenario's records when there is no load phase).", r, nil),
		growthStage:    prometheus.NewDesc("soakd_growth_stage", "Number of the running stage of a ramp or growth phase (1-based; 0 outside staged phases).", p, nil),
		targetUp:       prometheus.NewDesc("soakd_target_up", "1 when the target answers (server stats succeed and ops are not all connection failures), else 0.", r, nil),
		statsDuration:  prometheus.NewDesc("soakd_stats_collection_duration_seconds", "Duration of the last stats collection, per source.", append(r, "source"), nil),
		statsSuccess:   prometheus.NewDesc("soakd_stats_collection_success", "1 when the last stats collection succeeded, per source.", append(r, "source"), nil),
		sloLatency:     prometheus.NewDesc("soakd_slo_latency_seconds", "The scenario's latency SLO (from intended start) per op and quantile.", []string{"scenario", "shard", "op", "quantile"}, nil),
		overSLO:        prometheus.NewDesc("soakd_op_latency_over_slo_total", "Operations slower (from intended start) than the scenario's latency SLO limit at quantile, by op: the bad events of the SLO's error budget (a p99 limit allows 1% of ops over it).", append(l, "quantile"), nil),
		changePoints:   prometheus.NewDesc("soakd_change_points", "Change points the finished run found in a phase's per-interval series of an op (E-divisive, see change_points in summary.json), by metric (p50, p99, p99.9, rate, error_ratio) and direction (up, down).", append(l, "metric", "direction"), nil),
		changes:        map[changeKey]float64{},
		ev:             newEvents(),
		self:           newSelfMetrics(),
	}
}

// Register registers the exporter and the collector of its server stats
// (an unchecked collector: their names come from the target at run time).
func (e *Exporter) Register(reg prometheus.Registerer) error {
	if err := reg.Register(e); err != nil {
		return err
	}
	return reg.Register(serverCollector{e})
}

type serverCollector struct{ e *Exporter }

// Describe sends nothing: the collector is unchecked.
func (serverCollector) Describe(chan<- *prometheus.Desc) {}

// Collect sends one metric per server stats key.
func (c serverCollector) Collect(ch chan<- prometheus.Metric) {
	e := c.e
	e.mu.Lock()
	defer e.mu.Unlock()
	for name, v := range e.serverStats {
		// Keys ending in _total are the server's own counters.
		vt := prometheus.GaugeValue
		if strings.HasSuffix(name, "_total") {
			vt = prometheus.CounterValue
		}
		ch <- prometheus.MustNewConstMetric(e.serverDescs[name], vt, v, e.scenario, e.shard)
	}
}

// Describe implements prometheus.Collector. Server stats are collected
// by the separate collector Register adds.
func (e *Exporter) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{e.opsTotal, e.dropped, e.lost, e.latency, e.latencyClassic, e.service, e.serviceClassic,
		e.quantile, e.targetRate, e.achieved, e.goodput, e.lag, e.lagClassic, e.info, e.datasetRecords, e.growthStage, e.targetUp,
		e.statsDuration, e.statsSuccess, e.sloLatency, e.overSLO, e.changePoints} {
		ch <- d
	}
	e.ev.describe(ch)
	e.self.describe(ch)
}

// Update folds one interval into the phase's totals. It takes ownership
// of window: the caller must not change it afterwards.
func (e *Exporter) Update(phase string, targetRate, achieved float64, window *Set) {
	e.UpdatePaused(phase, targetRate, achieved, window, nil)
}

// UpdatePaused is Update, running pause (when not nil) between the ops
// it folds into the totals (engine/pause.go).
func (e *Exporter) UpdatePaused(phase string, targetRate, achieved float64, window *Set, pause func()) {
	window.Sync(pause) // Collect reads its histograms (a no-op after the collector's Sync)
	e.mu.Lock()
	defer e.mu.Unlock()
	ps := e.phase(phase)
	if e.current != phase {
		e.stage = 0
	}
	e.current = phase
	ps.total.add(window, pause)
	// The window is the collector's set for this interval; the collector
	// reuses it only after the next Update has replaced it here: keep it
	// rather than copy ~190 KB per histogram every second (that copy
	// showed up in the lag tail).
	ps.window = window
	ps.targetRate, ps.achieved = targetRate, achieved
	var ok, conn, all int64
	for _, os := range window.Ops {
		if os == nil {
			continue
		}
		ok += os.Classes[0]
		all += os.Count
		for ci, n := range os.Classes {
			if ci < len(e.classes) && e.classes[ci] == "connection" {
				conn += n
			}
		}
	}
	if all > 0 {
		e.opsUp = !(ok == 0 && conn > 0)
	}
}

// AddLost counts n ops of op lost in phase (soakd_ops_lost_total): a
// resumed run's seam, from the ops due while soakd was down.
func (e *Exporter) AddLost(phase string, op scenarios.Op, n int64) {
	if op >= scenarios.NumOps {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.phase(phase).lost[op] += n
}

// phase is phase's state, made on first use. e.mu is held.
func (e *Exporter) phase(name string) *phaseState {
	ps := e.phases[name]
	if ps == nil {
		ps = &phaseState{total: newPromTotals(), window: NewSet(nil)}
		e.phases[name] = ps
		e.order = append(e.order, name)
	}
	return ps
}

// SetGoodput records the successful ops/s of phase's last interval
// (soakd_goodput_rate_ops, next to soakd_achieved_rate_ops); call it
// after that interval's Update.
func (e *Exporter) SetGoodput(phase string, goodput float64) {
	e.mu.Lock()
	if ps := e.phases[phase]; ps != nil {
		ps.goodput = goodput
	}
	e.mu.Unlock()
}

// SetProgress records the running stage (1-based, 0 outside staged
// phases) and the number of records in the dataset.
func (e *Exporter) SetProgress(stage int, records int64) {
	e.mu.Lock()
	e.stage, e.records = stage, records
	e.mu.Unlock()
}

// ServerStats records one sample of the target's server-side stats:
// each key k becomes the gauge soakd_server_<k> (a counter when k ends
// in _total). On error the previous
// figures are kept and collection success is 0.
func (e *Exporter) ServerStats(stats map[string]float64, err error, took time.Duration) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.hasStats = true
	e.statsDur = took.Seconds()
	e.statsOK = err == nil
	if err != nil {
		return
	}
	e.serverStats = make(map[string]float64, len(stats))
	for k, v := range stats {
		name := "soakd_server_" + SanitizeName(k)
		if _, ok := e.serverDescs[name]; !ok {
			e.serverDescs[name] = prometheus.NewDesc(name, "Server-side figure "+k+" reported by the target.", []string{"scenario", "shard"}, nil)
		}
		e.serverStats[name] = v
	}
}

// SetOps gives the exporter the run's op table, which names its custom
// ops in the op label (without it they are op<n>). The engine sets it
// before the run's first interval.
func (e *Exporter) SetOps(ops *scenarios.OpTable) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.ops = ops
}

// SetSLO exposes a latency limit of the scenario as
// soakd_slo_latency_seconds{op,quantile} so alerts can compare against
// it. quantile is the label as soakd_op_latency_quantile_seconds writes
// it ("0.99", "0.999", "1" for max): verdict.Limits.Series gives them.
func (e *Exporter) SetSLO(op, quantile string, seconds float64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.slo = append(e.slo, sloEntry{op: op, quantile: quantile, seconds: seconds})
}

// AddChangePoint counts one change point of a finished phase in
// soakd_change_points{phase,op,metric,direction}. It is a gauge, not a
// counter: it appears with the run's end already at its value, which
// increase() would not see.
func (e *Exporter) AddChangePoint(phase, op, metric string, up bool) {
	dir := "down"
	if up {
		dir = "up"
	}
	e.mu.Lock()
	e.changes[changeKey{phase, op, metric, dir}]++
	e.mu.Unlock()
}

// SanitizeName maps a stats key to a valid metric name suffix.
func SanitizeName(k string) string {
	b := []byte(strings.ToLower(k))
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			b[i] = '_'
		}
	}
	return string(b)
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
	gauge := func(d *prometheus.Desc, v float64, lv ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, lv...)
	}
	gauge(e.info, 1, vals...)
	gauge(e.datasetRecords, float64(e.records), e.scenario, e.shard)
	up := e.opsUp && (!e.hasStats || e.statsOK)
	gauge(e.targetUp, b2f(up), e.scenario, e.shard)
	if e.hasStats {
		gauge(e.statsDuration, e.statsDur, e.scenario, e.shard, StatsSourceServer)
		gauge(e.statsSuccess, b2f(e.statsOK), e.scenario, e.shard, StatsSourceServer)
	}
	for _, s := range e.slo {
		gauge(e.sloLatency, s.seconds, e.scenario, e.shard, s.op, s.quantile)
	}
	for k, n := range e.changes {
		gauge(e.changePoints, n, e.scenario, e.shard, k.phase, k.op, k.metric, k.direction)
	}
	e.ev.collect(ch, e.scenario, e.shard, e.order)
	e.self.collect(ch, e.scenario, e.shard)
	for _, name := range e.order {
		ps := e.phases[name]
		cur := name == e.current
		if cur {
			gauge(e.targetRate, ps.targetRate, e.scenario, e.shard, name)
			gauge(e.achieved, ps.achieved, e.scenario, e.shard, name)
			gauge(e.goodput, ps.goodput, e.scenario, e.shard, name)
			gauge(e.growthStage, float64(e.stage), e.scenario, e.shard, name)
		}
		e.histograms(ch, e.lag, e.lagClassic, &ps.total.lag, e.scenario, e.shard, name)
		for op, n := range ps.lost {
			// An op lost but not yet seen completing after the seam.
			if n != 0 && ps.total.ops[op] == nil {
				ch <- prometheus.MustNewConstMetric(e.lost, prometheus.CounterValue, float64(n), e.scenario, e.shard, name, e.ops.Name(scenarios.Op(op)))
			}
		}
		for op, os := range ps.total.ops {
			if os == nil {
				continue
			}
			opName := e.ops.Name(scenarios.Op(op))
			// Every class is exported, zero or not, so rate() sees the
			// first error and error panels have a series to show.
			for ci, n := range os.Classes {
				if ci < len(e.classes) {
					ch <- prometheus.MustNewConstMetric(e.opsTotal, prometheus.CounterValue, float64(n), e.scenario, e.shard, name, opName, e.classes[ci])
				}
			}
			ch <- prometheus.MustNewConstMetric(e.dropped, prometheus.CounterValue, float64(os.Dropped), e.scenario, e.shard, name, opName)
			ch <- prometheus.MustNewConstMetric(e.lost, prometheus.CounterValue, float64(ps.lost[op]), e.scenario, e.shard, name, opName)
			e.histograms(ch, e.latency, e.latencyClassic, &os.lat, e.scenario, e.shard, name, opName)
			for _, s := range e.slo {
				if s.op == opName {
					ch <- prometheus.MustNewConstMetric(e.overSLO, prometheus.CounterValue, float64(tallyOver(&os.lat, s.seconds)), e.scenario, e.shard, name, opName, s.quantile)
				}
			}
			e.histograms(ch, e.service, e.serviceClassic, &os.svc, e.scenario, e.shard, name, opName)
			if w := ps.window.Ops[op]; cur && w != nil && w.Latency.TotalCount() > 0 {
				for _, q := range WindowQuantiles() {
					gauge(e.quantile, Quantile(w.Latency, q), e.scenario, e.shard, name, opName, strconv.FormatFloat(q/100, 'g', 10, 64))
				}
			}
		}
	}
}

func (e *Exporter) histograms(ch chan<- prometheus.Metric, native, classic *prometheus.Desc, t *tally, labels ...string) {
	d := tallyHist(t)
	ch <- prometheus.MustNewConstHistogram(classic, d.Count, d.Sum, d.Classic, labels...)
	ch <- prometheus.MustNewConstNativeHistogram(native, d.Count, d.Sum, d.Native, nil, d.Zero, NativeSchema, NativeZeroThreshold, e.created, labels...)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// Hist is an HDR histogram (ns) converted to Prometheus form (seconds):
// cumulative classic bucket counts keyed by LatencyBuckets bounds, and
// native schema-3 bucket counts keyed by bucket index.
type Hist struct {
	Count   uint64
	Sum     float64
	Classic map[float64]uint64
	Native  map[int]int64
	Zero    uint64
}

// NativeIndex returns the index of the native bucket holding v (> 0) at
// schema s: bucket i covers (2^((i-1)/2^s), 2^(i/2^s)].
func NativeIndex(v float64, s int) int {
	frac, exp := math.Frexp(v) // v = frac * 2^exp, frac in [0.5, 1)
	if frac == 0.5 {           // exact power of two: upper bound of its bucket
		return (exp - 1) << s
	}
	n := float64(int(1) << s)
	i := int(math.Ceil((math.Log2(frac) + float64(exp)) * n))
	// Correct rounding of log2 at bucket edges.
	if v <= math.Exp2(float64(i-1)/n) {
		i--
	} else if v > math.Exp2(float64(i)/n) {
		i++
	}
	return i
}

// histBuilder builds a Hist from HDR bars given one at a time. A bar's
// values are equivalent within 3 digits; each bar is placed by its
// upper edge (conservative: never report a value as faster) and summed
// at its midpoint.
type histBuilder struct {
	Hist
	bounds []float64
	cum    []uint64 // classic counts per bound, not yet cumulative
}

func newHistBuilder() *histBuilder {
	bounds := LatencyBuckets()
	return &histBuilder{Hist: Hist{Classic: make(map[float64]uint64, len(bounds)), Native: map[int]int64{}}, bounds: bounds, cum: make([]uint64, len(bounds))}
}

// add counts n values from..to ns: placed by the upper edge, summed at
// the midpoint.
func (d *histBuilder) add(from, to, n int64) {
	v := float64(to) / 1e9
	d.Sum += float64(n) * (float64(from) + float64(to)) / 2 / 1e9
	d.Count += uint64(n)
	if i := sort.SearchFloat64s(d.bounds, v); i < len(d.cum) {
		d.cum[i] += uint64(n)
	}
	if v <= NativeZeroThreshold {
		d.Zero += uint64(n)
	} else {
		d.Native[NativeIndex(v, NativeSchema)] += n
	}
}

func (d *histBuilder) finish() Hist {
	var acc uint64
	for i, b := range d.bounds {
		acc += d.cum[i]
		d.Classic[b] = acc
	}
	return d.Hist
}
