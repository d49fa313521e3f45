package main

import (
	"context"
	"fmt"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

func (a *App) validate(ctx context.Context, args []string) int {
	args, code, ok := a.parseCmd("validate", newFlagSet("validate"), args)
	if !ok {
		return code
	}
	if len(args) == 0 {
		fmt.Fprintln(a.Stderr, "soakd validate: give one or more scenario files")
		return exitRefused
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
			return exitRefused
		}
		if err != nil {
			bad++
			printProblems(a.Stderr, err)
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
		return exitRefused
	}
	return exitOK
}
