package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/soakd/soakd/engine"
	"github.com/soakd/soakd/internal/runpath"
	"github.com/soakd/soakd/internal/term"
	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/report"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

func (a *App) run(ctx context.Context, args []string) int {
	var f runFlags
	fs := runFlagSet(&f)
	a.colorFlag(fs)
	pos, code, ok := a.parseCmd("run", fs, args)
	if !ok {
		return code
	}
	a.quiet = f.quiet
	if f.resume == "" && len(pos) != 1 {
		fmt.Fprintln(a.Stderr, "soakd run: give exactly one scenario file (soakd run --help)")
		return exitRefused
	}
	fs.Visit(func(fl *flag.Flag) {
		f.rateSet = f.rateSet || fl.Name == "rate"
		f.listenSet = f.listenSet || fl.Name == "listen"
	})
	if err := checkCounts(fs, f); err != nil {
		fmt.Fprintf(a.Stderr, "soakd run: %v\n", err)
		return exitRefused
	}
	if !a.applySched("run", fs, f.sched) {
		return exitRefused
	}
	stopHeap, ok := a.startHeap("run", fs, f.heap)
	if !ok {
		return exitRefused
	}
	defer stopHeap()
	stopRelease, ok := a.startRelease("run", f.mem)
	if !ok {
		return exitRefused
	}
	defer stopRelease()
	if emptyTarget(f.targets) {
		fmt.Fprintf(a.Stderr, "soakd run: %v\n", errEmptyTarget)
		return exitRefused
	}
	if f.resume != "" {
		return a.resume(ctx, fs, pos, f)
	}
	if len(f.targets) <= 1 {
		if len(f.targets) == 1 {
			f.target = f.targets[0]
		}
		code, sum, dir := a.runScenario(ctx, pos[0], f, "")
		a.printControl(f, dir, sum)
		return code
	}
	return a.runTargets(ctx, pos[0], f)
}

// runTargets runs the scenario once per --target, in order, each into
// its own run directory under --out, and prints the side-by-side table
// of the runs. The exit code is the worst of the runs'.
func (a *App) runTargets(ctx context.Context, path string, f runFlags) int {
	if f.shard != "" || f.shardFromEnv || f.startAt != "" || f.runID != "" {
		fmt.Fprintln(a.Stderr, "soakd run: several --target values run one after another: --shard, --shard-from-env, --start-at and --run-id do not apply")
		return exitRefused
	}
	// Every target is checked before the first runs.
	var name string
	repeat := f.repeat
	for _, tg := range f.targets {
		sc, err := targets.LoadScenario(path)
		if err != nil {
			fmt.Fprintln(a.Stderr, err)
			return exitRefused
		}
		f.target = tg
		if !a.applyOverrides(sc, f, func(string) {}) {
			fmt.Fprintf(a.Stderr, "soakd run: --target %s refused; nothing ran\n", scenarios.RedactURL(tg))
			return exitRefused
		}
		if err := a.checkReachable(ctx, sc); err != nil {
			fmt.Fprintf(a.Stderr, "soakd run: --target %s unreachable: %v; nothing ran\n", scenarios.RedactURL(tg), err)
			return exitRefused
		}
		name = sc.Name
		repeat = sc.Repeats()
		if repeat > 1 && sc.Target.Managed != nil && len(sc.Target.Managed.Persistences) > 0 {
			fmt.Fprintf(a.Stderr, "soakd run: several --target values with repeats run as one run's variants; %s also has persistence variants (target.managed.persistences): give one --target\n", path)
			return exitRefused
		}
		f.variantTargets = append(f.variantTargets, sc.Target)
	}
	if repeat > 1 {
		// One run, the targets its variants, interleaved round by round.
		f.target = f.targets[0]
		code, sum, dir := a.runScenario(ctx, path, f, "")
		a.printControl(f, dir, sum)
		return code
	}
	f.variantTargets = nil
	if f.out == "" {
		// One parent directory for all the targets' runs.
		f.out = filepath.Join("runs", fmt.Sprintf("%s-%s", name, a.Now().UTC().Format("20060102T150405Z")))
	}
	for i := range f.targets {
		// Every target's directory is checked before the first runs.
		if err := claimOut(filepath.Join(f.out, fmt.Sprintf("target-%d", i+1)), f.force); err != nil {
			fmt.Fprintf(a.Stderr, "soakd run: %v; nothing ran\n", err)
			return exitRefused
		}
	}
	var sums []*rundir.Summary
	var dirs []string
	worst := exitOK
	for i, tg := range f.targets {
		f.target = tg
		code, sum, dir := a.runScenario(ctx, path, f, fmt.Sprintf("target-%d", i+1))
		worst = max(worst, code)
		if code == exitRefused || sum == nil {
			return exitRefused
		}
		sums, dirs = append(sums, sum), append(dirs, dir)
		if ctx.Err() != nil {
			break
		}
		if i < len(f.targets)-1 {
			fmt.Fprintln(a.Stdout, strings.Repeat("-", 60))
		}
	}
	if t := report.BuildSuite(report.SuiteColumns(dirs, sums)); len(t.Columns) > 1 && (len(t.Rows) > 0 || len(t.Sweeps) > 0) {
		a.printSuite(&t, f.control)
	}
	return worst
}

