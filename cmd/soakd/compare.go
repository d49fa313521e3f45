package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/verdict"
)

// compare judges CANDIDATE_DIR against BASELINE_DIR: each steady
// phase's ops as candidate/baseline ratios of p50, p99 and p99.9 (and a
// closed-loop phase's throughput) with block-bootstrap confidence
// intervals over the runs' latency.hlog intervals
// (verdict.CompareIntervals); a regression only where the whole
// interval clears the threshold. Runs without an interval log fall back
// to the percentiles of their summaries, without an interval, and say
// so.
func (a *App) compare(args []string) int {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	fs.SetOutput(a.Stderr)
	threshold := fs.Float64("threshold", verdict.DefaultRegressThreshold, "a regression needs the whole interval of candidate/baseline above 1+threshold (0.2 = 20% slower)")
	level := fs.Float64("level", verdict.DefaultLevel, "confidence level of the intervals")
	resamples := fs.Int("resamples", verdict.DefaultResamples, "bootstrap resamples")
	seed := fs.Uint64("seed", 0, "bootstrap seed (same seed, same intervals)")
	asJSON := fs.Bool("json", false, "print the verdict as JSON (estimate, lo, hi per check)")
	allowUnlike := fs.Bool("allow-unlike", false, "compare runs of another scenario, target kind or rate anyway (with a warning)")
	history := fs.String("history", "", "a daemon's data_dir (or a directory of run directories): report change points across its completed runs")
	scenario := fs.String("scenario", "", "with --history: only this scenario's runs")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return exitBadUsed
	}
	if *history != "" {
		return a.compareHistory(*history, *scenario, pos)
	}
	if len(pos) != 2 {
		fmt.Fprintln(a.Stderr, "soakd compare: give BASELINE_DIR and CANDIDATE_DIR")
		return exitBadUsed
	}
	switch {
	case !(*threshold > 0):
		fmt.Fprintln(a.Stderr, "soakd compare: --threshold must be > 0")
		return exitBadUsed
	case !(*level > 0 && *level < 1):
		fmt.Fprintln(a.Stderr, "soakd compare: --level must be between 0 and 1 (0.95 = 95%)")
		return exitBadUsed
	case *resamples < 100:
		fmt.Fprintln(a.Stderr, "soakd compare: --resamples must be at least 100")
		return exitBadUsed
	}
	base, err := rundir.ReadSummary(pos[0])
	if err != nil {
		fmt.Fprintf(a.Stderr, "soakd compare: %v\n", err)
		return exitBadUsed
	}
	cand, err := rundir.ReadSummary(pos[1])
	if err != nil {
		fmt.Fprintf(a.Stderr, "soakd compare: %v\n", err)
		return exitBadUsed
	}
	if why := verdict.Unlike(base, cand); len(why) > 0 {
		if !*allowUnlike {
			fmt.Fprintf(a.Stderr, "soakd compare: the runs are not comparable: %s (--allow-unlike compares them anyway)\n", strings.Join(why, "; "))
			return exitBadUsed
		}
		fmt.Fprintf(a.Stderr, "soakd compare: warning: comparing unlike runs: %s\n", strings.Join(why, "; "))
	}
	v, err := compareRuns(pos[0], pos[1], base, cand, verdict.IntervalOptions{Threshold: *threshold,
		Bootstrap: verdict.BootstrapOptions{Level: *level, Resamples: *resamples, Seed: *seed}}, *allowUnlike)
	if err != nil {
		fmt.Fprintf(a.Stderr, "soakd compare: %v\n", err)
		return exitBadUsed
	}
	if *asJSON {
		b, _ := json.MarshalIndent(v, "", "  ")
		fmt.Fprintln(a.Stdout, string(b))
	} else {
		fmt.Fprint(a.Stdout, v.Table())
	}
	if v.Regressed {
		return exitSLO
	}
	return exitOK
}

// compareRuns compares with intervals when both runs have an interval
// log, else falls back to the summaries' percentiles (noted). A torn
// or unreadable latency.hlog is an error, not a silent fallback.
func compareRuns(baseDir, candDir string, base, cand *rundir.Summary, o verdict.IntervalOptions, keepUnlike bool) (*verdict.Regression, error) {
	latency := func(tag string) bool { return strings.HasSuffix(tag, ".latency") }
	var missing []string
	var ivs [2]verdict.RunIntervals
	for i, d := range []string{baseDir, candDir} {
		tags, _, err := rundir.ReadRunIntervals(d, latency)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				missing = append(missing, d)
				continue
			}
			return nil, err
		}
		ivs[i] = verdict.SteadyIntervals([]*rundir.Summary{base, cand}[i], tags)
	}
	if len(missing) == 0 {
		v := verdict.CompareIntervals([]*rundir.Summary{base}, []*rundir.Summary{cand}, []verdict.RunIntervals{ivs[0]}, []verdict.RunIntervals{ivs[1]}, o)
		if len(v.Ops) > 0 || !hasSteadyOps(cand) {
			return v, nil
		}
		missing = append(missing, "(no steady-phase intervals after warmup in the logs)")
	}
	v := verdict.Compare([]*rundir.Summary{base}, cand, verdict.RegressOptions{Threshold: o.Threshold, K: verdict.DefaultRegressK, MinHistory: 1, KeepUnlike: keepUnlike})
	v.Notes = append(v.Notes, fmt.Sprintf("no latency.hlog in %s: the summaries' percentiles compared without an interval; one run each cannot tell a change from noise (a p99.9 from a few thousand ops moves 30%% by chance)", strings.Join(missing, ", ")))
	return v, nil
}

func hasSteadyOps(s *rundir.Summary) bool {
	for _, p := range s.Phases {
		if p.Kind == scenarios.PhaseSteady && len(p.Ops) > 0 {
			return true
		}
	}
	return false
}
