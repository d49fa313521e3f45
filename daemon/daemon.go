package daemon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/robfig/cron/v3"

	"github.com/soakd/soakd/engine"
	"github.com/soakd/soakd/internal/runpath"
	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/verdict"
)

// Options wire the daemon to its environment (injected for tests).
type Options struct {
	ConfigPath string
	Getenv     func(string) string
	Log        io.Writer           // log lines (stderr); tokens are never written
	Reload     <-chan os.Signal    // SIGHUP: reload config and schedules
	Now        func() time.Time    // default time.Now
	Version    string              // for soakd_run_info
	OnListen   func(addr net.Addr) // called once the API listens (tests)
	Pid        int                 // for WATCHDOG_PID; default os.Getpid()

	// failBackoff is the first pause of a soak after a failed attempt
	// (doubling per consecutive failure up to maxFailBackoff); tests
	// shorten it.
	failBackoff time.Duration
	// releaseMemory returns free heap pages to the OS when the last
	// running run ended (releaseIfIdle; nil: debug.FreeOSMemory); tests
	// count the calls.
	releaseMemory func()
	// noSelfHealth leaves soakd's own-health sampler off in its runs, so
	// a test's verdicts do not depend on how busy the shared host is
	// (the sampler and the bound rule have their own tests).
	noSelfHealth bool
}

// Back-off of a continuous soak whose attempts fail (the store is down):
// 5 s, 10 s, 20 s, ... up to 5 min, reset by the first attempt that
// does not fail.
const (
	defaultFailBackoff = 5 * time.Second
	maxFailBackoff     = 5 * time.Minute
)

// soakPause is the pause before a soak's next attempt after failures
// consecutive failed ones (0: the configured pause).
func soakPause(pause, base time.Duration, failures int) time.Duration {
	if failures == 0 {
		return pause
	}
	b := base
	for i := 1; i < failures && b < maxFailBackoff; i++ {
		b *= 2
	}
	b = min(b, maxFailBackoff)
	return max(pause, b)
}

// Daemon is one `soakd serve` process.
type Daemon struct {
	o      Options
	log    *slog.Logger
	notify *Notifier
	hist   *History
	ctrl   controls // hidden A/A controls' record (aacontrol.go)

	baseCtx context.Context
	cancel  context.CancelFunc
	runsWG  sync.WaitGroup

	mu     sync.Mutex
	cfg    *Config
	token  []byte
	active map[string]*activeRun
	// finished keeps the annotation series of runs that ended (kept.go).
	finished finishedRuns
	slots    int
	// busy holds the scenarios with a run going: runs of one scenario
	// go one at a time (their series would collide, and two loads on one
	// store would measure each other).
	busy map[string]bool
	// cfgWaiting counts configured runs (schedules, soaks) waiting per
	// scenario, cfgSlotWaiting those of them waiting for a
	// max_concurrent slot: while any waits, API runs do not take the
	// scenario or a slot (configured runs go first).
	cfgWaiting     map[string]int
	cfgSlotWaiting int
	// waiting are the runs in acquire, and lastTicket the last ticket
	// handed out: of the waiting runs that could start, the one asked for
	// first starts first (queue.go).
	waiting    map[*activeRun]waiter
	lastTicket uint64
	wake       chan struct{}
	sched      map[string]*schedState
	soaks      map[string]*soakState
	cron       *cron.Cron
	stopping   bool
	ready      bool

	reg        *prometheus.Registry
	regression *prometheus.GaugeVec
	runsTotal  *prometheus.CounterVec
	skipped    *prometheus.CounterVec
	reloads    *prometheus.CounterVec

	// shifts: per scenario, the change points across its run history
	// (updateShifts), served by GET /api/v1/shifts.
	shiftsMu      sync.Mutex
	shifts        map[string]ScenarioShifts
	historyShifts *prometheus.GaugeVec
}

