package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/soakd/soakd/targets"
)

// commandDoc is one command's help: how it is called and what it does.
type commandDoc struct {
	name     string
	synopsis []string
	about    string
}

// commandDocs lists every command, in the order the top-level help shows
// them.
var commandDocs = []commandDoc{
	{"run", []string{"soakd run SCENARIO.yaml [--target URL]... [flags]", "soakd run --resume RUN_DIR [--force]"},
		"Run one scenario in the foreground: a progress line on stderr (in place each second on a terminal,\n" +
			"one a minute and at each phase's start and end otherwise), /metrics on --listen,\n" +
			"the summary table on stdout and the run directory (summary.json, latency.hlog, ...) at the end.\n" +
			"Exit 0 SLOs held, 1 they did not (or the run was interrupted), 2 bad input, 3 results not written."},
	{"validate", []string{"soakd validate SCENARIO.yaml..."},
		"Check scenario files: every problem in every file at once, as file:line: field: message.\n" +
			"Exit 2 on any problem."},
	{"report", []string{
		"soakd report RUN_DIR... [--html FILE]",
		"soakd report --side-by-side RUN_DIR... [--control] [--html FILE]"},
		"Print the summary table of run directories (shard directories of one run merge into one table);\n" +
			"--html also writes a self-contained HTML page with the plots. --side-by-side: one redis-benchmark\n" +
			"style table of several runs (or a run's persistence variants), rps against the first column's."},
	{"compare", []string{
		"soakd compare BASELINE_DIR[,DIR...] CANDIDATE_DIR[,DIR...] [flags]",
		"soakd compare --history DATA_DIR [--scenario NAME]"},
		"Per-op latency verdict of a candidate run against a baseline (95% block-bootstrap intervals);\n" +
			"exit 1 on a regression. --history: change points across a daemon's completed runs."},
	{"serve", []string{"soakd serve --config soakd.yaml"},
		"The daemon: cron schedules, continuous soaks, the HTTP API (/api/v1/...), run history and\n" +
			"regression verdicts. SIGHUP reloads the config."},
	{"slo-rules", []string{"soakd slo-rules [--out FILE] [--daemon-url URL] SCENARIO.yaml|DIR..."},
		"Prometheus rules that page on the error budgets of the scenarios' SLOs: multi-window, multi-burn-rate\n" +
			"alerts (14.4x over 1h and 5m, 6x over 6h and 30m page; 1x over 3d and 6h is a ticket).\n" +
			"go generate ./burnrate writes deploy/prometheus/rules/soakd-slo.yml from scenarios/."},
	{"version", []string{"soakd version"}, "Print soakd's version."},
	{"help", []string{"soakd help [COMMAND]"}, "This help, or one command's (also: soakd COMMAND --help)."},
}

// targetsHelp names the stores soakd drives and their URL schemes, from
// the registry: each store that takes URLs on a line of its own, then
// those that take none.
func targetsHelp() string {
	var b strings.Builder
	b.WriteString("targets (--target URL, or target.url in the scenario):\n")
	var none []string
	for _, d := range targets.Docs() {
		if len(d.URLSchemes) == 0 {
			none = append(none, d.Help)
			continue
		}
		schemes := make([]string, len(d.URLSchemes))
		for i, s := range d.URLSchemes {
			schemes[i] = s + "://"
		}
		fmt.Fprintf(&b, "  %-31s%s\n", strings.Join(schemes, ", "), d.Help)
	}
	for _, h := range none {
		fmt.Fprintf(&b, "  %-31s%s\n", "(none)", h)
	}
	return b.String()
}

// storeTitles lists the stores' titles as the one-line description
// gives them: "Redis, MongoDB and Elasticsearch".
func storeTitles() string {
	var titles []string
	for _, d := range targets.Docs() {
		if d.Title != "" {
			titles = append(titles, d.Title)
		}
	}
	if len(titles) < 2 {
		return strings.Join(titles, "")
	}
	return strings.Join(titles[:len(titles)-1], ", ") + " and " + titles[len(titles)-1]
}

// topHelp is `soakd help`: every command, every target kind and every
// run flag (read from run's own flag set, so none is left out).
func topHelp() string {
	var b strings.Builder
	b.WriteString("soakd — soak and capacity testing for " + storeTitles() + "\n\n")
	b.WriteString("usage:\n")
	for _, c := range commandDocs {
		for _, s := range c.synopsis {
			fmt.Fprintf(&b, "  %s\n", s)
		}
	}
	b.WriteString("\n'soakd COMMAND --help' shows one command's flags.\n\n")
	b.WriteString(targetsHelp())
	b.WriteString("\nrun flags:\n")
	var f runFlags
	writeFlags(&b, runFlagSet(&f))
	return b.String()
}

// shortUsage is what a bare `soakd` or an unknown command prints.
func shortUsage() string {
	var b strings.Builder
	b.WriteString("usage:\n")
	for _, c := range commandDocs {
		for _, s := range c.synopsis {
			fmt.Fprintf(&b, "  %s\n", s)
		}
	}
	b.WriteString("'soakd help' lists every flag and target kind.\n")
	return b.String()
}

// commandHelp is `soakd CMD --help`.
func commandHelp(cmd string, fs *flag.FlagSet) string {
	var b strings.Builder
	for _, c := range commandDocs {
		if c.name != cmd {
			continue
		}
		b.WriteString("usage:\n")
		for _, s := range c.synopsis {
			fmt.Fprintf(&b, "  %s\n", s)
		}
		fmt.Fprintf(&b, "\n%s\n", c.about)
	}
	if cmd == "run" {
		b.WriteString("\n" + targetsHelp())
	}
	if fs != nil {
		n := 0
		fs.VisitAll(func(*flag.Flag) { n++ })
		if n > 0 {
			b.WriteString("\nflags:\n")
			writeFlags(&b, fs)
		}
	}
	return b.String()
}

// goTypeNames are the value names flag.UnquoteUsage falls back on
// when a usage string names none: Go's words, not a user's.
var goTypeNames = map[string]bool{"float": true, "int": true, "uint": true, "string": true, "duration": true, "value": true}

// writeFlags lists fs's flags as users type them (--name), each with
// its usage and default.
func writeFlags(b *strings.Builder, fs *flag.FlagSet) {
	fs.VisitAll(func(fl *flag.Flag) {
		kind, usage := flag.UnquoteUsage(fl)
		if goTypeNames[kind] {
			// A usage without a `NAME` would show Go's type (--level
			// float): name the value after the flag instead.
			kind = strings.ToUpper(strings.ReplaceAll(fl.Name, "-", "_"))
		}
		fmt.Fprintf(b, "  --%s", fl.Name)
		if kind != "" {
			fmt.Fprintf(b, " %s", kind)
		}
		b.WriteString("\n      ")
		b.WriteString(strings.ReplaceAll(usage, "\n", "\n      "))
		if fl.DefValue != "" && fl.DefValue != "0" && fl.DefValue != "false" {
			fmt.Fprintf(b, " (default %s)", fl.DefValue)
		}
		b.WriteString("\n")
	})
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
	fmt.Fprintf(a.Stderr, "soakd help: unknown command %q%s\n%s", args[0], commandHint(args[0]), shortUsage())
	return exitRefused
}
