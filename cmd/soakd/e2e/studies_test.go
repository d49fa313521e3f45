package e2e

import (
	"image"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/soakd/soakd/internal/testutil"
	"github.com/soakd/soakd/report"
	"github.com/soakd/soakd/rundir"
)

// renderChromium opens page in headless chromium and returns the DOM it
// parsed and a 1000-pixel-wide screenshot.
func renderChromium(t *testing.T, page string, height int) (string, image.Image) {
	t.Helper()
	return testutil.Chromium(t, page, height)
}

// pixels counts the screenshot's pixels within 12 of colour rgb.
func pixels(img image.Image, rgb [3]uint32) int { return testutil.Pixels(img, rgb, 12) }

// Palette colours of the first two series, and the warmup shade
// (#c7e9c0 at 0.6 opacity on white).
var (
	blue  = [3]uint32{0x1f, 0x77, 0xb4}
	red   = [3]uint32{0xd6, 0x27, 0x28}
	shade = [3]uint32{221, 242, 217}
)

// TestStudySoakRendersInChromium is seed 002 (the 12-hour caching soak)
// from a short run: `soakd run` of a 50/50 read/update soak with a
// warmup, then `soakd report --html`, opened in headless chromium. The
// page holds the throughput chart, one p99 panel per op (read and
// update apart), the warmup shaded on each, and the avg p99 over the run
// next to the overall p99; summary.json's avg p99 is the mean of the
// buckets the chart draws after the warmup.
func TestStudySoakRendersInChromium(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sc := write(t, dir, "soak.yaml", `name: soak-study
keyspace: {records: 2000}
record: {fields: 10, field_bytes: 100}
phases:
  - {name: load, kind: load, concurrency: 8}
  - {name: soak, kind: steady, rate: 1000, duration: 8s, warmup: 3s, concurrency: 16, max_lag: 10s, mix: {read: 50, update: 50}}
slo: {max_dropped_ratio: 1}
`)
	out := filepath.Join(dir, "run")
	if code, stdout, errb := runSoakd(t, "run", sc, "--out", out, "--listen", "", "--quiet"); code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", code, errb, stdout)
	}
	s, err := rundir.ReadSummary(out)
	if err != nil {
		t.Fatal(err)
	}
	p := s.Phases[1]
	if p.WarmupSeconds != 3 {
		t.Errorf("warmup_seconds %v, want 3", p.WarmupSeconds)
	}
	// summary.json's avg p99 = the mean of the chart's buckets (1 s wide)
	// that start after the warmup, read back from latency.hlog.
	tl, err := report.ReadTimeline(out, s)
	if err != nil {
		t.Fatal(err)
	}
	warmEnd := p.Start.Add(3 * time.Second)
	for _, op := range []string{"read", "update"} {
		ot := p.Ops[op].OverTime
		if ot == nil {
			t.Fatalf("%s: no over_time in summary.json", op)
		}
		var sum float64
		n := 0
		for _, tp := range tl.Phases["soak"][op] {
			if !tp.At.Before(warmEnd) && tp.Count > 0 {
				sum += tp.P99
				n++
			}
		}
		if ot.BucketSeconds != 1 || ot.Buckets != n || n < 4 || ot.MeanP99 != sum/float64(n) {
			t.Errorf("%s: over_time %+v, the chart's buckets after the warmup: %d with mean %g", op, ot, n, sum/float64(n))
		}
	}
	txt, err := os.ReadFile(filepath.Join(out, rundir.SummaryTextFile))
	if err != nil || !strings.Contains(string(txt), "avg p99 over the run (mean of the p99s of 1s buckets after the warmup): read ") {
		t.Errorf("summary.txt lacks the avg p99 line (%v):\n%s", err, txt)
	}
	page := filepath.Join(dir, "report.html")
	if code, _, errb := runSoakd(t, "report", out, "--html", page); code != 0 {
		t.Fatalf("report --html: exit %d\n%s", code, errb)
	}
	dom, img := renderChromium(t, page, 2400)
	for _, want := range []string{"throughput over time: ops/s per 1s bucket", "read latency over time: p99 per 1s", "update latency over time: p99 per 1s", "avg p99 over the run", "(overall p99 "} {
		if !strings.Contains(dom, want) {
			t.Errorf("rendered DOM lacks %q", want)
		}
	}
	soak := dom[strings.Index(dom, "phase soak"):]
	if n := strings.Count(soak, `class="shade"`); n != 3 {
		t.Errorf("the soak phase has %d shaded warmups, want 3 (throughput, read, update)", n)
	}
	if b, nb, ns := img.Bounds(), pixels(img, blue), pixels(img, shade); b.Dx() != 1000 || nb < 300 || ns < 2000 {
		t.Errorf("screenshot %dx%d: %d series-colour and %d warmup-shade pixels; the charts did not render", b.Dx(), b.Dy(), nb, ns)
	} else {
		t.Logf("%d series-colour and %d warmup-shade pixels", nb, ns)
	}
}

