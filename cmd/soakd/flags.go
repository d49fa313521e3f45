package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/soakd/soakd/internal/runpath"
	"github.com/soakd/soakd/internal/suggest"
)

// newFlagSet is a command's flag set whose output soakd writes itself:
// help on stdout (exit 0), a bad flag as one line on stderr naming it
// with a hint (exit 2), never the whole usage after an error.
func newFlagSet(cmd string) *flag.FlagSet {
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parseCmd parses cmd's arguments (flags before or after the positional
// ones). ok is false when the command ends here, with code: its help
// was asked for (-h, --help: printed on stdout, exit 0) or a flag was
// bad (one line on stderr, exit 2).
func (a *App) parseCmd(cmd string, fs *flag.FlagSet, args []string) (pos []string, code int, ok bool) {
	pos, err := parseInterspersed(fs, args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(a.Stdout, commandHelp(cmd, fs))
		return nil, exitOK, false
	case err != nil:
		fmt.Fprintf(a.Stderr, "soakd %s: %s\n", cmd, flagError(cmd, fs, err))
		return nil, exitRefused, false
	}
	return pos, exitOK, true
}

// parseInterspersed parses flags that may come before or after the
// positional arguments (soakd run file.yaml --rate 100).
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// invalidValue matches the flag package's error for a value its flag
// refused: `invalid value "5k" for flag -rate: parse error` (booleans:
// `invalid boolean value "x" for -quiet: ...`).
var invalidValue = regexp.MustCompile(`^invalid (boolean )?value ("(?:[^"\\]|\\.)*") for (?:flag )?-([^:]+): (.*)$`)

// flagError is the flag package's parse error as one line for a person:
// the flag as typed (--name), its value and how to fix it.
func flagError(cmd string, fs *flag.FlagSet, err error) string {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		name = strings.TrimPrefix(name, "-")
		var names []string
		fs.VisitAll(func(fl *flag.Flag) { names = append(names, fl.Name) })
		hint := ""
		if c := suggest.Closest(name, names); c != "" {
			hint = fmt.Sprintf(" (did you mean --%s?)", c)
		}
		return fmt.Sprintf("unknown flag --%s%s (soakd %s --help lists the flags)", name, hint, cmd)
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		name = strings.TrimPrefix(name, "-")
		if fl := fs.Lookup(name); fl != nil {
			return fmt.Sprintf("--%s needs a value (%s)", name, valueHint(fl, ""))
		}
		return fmt.Sprintf("--%s needs a value", name)
	}
	m := invalidValue.FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	value, uerr := strconv.Unquote(m[2])
	if uerr != nil {
		value = m[2]
	}
	name, why := m[3], m[4]
	fl := fs.Lookup(name)
	if fl == nil {
		return msg
	}
	if _, own := fl.Value.(hinted); own {
		// soakd's own values say how to fix them.
		return fmt.Sprintf("--%s %s: %s", name, value, why)
	}
	return fmt.Sprintf("--%s %s: %s", name, value, valueHint(fl, value))
}

// hinted is a flag value whose Set errors are already hints; hint is
// the one for a missing value.
type hinted interface{ hint() string }

// flagExamples are example values for hints where the default is no
// example (0, empty).
var flagExamples = map[string]string{
	"concurrency": "32",
	"repeat":      "5",
	"seed":        "42",
	"resamples":   "2000",
}

// valueHint says what a value of fl looks like, from its type.
func valueHint(fl *flag.Flag, value string) string {
	if h, ok := fl.Value.(hinted); ok {
		return h.hint()
	}
	example := flagExamples[fl.Name]
	if example == "" && fl.DefValue != "0" && fl.DefValue != "" && fl.DefValue != "0s" {
		example = fl.DefValue
	}
	g, ok := fl.Value.(flag.Getter)
	if !ok {
		return "see soakd --help"
	}
	switch g.Get().(type) {
	case time.Duration:
		if _, err := strconv.ParseFloat(strings.TrimSpace(value), 64); err == nil && value != "" {
			return runpath.DurationHint(value)
		}
		if example == "" {
			example = "30s"
		}
		return "use a duration like " + example
	case int, int64, uint, uint64:
		if example == "" {
			example = "10"
		}
		return "use a whole number like " + example
	case float64:
		if example == "" {
			example = "1.5"
		}
		return "use a number like " + example
	case bool:
		return fmt.Sprintf("use --%s or --%s=false", fl.Name, fl.Name)
	}
	return "see soakd --help"
}

// rateValue is --rate: ops/s as a plain number (runpath.ParseRate, the
// API's parser too).
type rateValue struct {
	rate *float64
}

func (r rateValue) String() string {
	if r.rate == nil {
		return "0"
	}
	return strconv.FormatFloat(*r.rate, 'g', -1, 64)
}

func (r rateValue) Set(s string) error {
	v, err := runpath.ParseRate(s)
	if err != nil {
		return err
	}
	*r.rate = v
	return nil
}

func (r rateValue) Get() any { return *r.rate }

func (rateValue) hint() string {
	_, err := runpath.ParseRate("")
	return err.Error()
}
