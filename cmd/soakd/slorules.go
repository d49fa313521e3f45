package main

import (
	"fmt"
	"os"

	"github.com/soakd/soakd/burnrate"
	"github.com/soakd/soakd/targets"
)

// sloRules is `soakd slo-rules`: the burn-rate rules of scenarios' SLOs.
func (a *App) sloRules(args []string) int {
	fs := newFlagSet("slo-rules")
	out := fs.String("out", "", "write the rules to `FILE` (default stdout)")
	url := fs.String("daemon-url", burnrate.DefaultDaemonURL, "the daemon's page as people reach it; each alert links its scenario's page there")
	scale := fs.Int("window-scale", 1, "divide every window by `N` (short windows for a test, through the same rules)")
	args, code, ok := a.parseCmd("slo-rules", fs, args)
	if !ok {
		return code
	}
	if len(args) == 0 {
		fmt.Fprintln(a.Stderr, "soakd slo-rules: give scenario files or directories")
		return exitRefused
	}
	if *scale < 1 {
		fmt.Fprintln(a.Stderr, "soakd slo-rules: --window-scale must be 1 or more")
		return exitRefused
	}
	files, err := burnrate.Files(args)
	if err == nil && len(files) == 0 {
		err = fmt.Errorf("no scenario files in %v", args)
	}
	if err != nil {
		fmt.Fprintln(a.Stderr, "soakd slo-rules:", err)
		return exitRefused
	}
	rules, err := burnrate.Generate(files, targets.LoadScenario, burnrate.Options{
		Tiers: burnrate.Scaled(burnrate.Workbook(), *scale), DaemonURL: *url})
	if err != nil {
		printProblems(a.Stderr, err)
		return exitRefused
	}
	if *out == "" {
		a.Stdout.Write(rules)
		return exitOK
	}
	if err := os.WriteFile(*out, rules, 0o644); err != nil {
		fmt.Fprintln(a.Stderr, "soakd slo-rules:", err)
		return exitRefused
	}
	return exitOK
}
