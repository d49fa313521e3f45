package main

import (
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/soakd/soakd/internal/term"
)

// progressEvery is how often a run's progress line is written when
// stderr is not a terminal (a log, a pipe, CI), beside each phase's
// first and last line; on a terminal the line is rewritten in place each
// second instead.
const progressEvery = time.Minute

// terminal reports whether w is a terminal (App.Terminal; nil: none is).
func (a *App) terminal(w io.Writer) bool { return a.Terminal != nil && a.Terminal(w) }

// colorFlag adds --no-color to a command that prints verdicts.
func (a *App) colorFlag(fs *flag.FlagSet) {
	fs.BoolVar(&a.noColor, "no-color", false, "no colour for PASS/FAIL/REGRESSION, even on a terminal (so does NO_COLOR set to anything)")
}

// printResult writes text, a summary or a verdict, to stdout: with its
// verdict words in colour on a terminal, unless --no-color or NO_COLOR
// says not to.
func (a *App) printResult(text string) {
	if a.terminal(a.Stdout) && !a.noColor && !term.NoColor(a.Getenv) {
		text = term.Colorize(text)
	}
	fmt.Fprint(a.Stdout, text)
}

// progressOut is where a run's progress lines go and how often one is
// written (runpath.Options): none with --quiet; on a terminal, a status
// line rewritten in place each second; elsewhere stderr, a line a
// minute. restore undoes it: on a terminal, stderr goes through the
// status line while the run lasts, so a warning is written above the
// line instead of after it.
func (a *App) progressOut(quiet bool) (w io.Writer, every time.Duration, restore func()) {
	switch {
	case quiet:
		return nil, 0, func() {}
	case a.terminal(a.Stderr):
		stderr := a.Stderr
		l := term.NewLine(stderr, func() int { return term.Width(stderr) })
		a.Stderr = l
		return l, progressEvery, func() {
			l.Live("")
			a.Stderr = stderr
		}
	}
	return a.Stderr, progressEvery, func() {}
}

// debugEnv turns on soakd's debug output: third-party log lines.
const debugEnv = "SOAKD_DEBUG"

// redisLog is where go-redis's own log lines go (targets/redis.SetLogger,
// every URL in them redacted): nowhere unless SOAKD_DEBUG is set, then
// w. They are noise to a person running soakd: a managed server's start
// is waited for by dialling it until it answers, and go-redis logs
// every refused dial; what fails an op is counted and reported as the
// op's error either way.
func redisLog(getenv func(string) string, w io.Writer) func(string) {
	if getenv(debugEnv) == "" {
		return func(string) {}
	}
	return func(msg string) { fmt.Fprintf(w, "soakd: go-redis: %s\n", msg) }
}
