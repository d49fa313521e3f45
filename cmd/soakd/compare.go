package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/soakd/soakd/daemon"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/verdict"
)

// compare judges CANDIDATE_DIR against BASELINE_DIR (each may be a
// comma-separated list of run directories: repeats): each steady
// phase's ops as candidate/baseline ratios of p50, p99 and p99.9 (and a
// closed-loop phase's throughput) with block-bootstrap confidence
// intervals over the runs' latency.hlog intervals
// (verdict.CompareIntervals); a regression only where the whole
// interval clears the threshold; with one run on a side the intervals
// are widened by the between-run drift (the other side's repeats,
// --controls, or assumed). Runs without an interval log fall back
// to the percentiles of their summaries, without an interval, and say
// so.
func (a *App) compare(args []string) int {
	fs := newFlagSet("compare")
	threshold := fs.Float64("threshold", verdict.DefaultRegressThreshold, "a regression needs the whole interval of candidate/baseline above 1+`FRACTION` (0.2 = 20% slower)")
	level := fs.Float64("level", verdict.DefaultLevel, "confidence level of the intervals (a `FRACTION`: 0.95 = 95%)")
	resamples := fs.Int("resamples", verdict.DefaultResamples, "bootstrap resamples (`N`)")
	seed := fs.Uint64("seed", 0, "bootstrap seed (`N`; same seed, same intervals)")
	asJSON := fs.Bool("json", false, "print the verdict as JSON (estimate, lo, hi per check)")
	allowUnlike := fs.Bool("allow-unlike", false, "compare runs of another scenario, target kind or rate anyway (with a warning)")
	allowHosts := fs.Bool("allow-unlike-hosts", false, "compare runs from unlike hosts (CPU, cores, kernel, memory, swap, THP, governor, cgroup limits) anyway (with a warning)")
	history := fs.String("history", "", "a daemon's data_dir (or a `DIR` of run directories): report change points across its completed runs")
	scenario := fs.String("scenario", "", "with --history: only the runs of the scenario named `NAME`")
	controls := fs.String("controls", "", "with one run a side: take the between-run drift from the A/A controls a daemon (data_dir `DIR`) ran of this scenario on this host, instead of assuming it")
	a.colorFlag(fs)
	pos, code, ok := a.parseCmd("compare", fs, args)
	if !ok {
		return code
	}
	if *history != "" {
		return a.compareHistory(*history, *scenario, pos)
	}
	if len(pos) != 2 {
		fmt.Fprintln(a.Stderr, "soakd compare: give BASELINE_DIR and CANDIDATE_DIR")
		return exitRefused
	}
	switch {
	case !(*threshold > 0):
		fmt.Fprintln(a.Stderr, "soakd compare: --threshold must be > 0")
		return exitRefused
	case !(*level > 0 && *level < 1):
		fmt.Fprintln(a.Stderr, "soakd compare: --level must be between 0 and 1 (0.95 = 95%)")
		return exitRefused
	case *resamples < 100:
		fmt.Fprintln(a.Stderr, "soakd compare: --resamples must be at least 100")
		return exitRefused
	}
	var sides [2][]*rundir.Summary
	var dirs [2][]string
	for i, arg := range pos {
		for _, d := range strings.Split(arg, ",") {
			if d == "" {
				continue
			}
			sum, err := rundir.ReadSummary(d)
			if err != nil {
				fmt.Fprintf(a.Stderr, "soakd compare: %v\n", err)
				return exitRefused
			}
			sides[i], dirs[i] = append(sides[i], sum), append(dirs[i], d)
		}
		if len(sides[i]) == 0 {
			fmt.Fprintln(a.Stderr, "soakd compare: give BASELINE_DIR and CANDIDATE_DIR")
			return exitRefused
		}
	}
	ref := sides[1][0]
	for i, side := range sides {
		for k, s := range side {
			if i == 1 && k == 0 {
				continue
			}
			for _, n := range provenanceNotes(s, ref) {
				fmt.Fprintf(a.Stderr, "soakd compare: note: %s: %s\n", dirs[i][k], n)
			}
			if hosts, _ := rundir.HostDiff(s.Host, ref.Host); len(hosts) > 0 {
				if !*allowHosts {
					fmt.Fprintf(a.Stderr, "soakd compare: the runs ran on unlike hosts: %s: %s (--allow-unlike-hosts compares them anyway)\n", dirs[i][k], strings.Join(hosts, "; "))
					return exitRefused
				}
				fmt.Fprintf(a.Stderr, "soakd compare: warning: unlike hosts: %s: %s\n", dirs[i][k], strings.Join(hosts, "; "))
			}
			why := verdict.Unlike(s, ref)
			if len(why) == 0 {
				continue
			}
			if !*allowUnlike {
				fmt.Fprintf(a.Stderr, "soakd compare: the runs are not comparable: %s: %s (--allow-unlike compares them anyway)\n", dirs[i][k], strings.Join(why, "; "))
				return exitRefused
			}
			fmt.Fprintf(a.Stderr, "soakd compare: warning: comparing unlike runs: %s: %s\n", dirs[i][k], strings.Join(why, "; "))
		}
	}
	var drift *verdict.Drift
	if *controls != "" {
		d, err := daemon.ControlsDrift(*controls, ref.Scenario, daemon.HostKey(ref))
		if err != nil {
			fmt.Fprintf(a.Stderr, "soakd compare: --controls: %v\n", err)
			return exitRefused
		}
		drift = d
	}
	v, err := compareRuns(dirs, sides, verdict.IntervalOptions{Threshold: *threshold,
		Bootstrap: verdict.BootstrapOptions{Level: *level, Resamples: *resamples, Seed: *seed}, Drift: drift}, *allowUnlike)
	if err != nil {
		fmt.Fprintf(a.Stderr, "soakd compare: %v\n", err)
		return exitRefused
	}
	if *asJSON {
		b, _ := json.MarshalIndent(v, "", "  ")
		fmt.Fprintln(a.Stdout, string(b))
	} else {
		a.printResult(v.Table())
	}
	if v.Regressed {
		return exitFailed
	}
	return exitOK
}

