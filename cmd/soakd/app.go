package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/soakd/soakd/daemon"
	"github.com/soakd/soakd/engine"
	"github.com/soakd/soakd/internal/runpath"
	"github.com/soakd/soakd/internal/swapfile"
	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/report"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// Exit codes.
const (
	exitOK      = 0
	exitSLO     = 1
	exitBadUsed = 2
	// exitNotWritten: the run finished (its summary went to stdout) but
	// the run directory could not be written, e.g. a full disk.
	exitNotWritten = 3
)

// version is stamped with -ldflags "-X main.version=...".
var version = "dev"

// App is the CLI with its environment injected, so commands are testable.
type App struct {
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	Now            func() time.Time
	// Reload delivers SIGHUP to `serve` (nil: no reloads). SIGTERM and
	// SIGINT cancel the ctx given to Main.
	Reload <-chan os.Signal
	// OnListen, when set, is told the daemon's API address (tests).
	OnListen func(net.Addr)
	// Swap makes the swapfile of `run --swap`; the zero value is this
	// host (tests replace its commands).
	Swap swapfile.Host
}

// Main runs a command line and returns the exit code.
func (a *App) Main(ctx context.Context, args []string) int {
	if len(args) == 0 {
		fmt.Fprint(a.Stderr, shortUsage())
		return exitBadUsed
	}
	switch args[0] {
	case "run":
		return a.run(ctx, args[1:])
	case "validate":
		return a.validate(ctx, args[1:])
	case "report":
		return a.report(args[1:])
	case "serve":
		return a.serve(ctx, args[1:])
	case "compare":
		return a.compare(args[1:])
	case "version", "--version":
		if _, code, ok := a.parseCmd("version", newFlagSet("version"), args[1:]); !ok {
			return code
		}
		fmt.Fprintln(a.Stdout, "soakd", version)
		return exitOK
	case "help", "-h", "--help", "-help":
		return a.help(ctx, args[1:])
	}
	fmt.Fprintf(a.Stderr, "soakd: unknown command %q\n%s", args[0], shortUsage())
	return exitBadUsed
}

// help is `soakd help [COMMAND]`.
func (a *App) help(ctx context.Context, args []string) int {
	switch {
	case len(args) == 0, args[0] == "help", args[0] == "-h", args[0] == "--help", args[0] == "-help":
		// help on help is the top help (`soakd help --help` was exit 2).
		fmt.Fprint(a.Stdout, topHelp())
		return exitOK
	}
	for _, c := range commandDocs {
		if c.name == args[0] && c.name != "help" {
			return a.Main(ctx, []string{c.name, "--help"})
		}
	}
	fmt.Fprintf(a.Stderr, "soakd help: unknown command %q\n%s", args[0], shortUsage())
	return exitBadUsed
}