type activeRun struct {
	id     string
	cancel context.CancelFunc
	ctl    *engine.Control
	exp    *metrics.Exporter
	// running is set (under Daemon.mu) once the run holds its scenario:
	// only running runs are exported, so queued ones add no series.
	running bool
	// api: started through POST /api/v1/runs (it counts against
	// max_queued while queued and yields to configured runs).
	api bool
	// ticket orders the runs by when they were asked for (startRun).
	ticket uint64
}

type schedState struct {
	busy, pending bool
}

type soakState struct {
	key    string
	cancel context.CancelFunc
	done   chan struct{}
}

// New loads nothing itself: cfg is a validated config (LoadConfig).
// It opens the run history, recovering runs a crashed daemon left
// "running", and reads the token.
func New(cfg *Config, o Options) (*Daemon, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Pid == 0 {
		o.Pid = os.Getpid()
	}
	if o.failBackoff == 0 {
		o.failBackoff = defaultFailBackoff
	}
	tok, err := cfg.Token(o.Getenv)
	if err != nil {
		return nil, err
	}
	d := &Daemon{o: o, cfg: cfg, token: tok,
		log:    slog.New(slog.NewTextHandler(o.Log, nil)),
		notify: NewNotifier(o.Getenv, o.Pid),
		active: map[string]*activeRun{}, wake: make(chan struct{}),
		sched: map[string]*schedState{}, soaks: map[string]*soakState{},
	}
	hist, notes, err := OpenHistory(cfg.DataDir, o.Now())
	if err != nil {
		return nil, err
	}
	d.hist = hist
	for _, n := range notes {
		d.log.Warn(n)
	}
	d.initMetrics()
	d.initShifts()
	return d, nil
}

func (d *Daemon) initMetrics() {
	d.reg = prometheus.NewRegistry()
	d.regression = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "soakd_regression",
		Help: "1 when the last completed run of the scenario regressed on this op against its history, else 0."}, []string{"scenario", "op"})
	d.runsTotal = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "soakd_daemon_runs_total",
		Help: "Runs the daemon finished, by final state."}, []string{"state"})
	d.skipped = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "soakd_schedule_skipped_total",
		Help: "Schedule firings skipped because the schedule's previous run was still going (overlap: skip)."}, []string{"schedule"})
	d.reloads = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "soakd_config_reloads_total",
		Help: "Config reloads (SIGHUP) by result."}, []string{"result"})
	d.shifts = map[string]ScenarioShifts{}
	d.historyShifts = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "soakd_history_shifts",
		Help: "Change points found across the scenario's last completed runs (GET /api/v1/shifts names the run each began at), by phase, op (\"\" for the achieved rate), metric and direction."},
		[]string{"scenario", "phase", "op", "metric", "direction"})
	for _, st := range []string{StateCompleted, StateInterrupted, StateFailed} {
		d.runsTotal.WithLabelValues(st)
	}
	for _, r := range []string{"ok", "error"} {
		d.reloads.WithLabelValues(r)
	}
	active := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "soakd_daemon_runs_active", Help: "Runs queued or running now."},
		func() float64 { d.mu.Lock(); defer d.mu.Unlock(); return float64(len(d.active)) })
	d.reg.MustRegister(d.regression, d.historyShifts, d.runsTotal, d.skipped, d.reloads, active, runCollector{d},
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	// The gauge survives restarts: the newest verdict per scenario.
	seen := map[string]bool{}
	for _, e := range d.hist.List() {
		if e.Regression == nil || e.Regression.NotJudged != "" || seen[e.Scenario] {
			continue
		}
		seen[e.Scenario] = true
		d.setRegression(e.Scenario, e.Regression)
	}
}