// applyOverrides applies f's overrides (f.target the target) to sc and
// reports every problem on stderr; false when there were any.
func (a *App) applyOverrides(sc *scenarios.Scenario, f runFlags, note func(string)) bool {
	ov := runpath.Overrides{Target: f.target, Duration: f.duration, Warmup: f.warmup, Tick: f.tick, Records: f.records, Concurrency: f.concurrency, Seed: f.seed, Repeat: f.repeat, Note: note}
	if f.rateSet {
		ov.Rate = &f.rate
	}
	problems, err := runpath.Apply(sc, ov)
	if err != nil {
		fmt.Fprintf(a.Stderr, "soakd run: --%v\n", err)
		return false
	}
	if len(problems) > 0 {
		for _, e := range problems {
			fmt.Fprintf(a.Stderr, "%s: %s (after command-line overrides)\n", sc.File, e)
		}
		return false
	}
	return true
}

// runScenario runs the scenario at path with f's flags (f.target the
// one target, if any) into the run directory (sub, when not empty, is a
// directory under it) and returns the exit code, the summary (nil when
// nothing ran) and the run directory.
func (a *App) runScenario(ctx context.Context, path string, f runFlags, sub string) (int, *rundir.Summary, string) {
	sc, err := targets.LoadScenario(path)
	if err != nil {
		fmt.Fprintln(a.Stderr, err)
		return exitRefused, nil, ""
	}
	if !a.applyOverrides(sc, f, func(msg string) { fmt.Fprintf(a.Stderr, "soakd run: %s\n", msg) }) {
		return exitRefused, nil, ""
	}
	shard, err := resolveShard(f.shard, f.shardFromEnv, a.Getenv)
	if err == nil {
		err = engine.CheckShard(sc, shard)
	}
	if err != nil {
		fmt.Fprintf(a.Stderr, "soakd run: %v\n", err)
		return exitRefused, nil, ""
	}
	if f.resume != "" {
		f.startAt = "" // the shards' start is long past
	}
	startAt, err := parseStartAt(f.startAt)
	if err != nil {
		fmt.Fprintf(a.Stderr, "soakd run: %v\n", err)
		return exitRefused, nil, ""
	}
	runID, err := resolveRunID(f.runID, startAt, a.Getenv)
	if err == nil && f.barrierTimeout <= 0 {
		err = fmt.Errorf("--barrier-timeout %s: must be positive", f.barrierTimeout)
	}
	if err != nil {
		fmt.Fprintf(a.Stderr, "soakd run: %v\n", err)
		return exitRefused, nil, ""
	}
	out := f.out
	if out == "" {
		out = filepath.Join("runs", fmt.Sprintf("%s-%s", sc.Name, a.Now().UTC().Format("20060102T150405Z")))
		if shard.Count > 1 {
			out += fmt.Sprintf("-shard%d", shard.Index)
		}
	}
	if sub != "" {
		out = filepath.Join(out, sub)
	}
	if f.resume != "" {
		out = f.resume // the killed run's, as it is
	} else if err := claimOut(out, f.force); err != nil {
		fmt.Fprintf(a.Stderr, "soakd run: %v\n", err)
		return exitRefused, nil, ""
	}
	// A run that measured nothing (its target down, refused, or
	// interrupted before it started) leaves no directory behind.
	created := missingDirs(out)
	measured := false
	defer func() {
		if !measured {
			removeEmptyDirs(created)
		}
	}()

	if f.swap != "" {
		// After every input check (bad input makes no swapfile), before
		// the target opens (a managed server starts with the swap there).
		// Deferred first, so it runs last: after the server has stopped.
		size, err := scenarios.ParseBytes(f.swap)
		if err != nil || size <= 0 {
			fmt.Fprintf(a.Stderr, "soakd run: --swap %s: give a size such as 2gb or 512mb\n", f.swap)
			return exitRefused, nil, ""
		}
		// A store that is down is found before 2 GB of swap are made
		// for it (a managed server is started by the run, after this).
		if err := a.checkReachable(ctx, sc); err != nil {
			fmt.Fprintf(a.Stderr, "soakd run: target %s unreachable: %v; no swapfile made, nothing ran\n", scenarios.RedactURL(sc.Target.URL), err)
			return exitRefused, nil, ""
		}
		sw, err := a.Swap.On(ctx, int64(size))
		if err != nil {
			fmt.Fprintf(a.Stderr, "soakd run: --swap %s: %v\n", f.swap, err)
			return exitRefused, nil, ""
		}
		fmt.Fprintf(a.Stderr, "soakd: swapfile %s on (%d bytes)\n", sw.Path, sw.Size)
		defer func() {
			if err := sw.Off(); err != nil {
				fmt.Fprintf(a.Stderr, "soakd: --swap: %v\n", err)
				return
			}
			fmt.Fprintf(a.Stderr, "soakd: swapfile %s off and removed\n", sw.Path)
		}()
	}

	progress, every, restore := a.progressOut(f.quiet)
	defer restore()
	stopMetrics := func() {}
	defer func() { stopMetrics() }()
	sum, err := runpath.Run(ctx, runpath.Options{Scenario: sc, Targets: f.variantTargets, OutDir: out, Shard: shard,
		RunID: runID, BarrierTimeout: f.barrierTimeout, Getenv: a.Getenv, Version: version, OTLPEndpoint: f.otlpEndpoint,
		Progress: progress, ProgressEvery: every, Warn: a.warn,
		Resume: f.resume != "", ForceResume: f.resume != "" && f.force, Recipe: recipeOf(path, f, shard, runID),
		CheckpointEvery: f.checkpointEvery,
		BeforeStart: func(ctx context.Context, exp *metrics.Exporter) error {
			var err error
			if stopMetrics, err = a.serveMetrics(exp, f.listen, f.listenSet); err != nil {
				return err
			}
			a.startLine(sc, out)
			return a.waitStart(ctx, startAt, shard)
		}})
	measured = sum != nil
	restore()
	if sum != nil {
		// The summary goes to stdout whatever happened to the files.
		a.printResult(report.Text(sum))
	}
	if err != nil {
		fmt.Fprintf(a.Stderr, "soakd run: %v\n", err)
		var werr *rundir.WriteError
		switch {
		case sum == nil && ctx.Err() != nil:
			// Interrupted before a phase ran (SIGINT while a capture or a
			// corpus was read): an interrupted run, not a refused input.
			return exitFailed, nil, out
		case sum == nil:
			return exitRefused, nil, out
		case errors.As(err, &werr):
			fmt.Fprintf(a.Stderr, "soakd run: the summary above is the only copy of the results (exit %d)\n", exitNotWritten)
			return exitNotWritten, sum, out
		}
		a.wrote(out)
		return exitFailed, sum, out
	}
	a.wrote(out)
	if !sum.SLO.Passed {
		return exitFailed, sum, out
	}
	return exitOK, sum, out
}

