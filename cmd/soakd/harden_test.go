package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/soakd/soakd/internal/testutil"
)

// mainWithin runs a command line and fails the test if it has not
// returned within limit (a hang, not a latency figure).
func mainWithin(t *testing.T, limit time.Duration, a *App, ctx context.Context, args ...string) int {
	t.Helper()
	done := make(chan int, 1)
	go func() { done <- a.Main(ctx, args) }()
	select {
	case code := <-done:
		return code
	case <-time.After(limit):
		t.Fatalf("soakd %s did not return within %s", strings.Join(args, " "), limit)
		return -1
	}
}

func TestRunRefusesBadRateFlag(t *testing.T) {
	dir := t.TempDir()
	sc := write(t, dir, "s.yaml", "phases: [{kind: steady, rate: 10, duration: 1s, mix: {get: 100}}]\n")
	for _, rate := range []string{"-5", "1e12", "1e308", "NaN"} {
		a, _, errb := newApp()
		code := mainWithin(t, 5*time.Second, a, context.Background(), "run", sc, "--rate", rate, "--listen", "", "--quiet", "--out", filepath.Join(dir, "out"))
		if code != 2 || !strings.Contains(errb.String(), "--rate") {
			t.Errorf("--rate %s: exit %d, stderr %q; want 2 naming --rate", rate, code, errb)
		}
	}
}

func TestValidateRefusesUnboundedScenarios(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{
		"rate.yaml":        "phases:\n  - {kind: steady, rate: 1e12, duration: 1s, mix: {get: 100}}\n",
		"ramp.yaml":        "phases:\n  - {kind: ramp, mix: {get: 100}, from: 1e17, to: 1e17, step: 1, step_duration: 1s}\n",
		"records.yaml":     "keyspace: {records: 1000000000000000}\nphases:\n  - {kind: steady, rate: 1, duration: 1s, mix: {get: 100}}\n",
		"concurrency.yaml": "phases:\n  - {kind: steady, rate: 1, duration: 1s, mix: {get: 100}, concurrency: 0}\n",
	} {
		p := write(t, dir, name, src)
		a, _, errb := newApp()
		if code := mainWithin(t, 5*time.Second, a, context.Background(), "validate", p); code != 2 || !strings.Contains(errb.String(), p+":2: phases[0]") && !strings.Contains(errb.String(), p+":1: keyspace.records") {
			t.Errorf("%s: exit %d, stderr %q", name, code, errb)
		}
	}
}

