package main

import (
	"context"
	"flag"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/soakd/soakd/rundir"
)

// quickScenario runs in a fraction of a second against the embedded
// target with an SLO any host holds.
const quickScenario = "name: quick\nkeyspace: {records: 100}\nphases: [{kind: steady, rate: 100, duration: 300ms, warmup: 0s, mix: {get: 100}}]\nslo: {latency: {'*': {p99: 1m}}, max_dropped_ratio: 1}\n"

// TestHelpOnEveryCommand: --help and -h print the command's usage on
// stdout and exit 0 (validate does not read --help as a file, run does
// not exit 2); soakd help COMMAND is the same page.
func TestHelpOnEveryCommand(t *testing.T) {
	for _, c := range commandDocs {
		for _, arg := range []string{"--help", "-h"} {
			argv := []string{c.name, arg}
			if c.name == "help" {
				argv = []string{"help"}
			}
			a, out, errb := newApp()
			if code := a.Main(context.Background(), argv); code != 0 {
				t.Errorf("soakd %s: exit %d, want 0\n%s", strings.Join(argv, " "), code, errb)
			}
			if errb.Len() != 0 {
				t.Errorf("soakd %s: stderr %q", strings.Join(argv, " "), errb)
			}
			if !strings.Contains(out.String(), "usage:") || !strings.Contains(out.String(), "soakd "+c.name) {
				t.Errorf("soakd %s: no usage of %s:\n%s", strings.Join(argv, " "), c.name, out)
			}
		}
	}
	a, out, _ := newApp()
	if code := a.Main(context.Background(), []string{"run", "x.yaml", "--rate", "10", "--help"}); code != 0 || !strings.Contains(out.String(), "--barrier-timeout D") {
		t.Errorf("run ... --help after other flags: exit %d\n%s", code, out)
	}
	a, out, _ = newApp()
	if code := a.Main(context.Background(), []string{"help", "compare"}); code != 0 || !strings.Contains(out.String(), "--threshold") {
		t.Errorf("help compare: exit %d\n%s", code, out)
	}
	a, _, errb := newApp()
	for _, argv := range [][]string{{"help", "--help"}, {"help", "help"}, {"help", "-h"}} {
		a, out, _ := testApp(nil)
		if code := a.Main(context.Background(), argv); code != 0 || !strings.Contains(out.String(), "soakd run") {
			t.Errorf("%v: exit %d, want 0 and the top help", argv, code)
		}
	}
	if code := a.Main(context.Background(), []string{"help", "nope"}); code != 2 || !strings.Contains(errb.String(), `unknown command "nope"`) {
		t.Errorf("help nope: exit %d %q", code, errb)
	}
}

// TestTopHelpListsEverything: soakd --help names every command, every
// target kind (CQL included) and every flag run takes.
func TestTopHelpListsEverything(t *testing.T) {
	a, out, _ := newApp()
	if code := a.Main(context.Background(), []string{"--help"}); code != 0 {
		t.Fatalf("exit %d", code)
	}
	help := out.String()
	for _, c := range commandDocs {
		if !strings.Contains(help, "soakd "+c.name) {
			t.Errorf("top help lacks the command %s", c.name)
		}
	}
	for _, s := range []string{"redis://", "mongodb://", "http://", "cql://", "cqls://", "ScyllaDB", "Cassandra", "embedded"} {
		if !strings.Contains(help, s) {
			t.Errorf("top help lacks the target %s", s)
		}
	}
	var f runFlags
	n := 0
	runFlagSet(&f).VisitAll(func(fl *flag.Flag) {
		n++
		if !strings.Contains(help, "  --"+fl.Name+" ") && !strings.Contains(help, "  --"+fl.Name+"\n") {
			t.Errorf("top help lacks run flag --%s", fl.Name)
		}
	})
	if n < 20 {
		t.Errorf("run has %d flags: the flag set was not read", n)
	}
}

