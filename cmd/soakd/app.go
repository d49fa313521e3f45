package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"github.com/soakd/soakd/internal/suggest"
	"github.com/soakd/soakd/internal/swapfile"
	"github.com/soakd/soakd/scenarios"
)

// Exit codes.
const (
	exitOK = 0
	// exitFailed: the command did its work and the result is a failure:
	// an SLO not met, a run that ended early (interrupted, its target
	// down), a regression (compare), the daemon ending on an error.
	exitFailed = 1
	// exitRefused: nothing (or nothing usable) ran: a bad flag or input,
	// an unreachable target, a run that could not start, a directory
	// that holds no run, runs that cannot be compared.
	exitRefused = 2
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
	// Terminal reports whether a writer (Stdout, Stderr) is a terminal:
	// a progress line rewritten in place, colour (nil: none is).
	Terminal func(io.Writer) bool

	// noColor is --no-color.
	noColor bool
	// quiet is run --quiet: no progress, no start line.
	quiet bool
}

// Main runs a command line and returns the exit code.
func (a *App) Main(ctx context.Context, args []string) int {
	if len(args) == 0 {
		fmt.Fprint(a.Stderr, shortUsage())
		return exitRefused
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
	case "slo-rules":
		return a.sloRules(args[1:])
	case "version", "--version":
		if _, code, ok := a.parseCmd("version", newFlagSet("version"), args[1:]); !ok {
			return code
		}
		fmt.Fprintln(a.Stdout, "soakd", version)
		return exitOK
	case "help", "-h", "--help", "-help":
		return a.help(ctx, args[1:])
	}
	fmt.Fprintf(a.Stderr, "soakd: unknown command %q%s\n%s", args[0], commandHint(args[0]), shortUsage())
	return exitRefused
}

// commandHint is the "did you mean" for a mistyped command, or "".
func commandHint(cmd string) string {
	var names []string
	for _, c := range commandDocs {
		names = append(names, c.name)
	}
	return suggest.DidYouMean(cmd, names)
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
