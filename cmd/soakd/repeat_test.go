package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/soakd/soakd/internal/testutil"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/targets/embedded"
)

// repeatYAML is a two-test suite on a redis-server soakd starts once
// per persistence variant.
const repeatYAML = `name: rep
target: {kind: redis, managed: {command: redis-server, persistences: [none, "aof:everysec"]}}
record: {fields: 1, field_bytes: 3}
keyspace: {records: 1000, prefix: "key:"}
interleave: alternate
phases:
  - {name: set, kind: steady, rate: 0, concurrency: 4, requests: 4000, mix: {set: 100}}
  - {name: get, kind: steady, rate: 0, concurrency: 4, requests: 4000, mix: {get: 100}}
slo: {max_error_ratio: 0}
`

// TestRunRepeatRedis: `soakd run --repeat 2` against real redis-servers
// (none and aof:everysec) runs each test's rounds interleaved (ABAB),
// keeps every round in summary.json, and `report --side-by-side
// --control` over the run shows B/A with an interval read from the
// rounds and latency.hlog, a verdict word and the p99 ratio; the A/A
// control needs more than one round a half, so with 2 rounds it shows
// none and says so.
func TestRunRepeatRedis(t *testing.T) {
	testutil.NeedTool(t, "redis-server")
	dir := t.TempDir()
	sc := write(t, dir, "rep.yaml", repeatYAML)
	out := filepath.Join(dir, "run")
	a, stdout, errb := newApp()
	if code := a.Main(context.Background(), []string{"run", sc, "--repeat", "2", "--out", out, "--listen", "", "--quiet"}); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, errb, stdout)
	}
	s, err := rundir.ReadSummary(out)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range s.Phases {
		names = append(names, p.Name)
		if p.Completed != 2000 || p.Errors != 0 {
			t.Errorf("%s: %d completed, %d errors; want each round's 2000 of 4000, none failed", p.Name, p.Completed, p.Errors)
		}
	}
	want := []string{"set[none]#1", "set[aof:everysec]#1", "set[none]#2", "set[aof:everysec]#2",
		"get[none]#1", "get[aof:everysec]#1", "get[none]#2", "get[aof:everysec]#2"}
	if !slices.Equal(names, want) {
		t.Fatalf("phases %v, want %v", names, want)
	}
	if !strings.Contains(stdout.String(), "persistence aof:everysec, 2 rounds") {
		t.Errorf("run output lacks the side-by-side table:\n%s", stdout)
	}
	a, rep, errb := newApp()
	if code := a.Main(context.Background(), []string{"report", "--side-by-side", "--control", out}); code != 0 {
		t.Fatalf("report --side-by-side: exit %d\n%s", code, errb)
	}
	t.Logf("\n%s", rep)
	rows := 0
	for _, line := range strings.Split(rep.String(), "\n") {
		f := cellsRE.Split(strings.TrimSpace(line), -1)
		if len(f) < 3 || (f[0] != "set" && f[0] != "get") {
			continue
		}
		rows++
		// test op requests, A and B rps p50 p99, B/A, B/A p99, word, A/A
		if len(f) != 13 || f[2] != "4000" {
			t.Fatalf("row %q: %d cells", line, len(f))
		}
		// The control splits A's two rounds, one a half: an interval
		// when a round lasted two seconds or more (a loaded host's),
		// else none; either way the table says it is not to be trusted.
		if f[12] != "-" && !intervalRE.MatchString(f[12]) {
			t.Errorf("row %s: A/A control %q is neither an estimate with its interval nor -", f[0], f[12])
		}
		if !strings.Contains(rep.String(), "(2 rounds: 1 a half, too few for the control's interval to be trusted") {
			t.Errorf("the table does not say its control rests on one round a half")
		}
		for _, cell := range []string{f[9], f[10]} {
			if !intervalRE.MatchString(cell) {
				t.Errorf("row %s: %q is not an estimate with its interval", f[0], cell)
			}
		}
		// A busy shared host makes the rounds host-bound (load above 2 x
		// cores): then there is no verdict, and the table says so.
		if !slices.Contains([]string{"within noise", "faster", "slower", "no verdict: host-bound", "no verdict: generator-bound"}, f[11]) {
			t.Errorf("row %s: verdict %q", f[0], f[11])
		}
	}
	if rows != 2 || !strings.Contains(rep.String(), "geomean B/A: ") || !strings.Contains(rep.String(), "2 rounds: 1 a half, too few") {
		t.Errorf("report lacks rows, geomean or control:\n%s", rep)
	}
	// One number, one way: the table the run printed at its end, `report
	// DIR` and `report --side-by-side DIR` agree to the digit.
	a, sbs, errb := newApp()
	if code := a.Main(context.Background(), []string{"report", "--side-by-side", out}); code != 0 {
		t.Fatalf("report --side-by-side: exit %d\n%s", code, errb)
	}
	a, txt, errb := newApp()
	if code := a.Main(context.Background(), []string{"report", out}); code != 0 {
		t.Fatalf("report: exit %d\n%s", code, errb)
	}
	same := 0
	for _, line := range strings.Split(sbs.String(), "\n") {
		f := cellsRE.Split(strings.TrimSpace(line), -1)
		if !strings.HasPrefix(strings.TrimSpace(line), "geomean") && (len(f) < 3 || (f[0] != "set" && f[0] != "get")) {
			continue
		}
		same++
		for name, got := range map[string]string{"the run's own output": stdout.String(), "report DIR": txt.String()} {
			if !strings.Contains(got, strings.TrimSpace(line)) {
				t.Errorf("%s lacks report --side-by-side's line %q:\n%s", name, strings.TrimSpace(line), got)
			}
		}
	}
	if same != 3 {
		t.Errorf("compared %d lines of the side-by-side, want 3 (2 rows, the geomean):\n%s", same, sbs)
	}
}