func (a *App) run(ctx context.Context, args []string) int {
	var f runFlags
	fs := runFlagSet(&f)
	pos, code, ok := a.parseCmd("run", fs, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		fmt.Fprintln(a.Stderr, "soakd run: give exactly one scenario file (soakd run --help)")
		return exitBadUsed
	}
	fs.Visit(func(fl *flag.Flag) { f.rateSet = f.rateSet || fl.Name == "rate" })
	if emptyTarget(f.targets) {
		fmt.Fprintf(a.Stderr, "soakd run: %v\n", errEmptyTarget)
		return exitBadUsed
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

// targetList collects a repeated --target.
type targetList []string

func (l *targetList) String() string { return strings.Join(*l, ",") }

func (l *targetList) Set(v string) error {
	*l = append(*l, v)
	return nil
}

// runTargets runs the scenario once per --target, in order, each into
// its own run directory under --out, and prints the side-by-side table
// of the runs. The exit code is the worst of the runs'.
func (a *App) runTargets(ctx context.Context, path string, f runFlags) int {
	if f.shard != "" || f.shardFromEnv || f.startAt != "" || f.runID != "" {
		fmt.Fprintln(a.Stderr, "soakd run: several --target values run one after another: --shard, --shard-from-env, --start-at and --run-id do not apply")
		return exitBadUsed
	}
	// Every target is checked before the first runs.
	var name string
	repeat := f.repeat
	for _, tg := range f.targets {
		sc, err := targets.LoadScenario(path)
		if err != nil {
			fmt.Fprintln(a.Stderr, err)
			return exitBadUsed
		}
		f.target = tg
		if !a.applyOverrides(sc, f, func(string) {}) {
			fmt.Fprintf(a.Stderr, "soakd run: --target %s refused; nothing ran\n", scenarios.RedactURL(tg))
			return exitBadUsed
		}
		if err := a.checkReachable(ctx, sc); err != nil {
			fmt.Fprintf(a.Stderr, "soakd run: --target %s unreachable: %v; nothing ran\n", scenarios.RedactURL(tg), err)
			return exitBadUsed
		}
		name = sc.Name
		repeat = sc.Repeats()
		if repeat > 1 && sc.Target.Managed != nil && len(sc.Target.Managed.Persistences) > 0 {
			fmt.Fprintf(a.Stderr, "soakd run: several --target values with repeats run as one run's variants; %s also has persistence variants (target.managed.persistences): give one --target\n", path)
			return exitBadUsed
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
			return exitBadUsed
		}
	}
	var sums []*rundir.Summary
	var dirs []string
	worst := exitOK
	for i, tg := range f.targets {
		f.target = tg
		code, sum, dir := a.runScenario(ctx, path, f, fmt.Sprintf("target-%d", i+1))
		worst = max(worst, code)
		if code == exitBadUsed || sum == nil {
			return exitBadUsed
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
	ov := runpath.Overrides{Target: f.target, Duration: f.duration, Warmup: f.warmup, Records: f.records, Concurrency: f.concurrency, Seed: f.seed, Repeat: f.repeat, Note: note}
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
		return exitBadUsed, nil, ""
	}
	if !a.applyOverrides(sc, f, func(msg string) { fmt.Fprintf(a.Stderr, "soakd run: %s\n", msg) }) {
		return exitBadUsed, nil, ""
	}
	for _, w := range sc.Warnings() {
		fmt.Fprintf(a.Stderr, "soakd run: %s\n", w)
	}
	shard, err := resolveShard(f.shard, f.shardFromEnv, a.Getenv)
	if err == nil {
		err = engine.CheckShard(sc, shard)
	}
	if err != nil {
		fmt.Fprintf(a.Stderr, "soakd run: %v\n", err)
		return exitBadUsed, nil, ""
	}
	startAt, err := parseStartAt(f.startAt)
	if err != nil {
		fmt.Fprintf(a.Stderr, "soakd run: %v\n", err)
		return exitBadUsed, nil, ""
	}
	runID, err := resolveRunID(f.runID, startAt, a.Getenv)
	if err == nil && f.barrierTimeout <= 0 {
		err = fmt.Errorf("--barrier-timeout %s: must be positive", f.barrierTimeout)
	}
	if err != nil {
		fmt.Fprintf(a.Stderr, "soakd run: %v\n", err)
		return exitBadUsed, nil, ""
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
	if err := claimOut(out, f.force); err != nil {
		fmt.Fprintf(a.Stderr, "soakd run: %v\n", err)
		return exitBadUsed, nil, ""
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
			return exitBadUsed, nil, ""
		}
		sw, err := a.Swap.On(ctx, int64(size))
		if err != nil {
			fmt.Fprintf(a.Stderr, "soakd run: --swap %s: %v\n", f.swap, err)
			return exitBadUsed, nil, ""
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

	// One warning per run: the persistence variants reopen the target
	// and would repeat it.
	var warnOnce sync.Once
	var progress io.Writer = a.Stderr
	if f.quiet {
		progress = nil
	}
	rn, err := runpath.Open(ctx, runpath.Options{Scenario: sc, Targets: f.variantTargets, OutDir: out, Shard: shard, BarrierTimeout: f.barrierTimeout,
		Getenv: a.Getenv, Version: version, OTLPEndpoint: f.otlpEndpoint, Progress: progress,
		Warn: func(msg string) {
			warnOnce.Do(func() { fmt.Fprintf(a.Stderr, "soakd: warning: %s\n", msg) })
		}})
	if err != nil {
		fmt.Fprintf(a.Stderr, "soakd run: %v\n", err)
		return exitBadUsed, nil, out
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := rn.Close(sctx); err != nil {
			fmt.Fprintf(a.Stderr, "soakd: %v\n", err)
		}
	}()
	tg := rn.Target
	if shard.Count > 1 {
		// Phase barriers need one store all shards share: not the
		// embedded store or a managed server, which every process starts
		// for itself.
		_, canWait := tg.(targets.Barrier)
		switch {
		case runID == "":
			fmt.Fprintf(a.Stderr, "soakd: warning: shard %s has no run id (--run-id, $SOAKD_RUN_ID or --start-at): phases are not synchronised across shards\n", shard)
		case sc.Target.Kind == scenarios.KindEmbedded || sc.Target.Managed != nil:
			fmt.Fprintf(a.Stderr, "soakd: warning: every shard runs its own %s store: phases are not synchronised across shards\n", sc.Target.Kind)
			runID = ""
		case !canWait:
			fmt.Fprintf(a.Stderr, "soakd: warning: %s targets hold no phase barrier: phases are not synchronised across shards\n", sc.Target.Kind)
			runID = ""
		}
	}

	exp := rn.Exporter
	if f.listen != "" {
		reg := prometheus.NewRegistry()
		reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
		if err := exp.Register(reg); err != nil {
			fmt.Fprintf(a.Stderr, "soakd run: metrics: %v\n", err)
			return exitBadUsed, nil, out
		}
		ln, err := net.Listen("tcp", f.listen)
		if err != nil {
			fmt.Fprintf(a.Stderr, "soakd run: --listen %s: %v (use --listen 127.0.0.1:0 or --listen '' to turn metrics off)\n", f.listen, err)
			return exitBadUsed, nil, out
		}
		mux := http.NewServeMux()
		// Rendered once per interval and capped: scrapers cannot take the
		// schedule's CPU.
		mux.Handle("/metrics", metrics.NewScrapeHandler(reg, 0, 0, nil))
		srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
		go srv.Serve(ln)
		defer srv.Close()
		fmt.Fprintf(a.Stderr, "soakd: metrics on http://%s/metrics\n", ln.Addr())
	}
	targetLine := string(sc.Target.Kind)
	if sc.Target.URL != "" {
		targetLine += " " + scenarios.RedactURL(sc.Target.URL)
	}
	fmt.Fprintf(a.Stderr, "soakd: scenario %s, target: %s, run directory %s\n", sc.Name, targetLine, out)
	if !startAt.IsZero() {
		if late := a.Now().Sub(startAt); late > time.Second {
			fmt.Fprintf(a.Stderr, "soakd: warning: --start-at %s was %s ago; starting now, not in step with the other shards\n", startAt.UTC().Format(time.RFC3339Nano), late.Truncate(time.Millisecond))
		} else {
			fmt.Fprintf(a.Stderr, "soakd: shard %s waiting for start at %s\n", shard, startAt.UTC().Format(time.RFC3339Nano))
		}
		if err := waitUntil(ctx, startAt, a.Now); err != nil {
			fmt.Fprintln(a.Stderr, "soakd run: interrupted before --start-at")
			return exitBadUsed, nil, out
		}
	}
	sum, err := rn.Start(ctx, runID)
	measured = sum != nil
	if sum != nil {
		// The summary goes to stdout whatever happened to the files.
		fmt.Fprint(a.Stdout, report.Text(sum))
	}
	if err != nil {
		fmt.Fprintf(a.Stderr, "soakd run: %v\n", err)
		var werr *rundir.WriteError
		switch {
		case sum == nil:
			return exitBadUsed, nil, out
		case errors.As(err, &werr):
			fmt.Fprintf(a.Stderr, "soakd run: the summary above is the only copy of the results (exit %d)\n", exitNotWritten)
			return exitNotWritten, sum, out
		}
		a.wrote(out)
		return exitSLO, sum, out
	}
	a.wrote(out)
	if !sum.SLO.Passed {
		return exitSLO, sum, out
	}
	return exitOK, sum, out
}

func (a *App) validate(ctx context.Context, args []string) int {
	args, code, ok := a.parseCmd("validate", newFlagSet("validate"), args)
	if !ok {
		return code
	}
	if len(args) == 0 {
		fmt.Fprintln(a.Stderr, "soakd validate: give one or more scenario files")
		return exitBadUsed
	}
	bad := 0
	for i, path := range args {
		// Parsing is linear and files are capped at 4 MB, but a file may
		// be a FIFO or a slow mount: SIGINT ends validate at once.
		loaded := make(chan error, 1)
		var sc *scenarios.Scenario
		go func() {
			s, err := targets.LoadScenario(path)
			sc = s
			loaded <- err
		}()
		var err error
		select {
		case err = <-loaded:
		case <-ctx.Done():
			fmt.Fprintf(a.Stderr, "soakd validate: interrupted at %s (%d of %d files checked)\n", path, i, len(args))
			return exitBadUsed
		}
		if err != nil {
			bad++
			var ps scenarios.Problems
			if errors.As(err, &ps) {
				for _, p := range ps {
					fmt.Fprintln(a.Stderr, p.Error())
				}
			} else {
				fmt.Fprintln(a.Stderr, err)
			}
			continue
		}
		// Warnings do not make a file bad: it runs as written.
		for _, w := range sc.Warnings() {
			fmt.Fprintln(a.Stderr, w.Error())
		}
		fmt.Fprintf(a.Stdout, "%s: ok\n", path)
	}
	if bad > 0 {
		fmt.Fprintf(a.Stderr, "%d of %d files have problems\n", bad, len(args))
		return exitBadUsed
	}
	return exitOK
}

func (a *App) report(args []string) int {
	fs := newFlagSet("report")
	htmlOut := fs.String("html", "", "also write a self-contained HTML report with plots to FILE")
	sideBySide := fs.Bool("side-by-side", false, "one redis-benchmark style table of the runs (and their persistence variants) side by side, with each one's rps against the first's and its 95% interval; sweeps as throughput per point, one line per run or variant")
	control := fs.Bool("control", false, "with --side-by-side: also the A/A control (the first column's rounds split in two halves against each other): the noise floor")
	dirs, code, ok := a.parseCmd("report", fs, args)
	if !ok {
		return code
	}
	if len(dirs) == 0 {
		fmt.Fprintln(a.Stderr, "soakd report: give one or more run directories")
		return exitBadUsed
	}
	if *sideBySide {
		return a.reportSideBySide(dirs, *htmlOut, *control)
	}
	if len(dirs) > 1 {
		if code, done := a.reportMerged(dirs, *htmlOut); done {
			return code
		}
	}
	var sums []*rundir.Summary
	var tls []*report.Timeline
	for i, dir := range dirs {
		s, err := rundir.ReadSummary(dir)
		if errors.Is(err, os.ErrNotExist) {
			// A killed run leaves only latency.hlog.partial: show what
			// it recorded and say so.
			if ps, ending, perr := rundir.ReadPartial(dir); perr == nil {
				what := "the run was killed"
				if ps.Status == rundir.StatusWriteFailed {
					what = "the run's results could not be written"
				}
				fmt.Fprintf(a.Stderr, "soakd report: %s: %s (no summary.json); reading %s, %s\n", dir, what, rundir.PartialLog, ending)
				s, err = ps, nil
			} else if errors.Is(perr, os.ErrNotExist) {
				err = fmt.Errorf("%s: not a run directory (no summary.json and no %s)", dir, rundir.PartialLog)
			}
		}
		if err != nil {
			fmt.Fprintf(a.Stderr, "soakd report: %v\n", err)
			return exitBadUsed
		}
		sums = append(sums, s)
		if *htmlOut != "" {
			// Latency over time comes from latency.hlog; without it the
			// page still has every plot made from summary.json.
			tl, err := report.ReadTimeline(dir, s)
			if err != nil {
				fmt.Fprintf(a.Stderr, "soakd report: no latency-over-time plots for %s: %v\n", dir, err)
			}
			tls = append(tls, tl)
		}
		if i > 0 {
			fmt.Fprintln(a.Stdout, strings.Repeat("-", 60))
		}
		fmt.Fprint(a.Stdout, report.Text(s))
	}
	if *htmlOut != "" {
		if err := rundir.WriteFileAtomic(*htmlOut, report.ReportHTML(sums, tls)); err != nil {
			fmt.Fprintf(a.Stderr, "soakd report: --html: %v\n", err)
			return exitBadUsed
		}
		fmt.Fprintf(a.Stderr, "soakd: wrote %s\n", *htmlOut)
	}
	return exitOK
}

// reportSideBySide prints the runs in dirs (one column per run, or per
// persistence variant of a run) as one table.
func (a *App) reportSideBySide(dirs []string, htmlOut string, control bool) int {
	var sums []*rundir.Summary
	for _, dir := range dirs {
		s, err := rundir.ReadSummary(dir)
		if err != nil {
			fmt.Fprintf(a.Stderr, "soakd report --side-by-side: %v\n", err)
			return exitBadUsed
		}
		sums = append(sums, s)
	}
	cols := report.SuiteColumns(dirs, sums)
	if len(cols) < 2 && !control {
		fmt.Fprintf(a.Stderr, "soakd report --side-by-side: %s is one run without persistence variants: give two or more run directories (or --control for its noise floor)\n", dirs[0])
		return exitBadUsed
	}
	t := report.BuildSuite(cols)
	if len(t.Rows) == 0 && len(t.Sweeps) == 0 {
		fmt.Fprintln(a.Stderr, "soakd report --side-by-side: the runs have no steady, load or sweep phase to compare")
		return exitBadUsed
	}
	a.printSuite(&t, control)
	if htmlOut != "" {
		if err := rundir.WriteFileAtomic(htmlOut, report.SuiteHTML(t)); err != nil {
			fmt.Fprintf(a.Stderr, "soakd report: --html: %v\n", err)
			return exitBadUsed
		}
		fmt.Fprintf(a.Stderr, "soakd: wrote %s\n", htmlOut)
	}
	return exitOK
}

func (a *App) serve(ctx context.Context, args []string) int {
	fs := newFlagSet("serve")
	config := fs.String("config", "soakd.yaml", "daemon config `FILE`")
	pos, code, ok := a.parseCmd("serve", fs, args)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		fmt.Fprintf(a.Stderr, "soakd serve: unexpected argument %q (soakd serve --help)\n", pos[0])
		return exitBadUsed
	}
	cfg, err := daemon.LoadConfig(*config, a.Getenv)
	if err != nil {
		printProblems(a.Stderr, err)
		fmt.Fprintf(a.Stderr, "soakd serve: %s refused\n", *config)
		return exitBadUsed
	}
	d, err := daemon.New(cfg, daemon.Options{ConfigPath: *config, Getenv: a.Getenv, Log: a.Stderr,
		Reload: a.Reload, Now: a.Now, Version: version, OnListen: a.OnListen})
	if err != nil {
		fmt.Fprintf(a.Stderr, "soakd serve: %v\n", err)
		return exitBadUsed
	}
	if err := d.Run(ctx); err != nil {
		fmt.Fprintf(a.Stderr, "soakd serve: %v\n", err)
		return exitSLO
	}
	return exitOK
}

func printProblems(w io.Writer, err error) {
	var ps scenarios.Problems
	if errors.As(err, &ps) {
		for _, p := range ps {
			fmt.Fprintln(w, p.Error())
		}
		return
	}
	fmt.Fprintln(w, err)
}

// wrote says where the run went and how to see it as a page.
func (a *App) wrote(dir string) {
	fmt.Fprintf(a.Stderr, "soakd: wrote %s\nsoakd: HTML report: %s\n", dir, reportCommand(dir))
}
