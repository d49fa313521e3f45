package daemon

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/soakd/soakd/engine"
	"github.com/soakd/soakd/internal/runpath"
	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/verdict"
)

// One run's life in the daemon: asked for (startRun), queued (queue.go),
// run through internal/runpath (execute), judged against its history
// and recorded in the index (finishRun).

type activeRun struct {
	id     string
	cancel context.CancelCauseFunc
	// suspend: a soak's run that is resumed after a restart; the
	// daemon stopping suspends it (runpath.ErrSuspended) rather than
	// ending it interrupted.
	suspend bool
	ctl     *engine.Control
	exp     *metrics.Exporter
	// running is set (under Daemon.mu) once the run holds its scenario:
	// only running runs are exported, so queued ones add no series.
	running bool
	// api: started through POST /api/v1/runs (it counts against
	// max_queued while queued and yields to configured runs).
	api bool
	// ticket orders the runs by when they were asked for (startRun).
	ticket uint64
}

type runRequest struct {
	file, target, source string
	// overrides (API runs) change the scenario for this run; its
	// Target wins over target. nil: target alone.
	overrides *runpath.Overrides
	slot      bool // counts against max_concurrent
	// resume is the entry of a killed daemon's run to resume in its own
	// directory (resume.go); nil: a new run.
	resume *Entry
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
	tgt := &EntryTarget{Kind: string(sc.Target.Kind), URL: scenarios.RedactURL(sc.Target.URL)}
	var e Entry
	if req.resume != nil {
		e = *req.resume
		e.State, e.Target = StateQueued, tgt
	} else {
		id := d.hist.NewID(now, sc.Name)
		e = Entry{ID: id, Scenario: sc.Name, ScenarioFile: req.file, Source: req.source, State: StateQueued, Created: now, Dir: "runs/" + id, Target: tgt}
	}
	id := e.ID
	ctx, cancel := context.WithCancelCause(parent)
	ar := &activeRun{id: id, cancel: cancel, ctl: &engine.Control{}, exp: exp, api: req.api(), suspend: cfg.soakResumes(req.source)}
	d.mu.Lock()
	if d.stopping {
		d.mu.Unlock()
		cancel(nil)
		return Entry{}, nil, errStopping
	}
	if ar.api && queuedAPI(d.active) >= d.cfg.MaxQueued {
		d.mu.Unlock()
		cancel(nil)
		return Entry{}, nil, errQueueFull
	}
	ar.ticket = d.q.nextTicket()
	d.active[id] = ar
	d.runsWG.Add(1)
	d.mu.Unlock()
	d.indexErr(d.hist.Put(&e))
	done := make(chan struct{})
	go func() {
		defer d.runsWG.Done()
		defer close(done)
		defer cancel(nil)
		d.execute(ctx, ar, sc, req)
		// The run's memory is garbage now (nothing here holds it).
		ar, sc = nil, nil
		d.releaseIfIdle()
		if d.o.runEnded != nil {
			d.o.runEnded()
		}
	}()
	return e, done, nil
}

