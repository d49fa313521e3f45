package daemon

import (
	"context"
	"errors"
	"sort"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
)

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

// configured are the config's schedules and soaks as they run now;
// Daemon.mu guards it.
type configured struct {
	sched map[string]*schedState
	soaks map[string]*soakState
	cron  *cron.Cron
}

type schedState struct {
	busy, pending bool
}

type soakState struct {
	key    string
	cancel context.CancelFunc
	done   chan struct{}
}

func newConfigured() configured {
	return configured{sched: map[string]*schedState{}, soaks: map[string]*soakState{}}
}

// applyLocked (re)starts the cron schedules and reconciles soaks.
func (d *Daemon) applyLocked(cfg *Config) {
	if d.stopping {
		return
	}
	if d.conf.cron != nil {
		d.conf.cron.Stop() // running jobs are runs in their own goroutines; they continue
	}
	parser := cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)
	c := cron.New(cron.WithParser(parser), cron.WithChain(cron.Recover(cron.DiscardLogger)))
	names := map[string]bool{}
	for _, s := range cfg.Schedules {
		s := s
		names[s.Name] = true
		if d.conf.sched[s.Name] == nil {
			d.conf.sched[s.Name] = &schedState{}
		}
		if _, err := c.AddFunc(s.Cron, func() { d.fire(s) }); err != nil {
			d.log.Error("schedule not added", "schedule", s.Name, "err", err)
		}
	}
	for n, st := range d.conf.sched {
		if !names[n] {
			// A run still going finishes; nothing queued behind it starts.
			st.pending = false
			delete(d.conf.sched, n)
		}
	}
	d.conf.cron = c
	c.Start()
	// wake slot waiters: max_concurrent may have changed
	d.q.wakeAll()

	want := map[string]Soak{}
	for _, s := range cfg.Soaks {
		want[s.Name] = s
	}
	for name, st := range d.conf.soaks {
		s, ok := want[name]
		if ok && soakKey(cfg, s) == st.key {
			delete(want, name) // unchanged: keep running
			continue
		}
		d.log.Info("soak stopped by reload", "soak", name)
		st.cancel()
		delete(d.conf.soaks, name)
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
	d.conf.soaks[s.Name] = st
	path := cfg.ScenarioPath(s.Scenario)
	resume, resuming := d.takeResumeLocked(s.Name)
	d.runsWG.Add(1)
	go func() {
		defer d.runsWG.Done()
		defer close(st.done)
		d.log.Info("soak started", "soak", s.Name, "scenario", path)
		failures := 0
		for ctx.Err() == nil {
			req := runRequest{file: path, target: s.Target, overrides: s.overrides(), source: resumeSource + s.Name}
			if resuming {
				// Its first run is the one a killed daemon left.
				req.resume, resuming = &resume, false
			}
			e, wait, err := d.startRun(ctx, req)
			if err != nil && req.resume != nil && !errors.Is(err, errStopping) {
				d.unresumed(req.resume, err)
				d.indexErr(d.hist.Put(req.resume))
			}
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
	st := d.conf.sched[s.Name]
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
		d.m.skipped.WithLabelValues(s.Name).Inc()
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
		if st.pending && !d.stopping && d.conf.sched[s.Name] == st {
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