// warn prints what a run says and goes ahead with.
func (a *App) warn(w runpath.Warning) {
	switch w.Kind {
	case runpath.WarnScenario:
		fmt.Fprintf(a.Stderr, "soakd run: %s\n", w.Msg)
	case runpath.WarnClose:
		fmt.Fprintf(a.Stderr, "soakd: %s\n", w.Msg)
	default:
		fmt.Fprintf(a.Stderr, "soakd: warning: %s\n", w.Msg)
	}
}

// startLine says what runs against what, and where it goes.
func (a *App) startLine(sc *scenarios.Scenario, out string) {
	if a.quiet {
		return
	}
	targetLine := string(sc.Target.Kind)
	if sc.Target.URL != "" {
		targetLine += " " + scenarios.RedactURL(sc.Target.URL)
	}
	fmt.Fprintf(a.Stderr, "soakd: scenario %s, target: %s, run directory %s\n", sc.Name, targetLine, out)
}

// waitStart waits for --start-at (zero: none), the shards' shared
// start; one already past starts now, with a warning.
func (a *App) waitStart(ctx context.Context, startAt time.Time, shard rundir.Shard) error {
	if startAt.IsZero() {
		return nil
	}
	if late := a.Now().Sub(startAt); late > time.Second {
		fmt.Fprintf(a.Stderr, "soakd: warning: --start-at %s was %s ago; starting now, not in step with the other shards\n", startAt.UTC().Format(time.RFC3339Nano), term.Duration(late))
	} else if !a.quiet {
		fmt.Fprintf(a.Stderr, "soakd: shard %s waiting for start at %s\n", shard, startAt.UTC().Format(time.RFC3339Nano))
	}
	if err := waitUntil(ctx, startAt, a.Now); err != nil {
		return errors.New("interrupted before --start-at")
	}
	return nil
}

// wrote says where the run went and how to see it as a page.
func (a *App) wrote(dir string) {
	fmt.Fprintf(a.Stderr, "soakd: wrote %s\nsoakd: HTML report: %s\n", dir, reportCommand(dir))
}