// TestStudySuiteRendersInChromium is seed 003 (redis-benchmark, AOF on
// and off) from a short run of the shipped scenario: `soakd run
// scenarios/redis-benchmark-aof.yaml --duration 200ms` on the
// redis-server soakd starts per persistence variant, then `soakd report
// --html`: the page holds the side-by-side chart (rps and p99 panels,
// one bar per variant for each of the 20 tests in each) and the table,
// and the screenshot shows both variants' bars.
func TestStudySuiteRendersInChromium(t *testing.T) {
	testutil.NeedTool(t, "redis-server")
	dir := t.TempDir()
	out := filepath.Join(dir, "run")
	// The shipped study in 2 rounds of 200 requests a test instead
	// of 10 of 10,000: bounded by requests, every round completes its ops
	// however loaded the host (a --duration of 200 ms gave rounds of
	// 20 ms, which a host at load 16 ended before any op completed).
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "scenarios", "redis-benchmark-aof.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	short := strings.ReplaceAll(string(b), "    requests: 100000\n", "    requests: 400\n")
	if strings.Count(short, "requests: 400\n") != 20 {
		t.Fatalf("the study's 20 phases are no longer bounded by requests: 100000:\n%s", b)
	}
	scen := filepath.Join(dir, "redis-benchmark-aof.yaml")
	if err := os.WriteFile(scen, []byte(short), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, errb := runSoakd(t, "run", scen, "--repeat", "2", "--concurrency", "8", "--out", out, "--listen", "", "--quiet")
	if code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", code, errb, stdout)
	}
	if !strings.Contains(stdout.String(), "B = redis-benchmark-aof, target redis (redis ") || !strings.Contains(stdout.String(), "persistence aof:everysec") {
		t.Errorf("run output lacks the side-by-side legend:\n%s", stdout)
	}
	page := filepath.Join(dir, "report.html")
	if code, _, errb := runSoakd(t, "report", out, "--html", page); code != 0 {
		t.Fatalf("report --html: exit %d\n%s", code, errb)
	}
	// The side-by-side section leads the page: the top 1250 pixels are
	// its chart.
	dom, img := renderChromium(t, page, 1250)
	if n := strings.Count(dom, `class="bars"`); n != 1 {
		t.Errorf("rendered DOM has %d bar charts, want 1 (rps and p99 side by side)", n)
	}
	for _, want := range []string{"achieved ops/s", "p99 latency (", "A none", "B aof:everysec", "lrange_600", "B/A"} {
		if !strings.Contains(dom, want) {
			t.Errorf("rendered DOM lacks %q", want)
		}
	}
	// 20 tests x 2 variants x 2 panels.
	if n := strings.Count(dom, `class="bar"`); n < 80 {
		t.Errorf("%d bars, want 80", n)
	}
	if nb, nr := pixels(img, blue), pixels(img, red); nb < 1000 || nr < 1000 {
		t.Errorf("screenshot: %d pixels of A's colour, %d of B's; the bars did not render", nb, nr)
	} else {
		t.Logf("%d A-colour and %d B-colour pixels", nb, nr)
	}
}
