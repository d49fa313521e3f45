package main

import (
	"fmt"

	"github.com/soakd/soakd/report"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/verdict"
)

// printSuite reads the columns' latency logs, estimates the intervals
// and prints the side-by-side table and the sweeps' table.
func (a *App) printSuite(t *report.SuiteTable, control bool) {
	t.ShowControl = control
	if err := t.LoadIntervals(func(c report.SuiteColumn) string { return c.Source }); err != nil {
		fmt.Fprintf(a.Stderr, "soakd: side by side: intervals from the summaries alone (rounds only): %v\n", err)
	}
	t.Estimate(verdict.BootstrapOptions{})
	if len(t.Rows) > 0 {
		fmt.Fprint(a.Stdout, t.Text())
	}
	if len(t.Sweeps) > 0 {
		fmt.Fprint(a.Stdout, t.SweepText())
	}
}

// printControl prints, for run --control, the run's side-by-side table
// from its run directory with the A/A control column.
func (a *App) printControl(f runFlags, dir string, sum *rundir.Summary) {
	if !f.control || sum == nil || dir == "" {
		return
	}
	t := report.BuildSuite(report.SuiteColumns([]string{dir}, []*rundir.Summary{sum}))
	if len(t.Rows) == 0 && len(t.Sweeps) == 0 {
		return
	}
	fmt.Fprintln(a.Stdout)
	a.printSuite(&t, true)
}