func (d *Daemon) setRegression(scenario string, v *Regression) {
	for op, bad := range v.OpRegressed() {
		val := 0.0
		if bad {
			val = 1
		}
		d.regression.WithLabelValues(scenario, op).Set(val)
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

// Run serves until ctx is cancelled (SIGTERM): then it stops the
// schedules, cancels every run (the engine writes interrupted results),
// waits for them and returns.
func (d *Daemon) Run(ctx context.Context) error {
	d.baseCtx, d.cancel = context.WithCancel(context.WithoutCancel(ctx))
	defer d.cancel()
	d.mu.Lock()
	cfg := d.cfg
	d.mu.Unlock()
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("listen %s: %w", cfg.Listen, err)
	}
	srv := &http.Server{Handler: hostCheck(ln.Addr(), cfg.AllowedHosts, d.Handler()), ReadHeaderTimeout: 10 * time.Second}
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	d.log.Info("soakd serving", "addr", ln.Addr().String(), "data_dir", cfg.DataDir,
		"schedules", len(cfg.Schedules), "soaks", len(cfg.Soaks))
	if d.o.OnListen != nil {
		d.o.OnListen(ln.Addr())
	}
	d.prune()
	d.mu.Lock()
	d.applyLocked(cfg)
	d.ready = true
	d.mu.Unlock()
	if err := d.notify.Notify("READY=1\nSTATUS=serving on " + ln.Addr().String()); err != nil {
		d.log.Warn("sd_notify READY failed", "err", err)
	}
	var wd <-chan time.Time
	if iv := d.notify.WatchdogInterval(); iv > 0 {
		t := time.NewTicker(iv)
		defer t.Stop()
		wd = t.C
		_ = d.notify.Notify("WATCHDOG=1")
	}
	for {
		select {
		case <-ctx.Done():
			d.shutdown(srv)
			return nil
		case err := <-serveErr:
			d.shutdown(srv)
			return fmt.Errorf("http server: %w", err)
		case <-d.o.Reload:
			d.reload()
		case <-wd:
			_ = d.notify.Notify("WATCHDOG=1")
		}
	}
}

func (d *Daemon) shutdown(srv *http.Server) {
	_ = d.notify.Notify("STOPPING=1")
	d.mu.Lock()
	d.stopping = true
	d.ready = false
	c := d.cron
	d.cron = nil
	n := len(d.active)
	d.mu.Unlock()
	d.log.Info("stopping: cancelling runs", "active", n)
	if c != nil {
		c.Stop()
	}
	d.cancel()
	d.runsWG.Wait()
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(sctx)
	d.log.Info("stopped")
}

// reload re-reads the config file. A bad file keeps the running config.
// Listen and data_dir changes need a restart; everything else (token,
// limits, retention, schedules, soaks) applies now. A soak whose entry
// is unchanged keeps running.
func (d *Daemon) reload() {
	_ = d.notify.Notify("RELOADING=1")
	defer d.notify.Notify("READY=1")
	cfg, err := LoadConfig(d.o.ConfigPath, d.o.Getenv)
	if err != nil {
		d.reloads.WithLabelValues("error").Inc()
		d.log.Error("reload refused; keeping the running config", "config", d.o.ConfigPath, "problems", err.Error())
		return
	}
	tok, err := cfg.Token(d.o.Getenv)
	if err != nil {
		d.reloads.WithLabelValues("error").Inc()
		d.log.Error("reload refused; keeping the running config", "err", err.Error())
		return
	}
	d.mu.Lock()
	old := d.cfg
	if cfg.Listen != old.Listen || cfg.DataDir != old.DataDir {
		d.log.Warn("listen and data_dir changes take effect on restart only")
		cfg.Listen, cfg.DataDir = old.Listen, old.DataDir
	}
	d.cfg = cfg
	d.token = tok
	d.applyLocked(cfg)
	d.mu.Unlock()
	d.reloads.WithLabelValues("ok").Inc()
	d.log.Info("config reloaded", "schedules", len(cfg.Schedules), "soaks", len(cfg.Soaks))
}

// applyLocked (re)starts the cron schedules and reconciles soaks.
func (d *Daemon) applyLocked(cfg *Config) {
	if d.stopping {
		return
	}
	if d.cron != nil {
		d.cron.Stop() // running jobs are runs in their own goroutines; they continue
	}
	parser := cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)
	c := cron.New(cron.WithParser(parser), cron.WithChain(cron.Recover(cron.DiscardLogger)))
	names := map[string]bool{}
	for _, s := range cfg.Schedules {
		s := s
		names[s.Name] = true
		if d.sched[s.Name] == nil {
			d.sched[s.Name] = &schedState{}
		}
		if _, err := c.AddFunc(s.Cron, func() { d.fire(s) }); err != nil {
			d.log.Error("schedule not added", "schedule", s.Name, "err", err)
		}
	}
	for n, st := range d.sched {
		if !names[n] {
			// A run still going finishes; nothing queued behind it starts.
			st.pending = false
			delete(d.sched, n)
		}
	}
	d.cron = c
	c.Start()
	// wake slot waiters: max_concurrent may have changed
	close(d.wake)
	d.wake = make(chan struct{})

	want := map[string]Soak{}
	for _, s := range cfg.Soaks {
		want[s.Name] = s
	}
	for name, st := range d.soaks {
		s, ok := want[name]
		if ok && soakKey(cfg, s) == st.key {
			delete(want, name) // unchanged: keep running
			continue
		}
		d.log.Info("soak stopped by reload", "soak", name)
		st.cancel()
		delete(d.soaks, name)
	}
	names2 := make([]string, 0, len(want))
	for n := range want {
		names2 = append(names2, n)
	}
	sort.Strings(names2)
	for _, n := range names2 {
		d.startSoakLocked(cfg, want[n])
	}
}

