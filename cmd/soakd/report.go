package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/soakd/soakd/report"
	"github.com/soakd/soakd/rundir"
)

func (a *App) report(args []string) int {
	fs := newFlagSet("report")
	htmlOut := fs.String("html", "", "also write a self-contained HTML report with plots to `FILE`")
	sideBySide := fs.Bool("side-by-side", false, "one redis-benchmark style table of the runs (and their persistence variants) side by side, with each one's rps against the first's and its 95% interval; sweeps as throughput per point, one line per run or variant")
	asJSON := fs.Bool("json", false, "print each run as one line of JSON instead of the table: {dir, summary (summary.json), figures (what the table computes: verdicts in words, goodput, ratios, change points, notes)}")
	control := fs.Bool("control", false, "with --side-by-side: also the A/A control (the first column's rounds split in two halves against each other): the noise floor")
	a.colorFlag(fs)
	dirs, code, ok := a.parseCmd("report", fs, args)
	if !ok {
		return code
	}
	if len(dirs) == 0 {
		fmt.Fprintln(a.Stderr, "soakd report: give one or more run directories")
		return exitRefused
	}
	if *asJSON && *htmlOut != "" {
		fmt.Fprintln(a.Stderr, "soakd report: --json prints to stdout; give --html in a second run")
		return exitRefused
	}
	if *sideBySide {
		if *asJSON {
			fmt.Fprintln(a.Stderr, "soakd report: --json is for one or more runs, not --side-by-side")
			return exitRefused
		}
		return a.reportSideBySide(dirs, *htmlOut, *control)
	}
	if len(dirs) > 1 && !*asJSON {
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
			return exitRefused
		}
		sums = append(sums, s)
		if *asJSON {
			tl, _ := report.ReadTimeline(dir, s) // nil: the notes drawn from it are left out
			if err := json.NewEncoder(a.Stdout).Encode(reportJSON{Dir: dir, Summary: s, Figures: report.BuildFigures(s, tl)}); err != nil {
				fmt.Fprintf(a.Stderr, "soakd report: %v\n", err)
				return exitRefused
			}
			continue
		}
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
		a.printResult(report.Text(s))
	}
	if *htmlOut != "" {
		if err := rundir.WriteFileAtomic(*htmlOut, report.ReportHTML(sums, tls)); err != nil {
			fmt.Fprintf(a.Stderr, "soakd report: --html: %v\n", err)
			return exitRefused
		}
		fmt.Fprintf(a.Stderr, "soakd: wrote %s\n", *htmlOut)
	}
	return exitOK
}

// reportJSON is one run as `soakd report --json` prints it.
type reportJSON struct {
	Dir     string          `json:"dir"`
	Summary *rundir.Summary `json:"summary"`
	Figures report.Figures  `json:"figures"`
}

// reportSideBySide prints the runs in dirs (one column per run, or per
// persistence variant of a run) as one table.
func (a *App) reportSideBySide(dirs []string, htmlOut string, control bool) int {
	var sums []*rundir.Summary
	for _, dir := range dirs {
		s, err := rundir.ReadSummary(dir)
		if err != nil {
			fmt.Fprintf(a.Stderr, "soakd report --side-by-side: %v\n", err)
			return exitRefused
		}
		sums = append(sums, s)
	}
	cols := report.SuiteColumns(dirs, sums)
	if len(cols) < 2 && !control {
		fmt.Fprintf(a.Stderr, "soakd report --side-by-side: %s is one run without persistence variants: give two or more run directories (or --control for its noise floor)\n", dirs[0])
		return exitRefused
	}
	t := report.BuildSuite(cols)
	if len(t.Rows) == 0 && len(t.Sweeps) == 0 {
		fmt.Fprintln(a.Stderr, "soakd report --side-by-side: the runs have no steady, load or sweep phase to compare")
		return exitRefused
	}
	a.printSuite(&t, control)
	if htmlOut != "" {
		if err := rundir.WriteFileAtomic(htmlOut, report.SuiteHTML(t)); err != nil {
			fmt.Fprintf(a.Stderr, "soakd report: --html: %v\n", err)
			return exitRefused
		}
		fmt.Fprintf(a.Stderr, "soakd: wrote %s\n", htmlOut)
	}
	return exitOK
}

// reportMerged merges several run dirs when they are shards of one run
// (any of them has a shard count above 1). done=false means the dirs are
// independent unsharded runs, printed one after another.
func (a *App) reportMerged(dirs []string, htmlOut string) (code int, done bool) {
	sharded := false
	for _, d := range dirs {
		if s, err := rundir.ReadSummary(d); err == nil && s.Shard.Count > 1 {
			sharded = true
		}
	}
	if !sharded {
		// A missing/killed dir among unsharded ones is still an error.
		for _, d := range dirs {
			if _, err := rundir.ReadSummary(d); err != nil {
				fmt.Fprintf(a.Stderr, "soakd report: %v\n", err)
				return exitRefused, true
			}
		}
		return 0, false
	}
	m, err := report.MergeRunDirs(dirs)
	if err != nil {
		fmt.Fprintf(a.Stderr, "soakd report: %v\n", err)
		return exitRefused, true
	}
	a.printResult(m.Text())
	if htmlOut != "" {
		// Latency over time from every shard's latency.hlog, merged per
		// bucket; without them the page still has every other plot.
		tl, err := m.Timeline()
		if err != nil {
			fmt.Fprintf(a.Stderr, "soakd report: no latency-over-time plots: %v\n", err)
		}
		if err := rundir.WriteFileAtomic(htmlOut, report.ReportHTML([]*rundir.Summary{m.Summary()}, []*report.Timeline{tl})); err != nil {
			fmt.Fprintf(a.Stderr, "soakd report: --html: %v\n", err)
			return exitRefused, true
		}
		fmt.Fprintf(a.Stderr, "soakd: wrote %s\n", htmlOut)
	}
	return exitOK, true
}
