package main

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// termApp is newApp with its streams taken for terminals (tty) or not,
// and env as its environment.
func termApp(tty bool, env map[string]string) (*App, *bytes.Buffer, *bytes.Buffer) {
	a, out, errb := newApp()
	a.Terminal = func(io.Writer) bool { return tty }
	a.Getenv = func(k string) string { return env[k] }
	return a, out, errb
}

// ownLine matches a progress line that ends in a newline: on a
// terminal it follows the erase of the line it replaces.
var ownLine = regexp.MustCompile(`(^|\n|\x1b\[2K)\[steady-1 [^\r\n]*\n`)

const (
	clearLineSeq = "\r\x1b[2K"
	greenPassed  = "\x1b[32mPASSED\x1b[0m"
)

// TestRunOnATerminal: on a terminal the progress line is rewritten in
// place (carriage return, erase line) and the phase's last line stays;
// the summary's verdict is in colour unless NO_COLOR (any value) or
// --no-color says not to. Not on a terminal: plain lines, no colour,
// whatever the flags.
func TestRunOnATerminal(t *testing.T) {
	dir := t.TempDir()
	sc := write(t, dir, "q.yaml", quickScenario)
	for _, c := range []struct {
		name        string
		tty         bool
		env         map[string]string
		args        []string
		live, paint bool
	}{
		{"terminal", true, nil, nil, true, true},
		{"NO_COLOR", true, map[string]string{"NO_COLOR": "1"}, nil, true, false},
		{"--no-color", true, nil, []string{"--no-color"}, true, false},
		{"pipe", false, nil, nil, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, out, errb := termApp(c.tty, c.env)
			args := append([]string{"run", sc, "--out", filepath.Join(t.TempDir(), "run"), "--listen", ""}, c.args...)
			if code := a.Main(context.Background(), args); code != 0 {
				t.Fatalf("exit %d\n%s", code, errb)
			}
			if got := strings.Contains(errb.String(), clearLineSeq+"[steady-1 "); got != c.live {
				t.Errorf("progress line in place: %v, want %v:\n%q", got, c.live, errb)
			}
			if !ownLine.MatchString(errb.String()) {
				// In place or not, the phase ends on a line of its own.
				t.Errorf("no progress line of its own:\n%q", errb)
			}
			if !c.live && strings.Contains(errb.String(), "\x1b") {
				t.Errorf("escape sequences where no terminal is:\n%q", errb)
			}
			if got := strings.Contains(out.String(), greenPassed); got != c.paint {
				t.Errorf("verdict in colour: %v, want %v:\n%q", got, c.paint, out)
			}
			if !c.paint && strings.Contains(out.String(), "\x1b") {
				t.Errorf("escape sequences in the summary:\n%q", out)
			}
			if !strings.Contains(out.String(), "SLO PASSED") && !strings.Contains(out.String(), "SLO "+greenPassed) {
				t.Errorf("no verdict in the summary:\n%q", out)
			}
		})
	}
}

// TestRunQuiet: --quiet leaves the summary on stdout, and on stderr only
// where the run went: no progress line, no start line.
func TestRunQuiet(t *testing.T) {
	dir := t.TempDir()
	sc := write(t, dir, "q.yaml", quickScenario)
	a, out, errb := termApp(true, nil)
	if code := a.Main(context.Background(), []string{"run", sc, "--out", filepath.Join(dir, "run"), "--listen", "", "--quiet"}); code != 0 {
		t.Fatalf("exit %d\n%s", code, errb)
	}
	for _, no := range []string{"[steady-1", "soakd: scenario", "\x1b"} {
		if strings.Contains(errb.String(), no) {
			t.Errorf("stderr with --quiet has %q:\n%q", no, errb)
		}
	}
	if !strings.Contains(errb.String(), "soakd: wrote ") {
		t.Errorf("stderr with --quiet does not say where the run went:\n%s", errb)
	}
	if !strings.Contains(out.String(), "SLO "+greenPassed) {
		t.Errorf("no summary (in colour on a terminal):\n%q", out)
	}
}

// TestReportColour: report and compare paint their verdict words on a
// terminal only, and not with --no-color.
func TestReportColour(t *testing.T) {
	dir := t.TempDir()
	sc := write(t, dir, "q.yaml", quickScenario)
	run := filepath.Join(dir, "run")
	a, _, errb := newApp()
	if code := a.Main(context.Background(), []string{"run", sc, "--out", run, "--listen", "", "--quiet"}); code != 0 {
		t.Fatalf("exit %d\n%s", code, errb)
	}
	for _, c := range []struct {
		tty   bool
		args  []string
		paint bool
	}{
		{true, nil, true},
		{true, []string{"--no-color"}, false},
		{false, nil, false},
	} {
		a, out, errb := termApp(c.tty, nil)
		if code := a.Main(context.Background(), append([]string{"report", run}, c.args...)); code != 0 {
			t.Fatalf("report: exit %d\n%s", code, errb)
		}
		if got := strings.Contains(out.String(), greenPassed); got != c.paint || (!c.paint && strings.Contains(out.String(), "\x1b")) {
			t.Errorf("report (terminal %v, %v): colour %v, want %v:\n%q", c.tty, c.args, got, c.paint, out)
		}
	}
	a, out, errb := termApp(true, nil)
	a.Main(context.Background(), []string{"compare", run, run, "--no-color"})
	if strings.Contains(out.String(), "\x1b") {
		t.Errorf("compare --no-color painted:\n%q\n%s", out, errb)
	}
}

// TestRedisLogIsDebug: go-redis's own lines (a managed server's refused
// dials while it starts) are dropped unless SOAKD_DEBUG is set.
func TestRedisLogIsDebug(t *testing.T) {
	var b bytes.Buffer
	redisLog(func(string) string { return "" }, &b)("redis: connection pool: failed to dial after 5 attempts: dial tcp 127.0.0.1:6390: connect: connection refused")
	if b.Len() != 0 {
		t.Errorf("go-redis line printed without SOAKD_DEBUG: %q", b.String())
	}
	redisLog(func(k string) string { return map[string]string{debugEnv: "1"}[k] }, &b)("redis: dial")
	if b.String() != "soakd: go-redis: redis: dial\n" {
		t.Errorf("with SOAKD_DEBUG: %q", b.String())
	}
}