// compareRuns compares with intervals when every run has an interval
// log (several runs a side are repeats), else falls back to the first
// runs' summary percentiles (noted). A torn or unreadable latency.hlog
// is an error, not a silent fallback.
func compareRuns(dirs [2][]string, sides [2][]*rundir.Summary, o verdict.IntervalOptions, keepUnlike bool) (*verdict.Regression, error) {
	latency := func(tag string) bool { return strings.HasSuffix(tag, ".latency") }
	var missing []string
	var ivs [2][]verdict.RunIntervals
	for i := range dirs {
		for k, d := range dirs[i] {
			tags, _, err := rundir.ReadRunIntervals(d, latency)
			if err != nil {
				if errors.Is(err, os.ErrNotExist) {
					missing = append(missing, d)
					continue
				}
				return nil, err
			}
			ivs[i] = append(ivs[i], verdict.SteadyIntervals(sides[i][k], tags))
		}
	}
	if len(missing) == 0 {
		v := verdict.CompareIntervals(sides[0], sides[1], ivs[0], ivs[1], o)
		if len(v.Ops) > 0 || !hasSteadyOps(sides[1][0]) {
			return v, nil
		}
		missing = append(missing, "(no steady-phase intervals after warmup in the logs)")
	}
	v := verdict.Compare(sides[0][:1], sides[1][0], verdict.RegressOptions{Threshold: o.Threshold, K: verdict.DefaultRegressK, MinHistory: 1, KeepUnlike: keepUnlike})
	note := fmt.Sprintf("no latency.hlog in %s: the summaries' percentiles compared without an interval; one run each cannot tell a change from noise (a p99.9 from a few thousand ops moves 30%% by chance)", strings.Join(missing, ", "))
	if len(sides[0]) > 1 || len(sides[1]) > 1 {
		note += "; only the first run of each side was compared"
	}
	v.Notes = append(v.Notes, note)
	return v, nil
}

func hasSteadyOps(s *rundir.Summary) bool {
	for _, p := range s.Phases {
		if p.Kind.Compared() && len(p.Ops) > 0 {
			return true
		}
	}
	return false
}

// provenanceNotes names what differs between two runs' provenance and
// does not make them incomparable by itself: the workload's hash (a
// --seed, say), soakd's version, the server's version, the host's name
// and load.
func provenanceNotes(s, ref *rundir.Summary) []string {
	var out []string
	diff := func(what, x, y string) {
		if x != y && x != "" && y != "" {
			out = append(out, fmt.Sprintf("%s %s vs %s", what, x, y))
		}
	}
	diff("scenario hash", s.ScenarioHash, ref.ScenarioHash)
	diff("soakd version", s.SoakdVersion, ref.SoakdVersion)
	diff("server", s.Target.Server, ref.Target.Server)
	_, notes := rundir.HostDiff(s.Host, ref.Host)
	return append(out, notes...)
}