func (d *Daemon) execute(ctx context.Context, ar *activeRun, sc *scenarios.Scenario, req runRequest) {
	id := ar.id
	if err := d.acquire(ctx, ar, sc.Name, req.slot); err != nil {
		if req.resume != nil {
			// Stopped before it resumed: left as the killed daemon
			// left it, for the next start to resume.
			d.mu.Lock()
			d.retireLocked(ar, d.o.Now().UTC())
			d.mu.Unlock()
			d.indexErr(d.hist.Update(id, func(e *Entry) { e.State = StateRunning }))
			return
		}
		d.finishRun(ar, sc.Name, req, StateInterrupted, "stopped before it started", nil)
		return
	}
	defer d.release(ar, sc.Name, req.slot)
	start := d.o.Now().UTC()
	d.indexErr(d.hist.Update(id, func(e *Entry) {
		e.State = StateRunning
		if e.Start == nil { // a resumed run keeps its start
			e.Start = &start
		}
	}))
	what := "run started"
	if req.resume != nil {
		what = "run resumed"
	}
	d.log.Info(what, "id", id, "scenario", sc.Name, "source", req.source, "target", string(sc.Target.Kind)+" "+scenarios.RedactURL(sc.Target.URL))
	// Warnings (the scenario's, as soakd validate prints them, and the
	// target's) are logged and the run goes ahead.
	sum, err := runpath.Run(ctx, runpath.Options{Scenario: sc, OutDir: d.hist.RunDir(id), Resume: req.resume != nil, CheckpointEvery: d.o.checkpointEvery, Getenv: d.o.Getenv, Version: d.o.Version, NoSelfHealth: d.o.noSelfHealth,
		Exporter: ar.exp, Control: ar.ctl, Warn: func(w runpath.Warning) {
			if w.Kind == runpath.WarnClose {
				d.log.Warn("closing the run", "id", id, "err", w.Msg)
				return
			}
			d.log.Warn(w.Msg, "id", id, "scenario", sc.Name)
		}})
	switch {
	case errors.Is(err, runpath.ErrSuspended):
		// The daemon is stopping (a restart, a reboot): the run is
		// left resumable, its entry running, for the next start.
		d.mu.Lock()
		d.retireLocked(ar, d.o.Now().UTC())
		d.mu.Unlock()
		d.log.Info("run suspended: the next start resumes it", "id", id, "scenario", sc.Name)
		return
	case sum == nil && req.resume != nil:
		// Refused (the scenario changed, ...): ended as before resume.
		e, _ := d.hist.Get(id)
		d.unresumed(&e, err)
		d.finishRun(ar, sc.Name, req, e.State, e.Error, nil)
	case sum == nil:
		d.finishRun(ar, sc.Name, req, StateFailed, err.Error(), nil)
	case err != nil && sum.Status == rundir.StatusInterrupted:
		// Ended early with complete results (its managed server died,
		// a shard barrier timed out): interrupted, with the reason.
		d.finishRun(ar, sc.Name, req, StateInterrupted, err.Error(), sum)
	case err != nil:
		d.finishRun(ar, sc.Name, req, StateFailed, err.Error(), sum)
	default:
		d.finishRun(ar, sc.Name, req, sum.Status, "", sum)
		if sum.Status == rundir.StatusCompleted && fromConfig(req.source) && d.aaControls() {
			d.runControl(ctx, sc, id, sum) // in this run's slot
		}
	}
}

// finishRun judges a completed run against its history, takes it out
// of the active set and makes its index entry final.
func (d *Daemon) finishRun(ar *activeRun, scenario string, req runRequest, state, msg string, sum *rundir.Summary) {
	id := ar.id
	now := d.o.Now().UTC()
	var reg *Regression
	if sum != nil && state == StateCompleted {
		reg = d.judgeRegression(scenario, id, sum)
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
	d.m.runsTotal.WithLabelValues(state).Inc()
	attrs := []any{"id", id, "scenario", scenario, "source", req.source, "state", state}
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
		d.updateShifts(scenario)
	}
}

// judgeRegression compares a completed run with the scenario's earlier
// ones (nil without history) and sets soakd_regression when judged.
func (d *Daemon) judgeRegression(scenario, id string, sum *rundir.Summary) *Regression {
	d.mu.Lock()
	rc := d.cfg.Regression
	d.mu.Unlock()
	hist := d.hist.Baselines(scenario, id, rc.History)
	if len(hist) == 0 {
		return nil
	}
	reg := verdict.Compare(hist, sum, verdict.RegressOptions{Threshold: rc.Threshold, K: rc.K, MinHistory: rc.MinHistory, Level: rc.Level})
	reg.Controls = d.ctrl.calibration(d.dataDir(), scenario, HostKey(sum))
	if reg.NotJudged == "" {
		d.m.setRegression(scenario, reg)
	}
	return reg
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
	d.m.runsTotal.WithLabelValues(StateFailed).Inc()
	d.log.Error("run could not start", "source", source, "scenario", file, "err", err.Error())
	d.prune()
}

func baseName(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}