func soakKey(cfg *Config, s Soak) string {
	return strings.Join([]string{cfg.ScenarioPath(s.Scenario), s.Target, s.Pause.String(), s.Tick.String()}, "\x00")
}

func (d *Daemon) startSoakLocked(cfg *Config, s Soak) {
	ctx, cancel := context.WithCancel(d.baseCtx)
	st := &soakState{key: soakKey(cfg, s), cancel: cancel, done: make(chan struct{})}
	d.soaks[s.Name] = st
	path := cfg.ScenarioPath(s.Scenario)
	d.runsWG.Add(1)
	go func() {
		defer d.runsWG.Done()
		defer close(st.done)
		d.log.Info("soak started", "soak", s.Name, "scenario", path)
		failures := 0
		for ctx.Err() == nil {
			e, wait, err := d.startRun(ctx, runRequest{file: path, target: s.Target, overrides: s.overrides(), source: "soak:" + s.Name})
			if err != nil {
				d.recordFailure(path, "soak:"+s.Name, err)
				failures++
			} else {
				<-wait
				if got, _ := d.hist.Get(e.ID); got.State == StateFailed {
					failures++
				} else {
					failures = 0
				}
			}
			pause := soakPause(s.Pause.D(), d.o.failBackoff, failures)
			if failures > 0 {
				d.log.Warn("soak attempt failed: backing off", "soak", s.Name, "failures", failures, "pause", pause.String())
			}
			select {
			case <-ctx.Done():
			case <-time.After(pause):
			}
		}
	}()
}

// fire runs a schedule, honouring its overlap policy.
func (d *Daemon) fire(s Schedule) {
	d.mu.Lock()
	st := d.sched[s.Name]
	if st == nil || d.stopping {
		d.mu.Unlock()
		return
	}
	if st.busy {
		if s.Overlap == OverlapQueue {
			st.pending = true
			d.mu.Unlock()
			d.log.Info("schedule fired while its last run is busy: queued", "schedule", s.Name)
			return
		}
		d.mu.Unlock()
		d.skipped.WithLabelValues(s.Name).Inc()
		d.log.Info("schedule fired while its last run is busy: skipped", "schedule", s.Name)
		return
	}
	st.busy = true
	cfg := d.cfg
	d.mu.Unlock()
	d.launchScheduled(cfg, s, st)
}

