package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/soakd/soakd/internal/testutil"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/targets/embedded"
)

// suiteYAML is a short redis-benchmark suite: closed loop, 8 clients,
// requests-bounded tests, plus one mixed phase.
const suiteYAML = `name: %s
target: %s
record: {fields: 1, field_bytes: 3}
keyspace: {records: 1000, prefix: "key:", ordered: true}
phases:
  - {name: ping_inline, kind: steady, rate: 0, concurrency: 8, requests: 3000, mix: {ping_inline: 100}}
  - {name: set, kind: steady, rate: 0, concurrency: 8, requests: 3000, mix: {set: 100}}
  - {name: get, kind: steady, rate: 0, concurrency: 8, requests: 3000, mix: {get: 100}}
  - {name: lpush, kind: steady, rate: 0, concurrency: 8, requests: 3000, mix: {lpush: 100}}
  - {name: lrange_100, kind: steady, rate: 0, concurrency: 8, requests: 1000, mix: {lrange_100: 100}}
  - {name: mixed, kind: steady, rate: 0, concurrency: 8, requests: 3000, mix: {get: 50, incr: 50}}
slo: {max_error_ratio: 0}
`

// suiteRow is one parsed row of the side-by-side table.
type suiteRow struct {
	test, op, requests string
	cols               [][3]string // rps, p50, p99 per column
	ratios             []string
}

// parseSuite reads the table rows of `soakd report --side-by-side`
// output with ncols columns: cells are apart by two spaces or more (a
// ratio with its interval, "within noise", hold one). ratios are the
// B/A, C/A, ... cells, their estimate only.
func parseSuite(t *testing.T, out string, ncols int) map[string]suiteRow {
	t.Helper()
	rows := map[string]suiteRow{}
	var head map[string]int
	for _, line := range strings.Split(out, "\n") {
		f := cellsRE.Split(strings.TrimSpace(line), -1)
		if len(f) > 0 && f[0] == "test" {
			head = map[string]int{}
			for i, h := range f {
				head[h] = i
			}
			continue
		}
		if head == nil || len(f) < 3 || strings.TrimSpace(line) == "" {
			head = nil
			continue
		}
		if len(f) != len(head) {
			t.Fatalf("row %q: %d cells, want %d", line, len(f), len(head))
		}
		r := suiteRow{test: f[0], op: f[1], requests: f[2]}
		for c := 0; c < ncols; c++ {
			r.cols = append(r.cols, [3]string{f[3+3*c], f[4+3*c], f[5+3*c]})
			if c > 0 {
				r.ratios = append(r.ratios, strings.Fields(f[head[colName(c)+"/A"]])[0])
			}
		}
		rows[r.test+" "+r.op] = r
	}
	return rows
}

var (
	cellsRE    = regexp.MustCompile(`\s{2,}`)
	intervalRE = regexp.MustCompile(`^\d+\.\d\d \[\d+\.\d\d-\d+\.\d\d\]$`)
)

func ms(sec float64) string { return fmt.Sprintf("%.3f", sec*1e3) }

// checkSuiteRows asserts every (phase, op) of each column's summary.json
// is a row whose rps is the phase's achieved_rate (split by count in a
// mixed phase), whose p50/p99 are the op's latency percentiles, and
// whose ratio is the column's rps over the first column's.
func checkSuiteRows(t *testing.T, rows map[string]suiteRow, cols []*rundir.Summary, variants []string) {
	t.Helper()
	n := 0
	for ci, s := range cols {
		for _, p := range s.Phases {
			if p.Variant != variants[ci] {
				continue
			}
			test := strings.TrimSuffix(p.Name, "["+p.Variant+"]")
			for op, o := range p.Ops {
				r, ok := rows[test+" "+op]
				if !ok {
					t.Errorf("no row for %s %s", test, op)
					continue
				}
				n++
				rps := p.AchievedRate
				want := fmt.Sprintf("%.2f", rps)
				if len(p.Ops) > 1 {
					rps = p.AchievedRate * float64(o.Count) / float64(p.Completed)
					want = fmt.Sprintf("%.2f*", rps)
				}
				if got := r.cols[ci]; got != [3]string{want, ms(o.Latency.P50), ms(o.Latency.P99)} {
					t.Errorf("%s %s column %d: %v, summary.json has rps %s p50 %s p99 %s", test, op, ci, got, want, ms(o.Latency.P50), ms(o.Latency.P99))
				}
				if ci == 0 && r.requests != strconv.FormatInt(o.Count, 10) && !strings.HasPrefix(r.requests, strconv.FormatInt(o.Count, 10)+"/") {
					t.Errorf("%s %s: requests %s, summary.json count %d", test, op, r.requests, o.Count)
				}
				if ci > 0 {
					var base float64
					for _, q := range cols[0].Phases {
						if q.Variant == variants[0] && strings.TrimSuffix(q.Name, "["+q.Variant+"]") == test {
							base = q.AchievedRate
							if len(q.Ops) > 1 {
								base = q.AchievedRate * float64(q.Ops[op].Count) / float64(q.Completed)
							}
						}
					}
					if got, want := r.ratios[ci-1], fmt.Sprintf("%.2f", rps/base); got != want {
						t.Errorf("%s %s: ratio %s, rps_b/rps_a from summary.json = %s", test, op, got, want)
					}
				}
			}
		}
	}
	if n < 7*len(cols) {
		t.Errorf("checked %d cells, want %d", n, 7*len(cols))
	}
}