// TestRunRepeatTargets: several --target with --repeat run as one run
// whose variants are the targets, interleaved round by round in one run
// directory; the legend names each target's URL.
func TestRunRepeatTargets(t *testing.T) {
	var urls []string
	for range 2 {
		srv, err := embedded.Start(embedded.Config{})
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		urls = append(urls, srv.URL())
	}
	dir := t.TempDir()
	sc := write(t, dir, "suite.yaml", strings.Replace(fmt.Sprintf(suiteYAML, "suite", "{kind: redis}"), "phases:", "interleave: alternate\nphases:", 1))
	out := filepath.Join(dir, "run")
	a, stdout, errb := newApp()
	if code := a.Main(context.Background(), []string{"run", sc, "--target", urls[0], "--target", urls[1], "--repeat", "3", "--out", out, "--listen", "", "--quiet"}); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, errb, stdout)
	}
	s, err := rundir.ReadSummary(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Phases) != 6*2*3 || s.Phases[0].Name != "ping_inline[target-1]#1" || s.Phases[1].Name != "ping_inline[target-2]#1" || s.Phases[2].Name != "ping_inline[target-1]#2" {
		t.Fatalf("%d phases, first %s %s %s", len(s.Phases), s.Phases[0].Name, s.Phases[1].Name, s.Phases[2].Name)
	}
	for i, u := range urls {
		if want := fmt.Sprintf("suite, target redis target-%d %s, 3 rounds", i+1, u); !strings.Contains(stdout.String(), want) {
			t.Errorf("legend lacks %q:\n%s", want, stdout)
		}
	}
}

// TestRunRepeatRefused: --repeat out of bounds exits 2 naming the flag
// and nothing runs.
func TestRunRepeatRefused(t *testing.T) {
	dir := t.TempDir()
	sc := write(t, dir, "one.yaml", "name: one\nkeyspace: {records: 100}\nphases: [{kind: steady, rate: 0, requests: 10, concurrency: 2, mix: {get: 100}}]\n")
	for _, c := range []struct{ arg, want string }{
		{"101", "--repeat 101: use a whole number in 1..100"},
		{"-2", "--repeat -2: use a whole number in 1..100"},
		{"20", "phases[0].requests: 10 requests cannot be split into 20 repeats"},
	} {
		a, stdout, errb := newApp()
		if code := a.Main(context.Background(), []string{"run", sc, "--repeat", c.arg, "--out", filepath.Join(dir, "r"), "--listen", ""}); code != 2 {
			t.Errorf("--repeat %s: exit %d, want 2", c.arg, code)
		}
		if !strings.Contains(errb.String(), c.want) || stdout.Len() != 0 {
			t.Errorf("--repeat %s: stderr %q lacks %q", c.arg, errb, c.want)
		}
	}
}

// TestSideBySideSweeps: two runs of a mix sweep with --repeat 3 (the
// embedded store) put side by side give the sweep's table, throughput
// per point with its interval over the rounds for each run, and an HTML
// chart with one line per run and an error bar per point.
func TestSideBySideSweeps(t *testing.T) {
	dir := t.TempDir()
	sc := write(t, dir, "sweep.yaml", `name: mixsweep
keyspace: {records: 200}
phases:
  - {name: load, kind: load, concurrency: 2}
  - name: update-sweep
    kind: sweep
    requests: 900
    concurrency: 2
    mix: {read: 100}
    sweep:
      over: mix
      measure: closed
      points: [{update: 0}, {update: 20}, {update: 40}]
`)
	var dirs []string
	for i := range 2 {
		out := filepath.Join(dir, fmt.Sprintf("run%d", i))
		a, stdout, errb := newApp()
		if code := a.Main(context.Background(), []string{"run", sc, "--repeat", "3", "--out", out, "--listen", "", "--quiet"}); code != 0 {
			t.Fatalf("exit %d\n%s\n%s", code, errb, stdout)
		}
		dirs = append(dirs, out)
	}
	page := filepath.Join(dir, "sbs.html")
	a, stdout, errb := newApp()
	if code := a.Main(context.Background(), append([]string{"report", "--side-by-side", "--html", page}, dirs...)); code != 0 {
		t.Fatalf("report: exit %d\n%s", code, errb)
	}
	t.Logf("\n%s", stdout)
	if !strings.Contains(stdout.String(), "sweep update-sweep: achieved ops/s against update (% of ops)") {
		t.Fatalf("no sweep table:\n%s", stdout)
	}
	points := 0
	for _, line := range strings.Split(stdout.String(), "\n") {
		f := cellsRE.Split(strings.TrimSpace(line), -1)
		if len(f) == 3 && strings.HasPrefix(f[0], "update") {
			points++
			for _, c := range f[1:] {
				if !sweepCellRE.MatchString(c) {
					t.Errorf("point %s: %q is not ops/s with its interval", f[0], c)
				}
			}
		}
	}
	if points != 3 {
		t.Errorf("%d points, want 3", points)
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(html), `class="errbar"`); n != 6 {
		t.Errorf("%d error bars, want 6 (3 points x 2 runs)", n)
	}
}

var sweepCellRE = regexp.MustCompile(`^\d+\.\d \[\d+\.\d-\d+\.\d\]$`)