func (d *Daemon) launchScheduled(cfg *Config, s Schedule, st *schedState) {
	path := cfg.ScenarioPath(s.Scenario)
	finish := func() {
		d.mu.Lock()
		if st.pending && !d.stopping && d.sched[s.Name] == st {
			st.pending = false
			cfg := d.cfg
			d.mu.Unlock()
			d.launchScheduled(cfg, s, st)
			return
		}
		st.busy, st.pending = false, false
		d.mu.Unlock()
	}
	_, wait, err := d.startRun(d.baseCtx, runRequest{file: path, target: s.Target, source: "schedule:" + s.Name, slot: true})
	if err != nil {
		d.recordFailure(path, "schedule:"+s.Name, err)
		finish()
		return
	}
	go func() { <-wait; finish() }()
}

// recordFailure puts a run that could not start (its scenario file
// vanished or no longer validates) into the index, so it is visible in
// the API and not only in the log.
func (d *Daemon) recordFailure(file, source string, err error) {
	now := d.o.Now().UTC()
	name := strings.TrimSuffix(baseName(file), ".yaml")
	e := &Entry{ID: d.hist.NewID(now, name), Scenario: name, ScenarioFile: file, Source: source,
		State: StateFailed, Error: err.Error(), Created: now, End: &now}
	e.Dir = "runs/" + e.ID
	d.indexErr(d.hist.Put(e))
	d.runsTotal.WithLabelValues(StateFailed).Inc()
	d.log.Error("run could not start", "source", source, "scenario", file, "err", err.Error())
	d.prune()
}