// TestValidateHonoursSIGINT: a FIFO nobody writes would block the read;
// it is refused at once as not a regular file (before, only cancelling
// the ctx, SIGINT in main, ended validate).
func TestValidateHonoursSIGINT(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fifo.yaml")
	// A filesystem without FIFOs is a property of where TMPDIR lives,
	// not a missing tool; the skip says so (CI's /tmp has them).
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		testutil.HostSkip(t, "no FIFOs here: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	a, _, errb := newApp()
	if code := mainWithin(t, 10*time.Second, a, ctx, "validate", p); code != 2 || !strings.Contains(errb.String(), "not a regular file (a FIFO)") {
		t.Fatalf("exit %d, stderr %q", code, errb)
	}
}

// TestRunResultsNotWritten: when the run directory cannot be written
// (here summary.json is a directory, as a full disk would fail the
// write) the summary still goes to stdout and the exit code is 3.
func TestRunResultsNotWritten(t *testing.T) {
	dir := t.TempDir()
	sc := write(t, dir, "s.yaml", "keyspace: {records: 100}\nphases: [{kind: steady, rate: 200, duration: 1s, concurrency: 2, mix: {get: 100}}]\n")
	out := filepath.Join(dir, "out")
	if err := os.MkdirAll(filepath.Join(out, "summary.json", "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	a, stdout, errb := newApp()
	code := mainWithin(t, 60*time.Second, a, context.Background(), "run", sc, "--out", out, "--listen", "", "--quiet")
	if code != 3 {
		t.Fatalf("exit %d, want 3\n%s", code, errb)
	}
	if !strings.Contains(stdout.String(), "scenario: s") || !strings.Contains(errb.String(), "could not be written") {
		t.Fatalf("stdout %q\nstderr %q", stdout, errb)
	}
}

// TestReportKilledRun: a run killed mid-way leaves latency.hlog.partial
// (with a torn last line) and no summary.json; report shows what the
// log holds and says the run was killed.
func TestReportKilledRun(t *testing.T) {
	dir := t.TempDir()
	sc := write(t, dir, "s.yaml", "keyspace: {records: 100}\nphases: [{name: steady, kind: steady, rate: 200, duration: 2s, concurrency: 2, mix: {get: 100}}]\n")
	out := filepath.Join(dir, "out")
	a, _, errb := newApp()
	if code := mainWithin(t, 60*time.Second, a, context.Background(), "run", sc, "--out", out, "--listen", "", "--quiet"); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, errb)
	}
	// What a SIGKILL leaves: the interval log still .partial, torn.
	hlog, err := os.ReadFile(filepath.Join(out, "latency.hlog"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"summary.json", "summary.txt", "histograms.hlog", "latency.hlog"} {
		os.Remove(filepath.Join(out, f))
	}
	write(t, out, "latency.hlog.partial", string(hlog[:len(hlog)-7]))
	a, stdout, errb := newApp()
	if code := a.Main(context.Background(), []string{"report", out}); code != 0 {
		t.Fatalf("report: exit %d\n%s", code, errb)
	}
	for _, want := range []string{"killed", "phase steady (steady)", "get", "errors unknown", "max lag unknown"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(errb.String(), "the run was killed") {
		t.Errorf("stderr %q", errb)
	}
	// --html draws latency over time from the partial log.
	page := filepath.Join(dir, "report.html")
	a, _, errb = newApp()
	if code := a.Main(context.Background(), []string{"report", "--html", page, out}); code != 0 || strings.Contains(errb.String(), "no latency-over-time plots") {
		t.Fatalf("report --html: exit %d\n%s", code, errb)
	}
	if html, _ := os.ReadFile(page); !strings.Contains(string(html), "latency over time") {
		t.Error("report --html of a killed run has no latency-over-time chart")
	}
	a, _, errb = newApp()
	if code := a.Main(context.Background(), []string{"report", dir}); code != 2 || !strings.Contains(errb.String(), "not a run directory") {
		t.Errorf("empty dir: exit %d %q", code, errb)
	}
}

// TestValidateReadsCapturesAndCorpora: validate does not print ok for a
// capture or corpus it reads and finds broken: it names the scenario's
// line, the file and the file's line, and exits 2.
func TestValidateReadsCapturesAndCorpora(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "capture.ndjson", `{"ts": 1, "op": "GET", "args": ["k"]}`+"\n"+`{"ts": 2, "op": "GET", "args": }`+"\n")
	write(t, dir, "docs.ndjson", `{"id":"a","t":"x"}`+"\n"+`{"id":"b","t":"y"}`+"\n"+`{"id": "c", "t": ]`+"\n")
	for name, c := range map[string]struct{ src, want string }{
		"capture.yaml": {"name: c\ntarget: {kind: embedded}\nphases:\n  - {name: r, kind: replay, source: capture.ndjson, format: ndjson}\n",
			":4: phases[0].source: " + dir + "/capture.ndjson: line 2: "},
		"corpus.yaml": {"name: c\ntarget: {kind: embedded}\nrecord:\n  source: docs.ndjson\nphases: [{name: load, kind: load}]\n",
			":4: record.source: corpus " + dir + "/docs.ndjson: line 3: "},
	} {
		p := write(t, dir, name, c.src)
		a, out, errb := newApp()
		code := mainWithin(t, 10*time.Second, a, context.Background(), "validate", p)
		if code != 2 || !strings.Contains(errb.String(), p+c.want) || strings.Contains(out.String(), "ok") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want %q", name, code, out, errb, p+c.want)
		}
	}
}
