package main

import (
	"fmt"

	"github.com/soakd/soakd/daemon"
)

// compareHistory is soakd compare --history: the change-point detector
// over each scenario's completed runs, in start order, one line per
// shift naming the first run after it. Shifts are findings, not a
// verdict: the exit status is 0 unless the directory cannot be read.
func (a *App) compareHistory(dir, scenario string, pos []string) int {
	if len(pos) > 0 {
		fmt.Fprintln(a.Stderr, "soakd compare: --history takes no run directories")
		return exitRefused
	}
	skipped := 0
	runs, err := daemon.ReadHistoryReporting(dir, scenario, func(path string, err error) {
		skipped++
		fmt.Fprintf(a.Stderr, "soakd compare: skipping %s: %v\n", path, err)
	})
	if err != nil {
		fmt.Fprintf(a.Stderr, "soakd compare: %v\n", err)
		return exitRefused
	}
	if len(runs) == 0 {
		fmt.Fprintf(a.Stderr, "soakd compare: no completed runs in %s\n", dir)
		return exitRefused
	}
	if skipped > 0 {
		fmt.Fprintf(a.Stderr, "soakd compare: %d run(s) left out of the history: their summary.json could not be read\n", skipped)
	}
	shifts := daemon.HistoryShifts(runs)
	fmt.Fprintf(a.Stdout, "%d completed runs, %d shifts (E-divisive change points, p <= 0.005)\n", len(runs), len(shifts))
	for _, s := range shifts {
		fmt.Fprintln(a.Stdout, s)
	}
	return exitOK
}