// TestFlagErrorsAreOneLineWithAHint: a bad flag value is one line on
// stderr naming the flag and how to fix it, exit 2, before anything
// runs.
func TestFlagErrorsAreOneLineWithAHint(t *testing.T) {
	dir := t.TempDir()
	sc := write(t, dir, "q.yaml", quickScenario)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", sc, "--rate", "5k"}, "soakd run: --rate 5k: use a number like 5000"},
		{[]string{"run", sc, "--rate=5k"}, "soakd run: --rate 5k: use a number like 5000"},
		{[]string{"run", sc, "--duration", "30"}, "soakd run: --duration 30: add a unit: 30s"},
		{[]string{"run", sc, "--warmup", "5"}, "soakd run: --warmup 5: add a unit: 5s"},
		{[]string{"run", sc, "--duration", "soon"}, "soakd run: --duration soon: use a duration like 30s"},
		{[]string{"run", sc, "--tick", "20"}, "soakd run: --tick 20: add a unit: 20s"},
		{[]string{"run", sc, "--tick", "50us"}, "soakd run: --tick 50us: use 1ms to 1s"},
		{[]string{"run", sc, "--barrier-timeout", "30"}, "soakd run: --barrier-timeout 30: add a unit: 30s"},
		{[]string{"run", sc, "--concurrency", "many"}, "soakd run: --concurrency many: use a whole number like 32"},
		{[]string{"run", sc, "--records", "1e4"}, "soakd run: --records 1e4: use a positive whole number like 10000"},
		{[]string{"run", sc, "--rate"}, "soakd run: --rate needs a value"},
		{[]string{"run", sc, "--quiet=maybe"}, "soakd run: --quiet maybe: use --quiet or --quiet=false"},
		{[]string{"run", sc, "--bogus"}, "soakd run: unknown flag --bogus (soakd run --help lists the flags)"},
		{[]string{"compare", "a", "b", "--threshold", "x"}, "soakd compare: --threshold x: use a number like 0.2"},
		{[]string{"report", "--bogus", "d"}, "soakd report: unknown flag --bogus"},
		{[]string{"serve", "--nope"}, "soakd serve: unknown flag --nope"},
		{[]string{"validate", "--strict", sc}, "soakd validate: unknown flag --strict"},
	} {
		out := filepath.Join(dir, "out")
		a, stdout, errb := newApp()
		argv := append([]string{"run", "--listen", "", "--out", out}, c.args[1:]...)
		if c.args[0] != "run" {
			argv = c.args
		}
		code := a.Main(context.Background(), argv)
		msg := errb.String()
		if code != 2 || !strings.HasPrefix(msg, c.want) || strings.Count(msg, "\n") != 1 || stdout.Len() != 0 {
			t.Errorf("soakd %s: exit %d, stderr %q: want exit 2 and one line starting %q", strings.Join(c.args, " "), code, msg, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("soakd %s made %s", strings.Join(c.args, " "), out)
		}
	}
}

// closedPort is a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// TestTargetDownLeavesNoRunDir: a run that measured nothing because
// its target is down leaves no run directory (nor the parents it made);
// a directory that was there before stays.
func TestTargetDownLeavesNoRunDir(t *testing.T) {
	dir := t.TempDir()
	sc := write(t, dir, "q.yaml", quickScenario)
	addr := closedPort(t)
	// Elasticsearch is refused in the run's prepare step (after the run
	// directory was made), Redis when the target opens.
	for _, url := range []string{"http://" + addr, "redis://" + addr} {
		out := filepath.Join(dir, "runs", "a", "b")
		a, _, errb := newApp()
		if code := a.Main(context.Background(), []string{"run", sc, "--target", url, "--out", out, "--listen", "", "--quiet"}); code != 2 {
			t.Errorf("%s: exit %d, want 2\n%s", url, code, errb)
		}
		if _, err := os.Stat(filepath.Join(dir, "runs")); !os.IsNotExist(err) {
			t.Errorf("%s: %s left behind (%v)", url, filepath.Join(dir, "runs"), err)
		}
	}
	pre := filepath.Join(dir, "mine")
	if err := os.Mkdir(pre, 0o755); err != nil {
		t.Fatal(err)
	}
	a, _, _ := newApp()
	a.Main(context.Background(), []string{"run", sc, "--target", "http://" + addr, "--out", pre, "--listen", "", "--quiet"})
	if _, err := os.Stat(pre); err != nil {
		t.Errorf("a directory given with --out that existed before was removed: %v", err)
	}
}

