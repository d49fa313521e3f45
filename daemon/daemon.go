package daemon

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/soakd/soakd/internal/runpath"
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
	// runEnded is called when a run's goroutine is done (after
	// releaseIfIdle); tests wait on it.
	runEnded func()
	// noSelfHealth leaves soakd's own-health sampler off in its runs, so
	// a test's verdicts do not depend on how busy the shared host is
	// (the sampler and the bound rule have their own tests).
	noSelfHealth bool
	// checkpointEvery spaces its runs' checkpoints (0: runpath's
	// default; tests that kill a run a second in use 1 s).
	checkpointEvery time.Duration
	// resumable says whether a killed run's directory can be resumed
	// (nil: it can); nil: runpath.Resumable.
	resumable func(dir string) error
}

// Daemon is one `soakd serve` process. Its parts, by job: the run
// queue (queue.go), a run's life from request to index entry (run.go),
// the configured schedules and soaks (schedule.go), the run history
// (history.go) and its shifts (shifts.go), its own metrics (metrics.go),
// the API (api.go) and the web page (web.go).
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
	q        runQueue   // who waits for what (queue.go)
	conf     configured // schedules, soaks, cron (schedule.go)
	stopping bool
	ready    bool

	m      daemonMetrics // its own series (metrics.go)
	shifts shiftBook     // per scenario, its history's shifts (shifts.go)
	// resumes are the runs a killed daemon left that the soaks resume
	// first, by soak name (resume.go); taken by startSoakLocked.
	resumes map[string]Entry
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
	if o.resumable == nil {
		o.resumable = runpathResumable
	}
	tok, err := cfg.Token(o.Getenv)
	if err != nil {
		return nil, err
	}
	d := &Daemon{o: o, cfg: cfg, token: tok,
		log:    slog.New(slog.NewTextHandler(o.Log, nil)),
		notify: NewNotifier(o.Getenv, o.Pid),
		active: map[string]*activeRun{}, q: newRunQueue(), conf: newConfigured(),
		shifts:  shiftBook{byScenario: map[string]ScenarioShifts{}},
		resumes: map[string]Entry{},
	}
	hist, notes, err := openHistory(cfg.DataDir, o.Now(), pickResumes(cfg, o.resumable, d.resumes))
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

// Run serves until ctx is cancelled (SIGTERM): then it stops the
// schedules, suspends the soaks' runs that resume (left resumable for
// the next start, after a restart or a reboot), cancels every other run
// (the engine writes interrupted results), waits for them and returns.
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
	c := d.conf.cron
	d.conf.cron = nil
	n := len(d.active)
	for _, ar := range d.active {
		if ar.suspend {
			ar.cancel(runpath.ErrSuspended)
		}
	}
	d.mu.Unlock()
	d.log.Info("stopping: cancelling runs (soaks' runs suspended, to be resumed)", "active", n)
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
		d.m.reloads.WithLabelValues("error").Inc()
		d.log.Error("reload refused; keeping the running config", "config", d.o.ConfigPath, "problems", err.Error())
		return
	}
	tok, err := cfg.Token(d.o.Getenv)
	if err != nil {
		d.m.reloads.WithLabelValues("error").Inc()
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
	d.m.reloads.WithLabelValues("ok").Inc()
	d.log.Info("config reloaded", "schedules", len(cfg.Schedules), "soaks", len(cfg.Soaks))
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