// TestSideBySideEmbeddedRestricted runs the short suite through `soakd
// run` on the embedded store and on the embedded store in restricted
// mode (SSDB's subset: no HELLO, CLIENT, INFO), then `soakd report
// --side-by-side` over both run directories: every cell equals the
// run's summary.json and the ratio column is rps_B / rps_A.
func TestSideBySideEmbeddedRestricted(t *testing.T) {
	dir := t.TempDir()
	var sums []*rundir.Summary
	var dirs []string
	for _, v := range []struct{ name, target string }{
		{"full", "{kind: embedded}"},
		{"restricted", "{kind: embedded, embedded: {restricted: true}}"},
	} {
		sc := write(t, dir, v.name+".yaml", fmt.Sprintf(suiteYAML, "suite-"+v.name, v.target))
		out := filepath.Join(dir, v.name)
		a, stdout, errb := newApp()
		if code := a.Main(context.Background(), []string{"run", sc, "--out", out, "--listen", "", "--quiet"}); code != 0 {
			t.Fatalf("%s: exit %d\n%s\n%s", v.name, code, errb, stdout)
		}
		s, err := rundir.ReadSummary(out)
		if err != nil {
			t.Fatal(err)
		}
		sums, dirs = append(sums, s), append(dirs, out)
	}
	a, stdout, errb := newApp()
	html := filepath.Join(dir, "suite.html")
	if code := a.Main(context.Background(), []string{"report", "--side-by-side", dirs[0], dirs[1], "--html", html}); code != 0 {
		t.Fatalf("side by side: exit %d\n%s", code, errb)
	}
	t.Logf("\n%s", stdout)
	for _, want := range []string{"A = " + dirs[0] + ": suite-full, target embedded", "B = " + dirs[1] + ": suite-restricted", "B/A"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("output lacks %q", want)
		}
	}
	checkSuiteRows(t, parseSuite(t, stdout.String(), 2), sums, []string{"", ""})
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(page), `<svg xmlns="http://www.w3.org/2000/svg" class="bars"`); n != 1 {
		t.Errorf("side-by-side page has %d bar charts, want 1 (rps and p99 side by side)", n)
	}
}

// TestSideBySideAOFVariants: `soakd run` of the suite on a managed
// redis-server with persistences [none, aof:everysec] prints the table
// of both variants side by side (and summary.txt keeps it), each cell
// equal to summary.json; `soakd report --side-by-side` on the one run
// directory prints the same table.
func TestSideBySideAOFVariants(t *testing.T) {
	testutil.NeedTool(t, "redis-server")
	dir := t.TempDir()
	sc := write(t, dir, "aof.yaml", fmt.Sprintf(suiteYAML, "suite-aof",
		`{kind: redis, managed: {command: redis-server, persistences: [none, "aof:everysec"]}}`))
	out := filepath.Join(dir, "run")
	a, stdout, errb := newApp()
	if code := a.Main(context.Background(), []string{"run", sc, "--out", out, "--listen", "", "--quiet"}); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, errb, stdout)
	}
	s, err := rundir.ReadSummary(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), "persistence aof:everysec") {
		t.Fatalf("run output lacks the side-by-side table:\n%s", stdout)
	}
	checkSuiteRows(t, parseSuite(t, stdout.String(), 2), []*rundir.Summary{s, s}, []string{"none", "aof:everysec"})
	txt, err := os.ReadFile(filepath.Join(out, rundir.SummaryTextFile))
	if err != nil || !strings.Contains(string(txt), "B/A") {
		t.Errorf("summary.txt lacks the table (%v)", err)
	}
	a, rep, errb := newApp()
	if code := a.Main(context.Background(), []string{"report", "--side-by-side", out}); code != 0 {
		t.Fatalf("report --side-by-side: exit %d\n%s", code, errb)
	}
	t.Logf("\n%s", rep)
	checkSuiteRows(t, parseSuite(t, rep.String(), 2), []*rundir.Summary{s, s}, []string{"none", "aof:everysec"})
}