// TestOutRefusesARunWithoutForce: --out naming a directory that holds a
// run (summary.json, or only a killed run's latency.hlog.partial) is
// refused in one line naming --force and the run is left as it was;
// with --force the new run replaces it. A finished run prints one
// target: line and the report command, which works as printed.
func TestOutRefusesARunWithoutForce(t *testing.T) {
	dir := t.TempDir()
	sc := write(t, dir, "q.yaml", quickScenario)
	out := filepath.Join(dir, "run")
	a, stdout, errb := newApp()
	if code := a.Main(context.Background(), []string{"run", sc, "--out", out, "--listen", "", "--quiet"}); code != 0 {
		t.Fatalf("first run: exit %d\n%s", code, errb)
	}
	if n := strings.Count("\n"+stdout.String(), "\ntarget:"); n != 1 {
		t.Errorf("%d target: lines in the summary, want 1:\n%s", n, stdout)
	}
	if !strings.Contains(stdout.String(), "target: embedded (in-process Redis-protocol store) — figures measure soakd itself") {
		t.Errorf("the target line lost the embedded note:\n%s", stdout)
	}
	cmd := "soakd report --html " + filepath.Join(out, "report.html") + " " + out
	if !strings.Contains(errb.String(), "HTML report: "+cmd+"\n") {
		t.Errorf("stderr lacks the report command %q:\n%s", cmd, errb)
	}
	a, _, errb = newApp()
	if code := a.Main(context.Background(), strings.Fields(cmd)[1:]); code != 0 {
		t.Errorf("the printed report command: exit %d\n%s", code, errb)
	}
	if _, err := os.Stat(filepath.Join(out, "report.html")); err != nil {
		t.Error(err)
	}
	first, err := rundir.ReadSummary(out)
	if err != nil {
		t.Fatal(err)
	}

	a, _, errb = newApp()
	if code := a.Main(context.Background(), []string{"run", sc, "--out", out, "--listen", "", "--quiet"}); code != 2 {
		t.Errorf("second run into the same --out: exit %d, want 2", code)
	}
	if msg := errb.String(); strings.Count(msg, "\n") != 1 || !strings.Contains(msg, "already holds a run (summary.json)") || !strings.Contains(msg, "--force") {
		t.Errorf("refusal: %q", msg)
	}
	if again, err := rundir.ReadSummary(out); err != nil || !again.Start.Equal(first.Start) {
		t.Errorf("the refused run touched the earlier one: %v", err)
	}

	a, _, errb = newApp()
	if code := a.Main(context.Background(), []string{"run", sc, "--out", out, "--listen", "", "--quiet", "--force"}); code != 0 {
		t.Fatalf("--force: exit %d\n%s", code, errb)
	}
	if again, err := rundir.ReadSummary(out); err != nil || again.Start.Equal(first.Start) {
		t.Errorf("--force did not replace the run: %v", err)
	}

	killed := filepath.Join(dir, "killed")
	os.Mkdir(killed, 0o755)
	write(t, killed, rundir.PartialLog, "#[StartTime: 0]\n")
	a, _, errb = newApp()
	if code := a.Main(context.Background(), []string{"run", sc, "--out", killed, "--listen", "", "--quiet"}); code != 2 || !strings.Contains(errb.String(), rundir.PartialLog) {
		t.Errorf("--out holding a killed run: exit %d %q", code, errb)
	}

}