func baseName(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

type runRequest struct {
	file, target, source string
	// overrides (API runs) change the scenario for this run; its
	// Target wins over target. nil: target alone.
	overrides *runpath.Overrides
	slot      bool // counts against max_concurrent
}

// api says the run was asked for through the API (not configured).
func (r runRequest) api() bool { return r.source == "api" }

// errStopping and errQueueFull are API-visible refusals.
var (
	errStopping  = errors.New("the daemon is stopping")
	errQueueFull = errors.New("the API's share of the run queue is full (max_queued API runs are waiting; configured schedules and soaks keep their own places); try again later")
)

// startRun loads and checks the scenario, adds a queued entry and starts
// the run in the background. wait is closed when the run has finished
// and its entry is final.
func (d *Daemon) startRun(parent context.Context, req runRequest) (Entry, <-chan struct{}, error) {
	d.mu.Lock()
	cfg := d.cfg
	d.mu.Unlock()
	sc, err := cfg.OpenScenario(req.file)
	if err != nil {
		return Entry{}, nil, err
	}
	ov := req.overrides
	if ov == nil && req.target != "" {
		ov = &runpath.Overrides{Target: req.target}
	}
	if ov != nil {
		o := *ov
		o.Note = func(msg string) { d.log.Info("override: "+msg, "scenario", sc.Name) }
		fes, err := runpath.Apply(sc, o)
		if err != nil {
			return Entry{}, nil, err
		}
		if len(fes) > 0 {
			msgs := make([]string, len(fes))
			for i, fe := range fes {
				msgs[i] = fe.Error()
			}
			return Entry{}, nil, fmt.Errorf("%s with overrides: %s", req.file, strings.Join(msgs, "; "))
		}
	}
	exp, err := runpath.NewExporter(sc, rundir.Shard{Count: 1}, d.o.Version)
	if err != nil {
		return Entry{}, nil, err
	}
	now := d.o.Now().UTC()
	id := d.hist.NewID(now, sc.Name)
	e := Entry{ID: id, Scenario: sc.Name, ScenarioFile: req.file, Source: req.source, State: StateQueued, Created: now, Dir: "runs/" + id,
		Target: &EntryTarget{Kind: string(sc.Target.Kind), URL: scenarios.RedactURL(sc.Target.URL)}}
	ctx, cancel := context.WithCancel(parent)
	ar := &activeRun{id: id, cancel: cancel, ctl: &engine.Control{}, exp: exp, api: req.api()}
	d.mu.Lock()
	if d.stopping {
		d.mu.Unlock()
		cancel()
		return Entry{}, nil, errStopping
	}
	if ar.api && d.queuedAPILocked() >= d.cfg.MaxQueued {
		d.mu.Unlock()
		cancel()
		return Entry{}, nil, errQueueFull
	}
	d.lastTicket++
	ar.ticket = d.lastTicket
	d.active[id] = ar
	d.runsWG.Add(1)
	d.mu.Unlock()
	d.indexErr(d.hist.Put(&e))
	done := make(chan struct{})
	go func() {
		defer d.runsWG.Done()
		defer close(done)
		defer cancel()
		d.execute(ctx, ar, sc, req)
		// The run's memory is garbage now (nothing here holds it).
		ar, sc = nil, nil
		d.releaseIfIdle()
	}()
	return e, done, nil
}

func (d *Daemon) execute(ctx context.Context, ar *activeRun, sc *scenarios.Scenario, req runRequest) {
	id := ar.id
	finish := func(state, msg string, sum *rundir.Summary) {
		now := d.o.Now().UTC()
		var reg *Regression
		if sum != nil && state == StateCompleted {
			d.mu.Lock()
			rc := d.cfg.Regression
			d.mu.Unlock()
			if hist := d.hist.Baselines(sc.Name, id, rc.History); len(hist) > 0 {
				reg = verdict.Compare(hist, sum, verdict.RegressOptions{Threshold: rc.Threshold, K: rc.K, MinHistory: rc.MinHistory, Level: rc.Level})
				reg.Controls = d.ctrl.calibration(d.dataDir(), sc.Name, hostKey(sum))
				if reg.NotJudged == "" {
					d.setRegression(sc.Name, reg)
				}
			}
		}
		// Out of the active set first: once the index says the run
		// ended, a stop must not find it still there (it answered 202
		// to a stop of a finished run).
		d.mu.Lock()
		d.retireLocked(ar, now)
		d.mu.Unlock()
		_, statErr := os.Stat(d.hist.RunDir(id))
		d.indexErr(d.hist.Update(id, func(e *Entry) {
			e.State, e.Error, e.End = state, msg, &now
			if sum != nil {
				setVerdict(e, sum)
			}
			if errors.Is(statErr, fs.ErrNotExist) {
				// Stopped before it started (or refused): no directory
				// was made, so the entry points at none.
				e.Dir = ""
			}
			e.Regression = reg
		}))
		d.runsTotal.WithLabelValues(state).Inc()
		attrs := []any{"id", id, "scenario", sc.Name, "source", req.source, "state", state}
		if msg != "" {
			attrs = append(attrs, "err", msg)
		}
		if reg != nil && reg.NotJudged == "" {
			attrs = append(attrs, "regressed", reg.Regressed, "history_runs", reg.History)
			attrs = append(attrs, controlAttrs(reg.Controls)...)
		} else if reg != nil {
			attrs = append(attrs, "regression", "not judged: "+reg.NotJudged)
		}
		d.log.Info("run finished", attrs...)
		d.prune()
		if state == StateCompleted {
			d.updateShifts(sc.Name)
		}
	}
	if err := d.acquire(ctx, ar, sc.Name, req.slot); err != nil {
		finish(StateInterrupted, "stopped before it started", nil)
		return
	}
	defer d.release(ar, sc.Name, req.slot)
	start := d.o.Now().UTC()
	d.indexErr(d.hist.Update(id, func(e *Entry) { e.State, e.Start = StateRunning, &start }))
	d.log.Info("run started", "id", id, "scenario", sc.Name, "source", req.source, "target", string(sc.Target.Kind)+" "+scenarios.RedactURL(sc.Target.URL))
	// Warnings (the scenario's, as soakd validate prints them, and the
	// target's) are logged and the run goes ahead.
	sum, err := runpath.Run(ctx, runpath.Options{Scenario: sc, OutDir: d.hist.RunDir(id), Getenv: d.o.Getenv, Version: d.o.Version, NoSelfHealth: d.o.noSelfHealth,
		Exporter: ar.exp, Control: ar.ctl, Warn: func(w runpath.Warning) {
			if w.Kind == runpath.WarnClose {
				d.log.Warn("closing the run", "id", id, "err", w.Msg)
				return
			}
			d.log.Warn(w.Msg, "id", id, "scenario", sc.Name)
		}})
	switch {
	case sum == nil:
		finish(StateFailed, err.Error(), nil)
	case err != nil && sum.Status == rundir.StatusInterrupted:
		// Ended early with complete results (its managed server died,
		// a shard barrier timed out): interrupted, with the reason.
		finish(StateInterrupted, err.Error(), sum)
	case err != nil:
		finish(StateFailed, err.Error(), sum)
	default:
		finish(sum.Status, "", sum)
		if sum.Status == rundir.StatusCompleted && configured(req.source) && d.aaControls() {
			d.runControl(ctx, sc, id, sum) // in this run's slot
		}
	}
}

// queuedAPILocked counts the API runs waiting as queued; d.mu is held.
func (d *Daemon) queuedAPILocked() int {
	n := 0
	for _, a := range d.active {
		if a.api && !a.running {
			n++
		}
	}
	return n
}

// acquire waits until no other run of the scenario is going and, for
// runs that count against max_concurrent (slot), for a free slot. A
// configured run (schedule, soak) goes before every API run waiting
// for the same scenario or a slot, so API runs cannot starve them;
// otherwise runs start in the order they were asked for: a run waits
// behind an earlier one that wants the same scenario or a slot and could
// start now (a queue of runs of one scenario runs in order, so its
// history does not zig-zag).
func (d *Daemon) acquire(ctx context.Context, ar *activeRun, scenario string, slot bool) error {
	d.mu.Lock()
	if d.cfgWaiting == nil {
		d.cfgWaiting = map[string]int{}
	}
	if !ar.api {
		d.cfgWaiting[scenario]++
		if slot {
			d.cfgSlotWaiting++
		}
	}
	done := func() {
		if ar.api {
			return
		}
		if d.cfgWaiting[scenario]--; d.cfgWaiting[scenario] == 0 {
			delete(d.cfgWaiting, scenario)
		}
		if slot {
			d.cfgSlotWaiting--
		}
	}
	me := waiter{ar: ar, scenario: scenario, slot: slot}
	d.addWaiterLocked(me)
	for {
		if d.canStartLocked(me) && !d.olderWaiterFirstLocked(me) {
			done()
			d.removeWaiterLocked(ar)
			if slot {
				d.slots++
			}
			if d.busy == nil {
				d.busy = map[string]bool{}
			}
			d.busy[scenario] = true
			ar.running = true
			// Runs that waited behind this one look again (another
			// slot may be free for them).
			close(d.wake)
			d.wake = make(chan struct{})
			d.mu.Unlock()
			return nil
		}
		w := d.wake
		d.mu.Unlock()
		select {
		case <-w:
			d.mu.Lock()
		case <-ctx.Done():
			d.mu.Lock()
			done()
			d.removeWaiterLocked(ar)
			// API runs held back by this one look again.
			close(d.wake)
			d.wake = make(chan struct{})
			d.mu.Unlock()
			return ctx.Err()
		}
	}
}

func (d *Daemon) release(ar *activeRun, scenario string, slot bool) {
	d.mu.Lock()
	if slot {
		d.slots--
	}
	delete(d.busy, scenario)
	ar.running = false
	close(d.wake)
	d.wake = make(chan struct{})
	d.mu.Unlock()
}

// indexErr logs a failed index write (a full disk). The history in
// memory is complete and the API serves it; index.json keeps its last
// whole version until the next change writes it again.
func (d *Daemon) indexErr(err error) {
	if err != nil {
		d.log.Error("index write failed; index.json is stale until the next change writes it", "err", err)
	}
}

func (d *Daemon) prune() {
	d.mu.Lock()
	r := d.cfg.Retention
	d.mu.Unlock()
	ids, err := d.hist.Prune(d.o.Now(), r.MaxRuns, r.MaxFailed, r.MaxAge.D())
	if err != nil {
		d.log.Error("retention", "err", err)
	}
	if len(ids) > 0 {
		d.log.Info("retention removed runs", "count", len(ids))
	}
}
