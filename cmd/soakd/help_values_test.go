package main

import (
	"context"
	"regexp"
	"strings"
	"testing"
)

// goTypeValue is a flag line of a help page that names its value by Go's
// type (--level float) instead of what to give.
var goTypeValue = regexp.MustCompile(`(?m)^  --[a-z-]+ (float|int|uint|string|duration|value)$`)

// TestHelpNamesValues: no command's help shows a flag's Go type as its
// value; compare's read FRACTION, N, DIR.
func TestHelpNamesValues(t *testing.T) {
	for _, c := range commandDocs {
		if c.name == "help" {
			continue
		}
		a, out, _ := newApp()
		a.Main(context.Background(), []string{c.name, "--help"})
		if m := goTypeValue.FindAllString(out.String(), -1); len(m) > 0 {
			t.Errorf("soakd %s --help shows Go types: %q", c.name, m)
		}
	}
	a, out, _ := newApp()
	a.Main(context.Background(), []string{"compare", "--help"})
	for _, want := range []string{"  --level FRACTION\n", "  --threshold FRACTION\n", "  --resamples N\n", "  --history DIR\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("compare --help lacks %q:\n%s", want, out)
		}
	}
}

// TestDidYouMeanOnTheCommandLine: a mistyped command or flag names the
// one meant.
func TestDidYouMeanOnTheCommandLine(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"rnu"}, `soakd: unknown command "rnu" (did you mean "run"?)`},
		{[]string{"help", "comapre"}, `soakd help: unknown command "comapre" (did you mean "compare"?)`},
		{[]string{"run", "x.yaml", "--qiuet"}, "soakd run: unknown flag --qiuet (did you mean --quiet?) (soakd run --help lists the flags)"},
		{[]string{"compare", "--levle", "0.9"}, "soakd compare: unknown flag --levle (did you mean --level?)"},
		{[]string{"report", "--frobnicate"}, "soakd report: unknown flag --frobnicate (soakd report --help lists the flags)"},
	} {
		a, _, errb := newApp()
		if code := a.Main(context.Background(), c.args); code != exitRefused || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: exit %d\n%s\nwant %q", c.args, code, errb, c.want)
		}
	}
}