// TestSideBySideBadInput: one run without variants, a directory with no
// summary.json and no directory at all each exit 2 naming the problem.
func TestSideBySideBadInput(t *testing.T) {
	dir := t.TempDir()
	sc := write(t, dir, "one.yaml", "name: one\nkeyspace: {records: 100}\nphases: [{kind: steady, rate: 0, requests: 200, concurrency: 2, mix: {get: 100}}]\n")
	run := filepath.Join(dir, "run")
	a, _, errb := newApp()
	if code := a.Main(context.Background(), []string{"run", sc, "--out", run, "--listen", "", "--quiet"}); code != 0 {
		t.Fatalf("exit %d\n%s", code, errb)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{run}, run + " is one run without persistence variants: give two or more run directories"},
		{[]string{run, empty}, filepath.Join(empty, "summary.json") + ": no such file or directory"},
		{[]string{filepath.Join(dir, "nope"), run}, filepath.Join(dir, "nope", "summary.json")},
	} {
		a, stdout, errb := newApp()
		if code := a.Main(context.Background(), append([]string{"report", "--side-by-side"}, c.args...)); code != 2 {
			t.Errorf("%v: exit %d, want 2", c.args, code)
		}
		if !strings.Contains(errb.String(), c.want) || stdout.Len() != 0 {
			t.Errorf("%v: stderr %q lacks %q (stdout %q)", c.args, errb, c.want, stdout)
		}
	}
}

// TestRunSeveralTargets: `soakd run SCENARIO --target URL1 --target
// URL2` runs the suite on a Redis-protocol store and on one with only
// SSDB's subset (the embedded store served on a port, restricted), each
// into DIR/target-N, and ends with the side-by-side table, every cell
// equal to the runs' summary.json. A bad second --target is refused
// before anything runs.
func TestRunSeveralTargets(t *testing.T) {
	var urls []string
	for _, restricted := range []bool{false, true} {
		srv, err := embedded.Start(embedded.Config{Restricted: restricted})
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		urls = append(urls, srv.URL())
	}
	dir := t.TempDir()
	sc := write(t, dir, "suite.yaml", fmt.Sprintf(suiteYAML, "suite", "{kind: redis}"))
	out := filepath.Join(dir, "run")
	a, stdout, errb := newApp()
	if code := a.Main(context.Background(), []string{"run", sc, "--target", urls[0], "--target", urls[1], "--out", out, "--listen", "", "--quiet"}); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, errb, stdout)
	}
	var sums []*rundir.Summary
	for i, u := range urls {
		d := filepath.Join(out, fmt.Sprintf("target-%d", i+1))
		s, err := rundir.ReadSummary(d)
		if err != nil {
			t.Fatal(err)
		}
		if s.Target.URL != u {
			t.Errorf("%s ran against %s, want %s", d, s.Target.URL, u)
		}
		sums = append(sums, s)
		if !strings.Contains(stdout.String(), fmt.Sprintf("%s = %s: suite, target redis %s", colName(i), d, u)) {
			t.Errorf("legend lacks %s", d)
		}
	}
	table := stdout.String()[strings.Index(stdout.String(), "side by side"):]
	t.Logf("\n%s", table)
	checkSuiteRows(t, parseSuite(t, table, 2), sums, []string{"", ""})

	bad := filepath.Join(dir, "bad")
	a, stdout, errb = newApp()
	if code := a.Main(context.Background(), []string{"run", sc, "--target", urls[0], "--target", "ftp://x", "--out", bad, "--listen", ""}); code != 2 {
		t.Fatalf("bad second target: exit %d, want 2", code)
	}
	if !strings.Contains(errb.String(), "--target ftp://x refused; nothing ran") || stdout.Len() != 0 {
		t.Errorf("stderr %q, stdout %q", errb, stdout)
	}
	if _, err := os.Stat(bad); !os.IsNotExist(err) {
		t.Errorf("a run directory was written for the refused command: %v", err)
	}
}

func colName(i int) string { return string(rune('A' + i)) }
