package selfhealth

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// fakeProc is a root with the files the sampler reads.
type fakeProc struct {
	t    *testing.T
	root string
}

func newFakeProc(t *testing.T) *fakeProc {
	t.Helper()
	return &fakeProc{t: t, root: t.TempDir()}
}

func (p *fakeProc) write(rel, content string) {
	p.t.Helper()
	path := filepath.Join(p.root, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		p.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		p.t.Fatal(err)
	}
}

// state writes soakd's utime and stime (ticks), the host's cpu line and
// load, and each thread's schedstat.
func (p *fakeProc) state(utime, stime int, cpuLine, load string, threads map[string]string) {
	p.t.Helper()
	// The command name holds a space and a parenthesis, as a comm may.
	p.write("proc/self/stat", "4242 (soak d) S 1 4242 4242 0 -1 4194560 100 0 0 0 "+strconv.Itoa(utime)+" "+strconv.Itoa(stime)+" 0 0 20 0 9 0 100 0 0\n")
	p.write("proc/stat", cpuLine+"\ncpu0 1 2 3 4 5 6 7 8 0 0\nintr 1 2 3\n")
	p.write("proc/loadavg", load+" 0.50 0.40 2/300 4242\n")
	for tid, line := range threads {
		p.write("proc/self/task/"+tid+"/schedstat", line+"\n")
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestSampleRatesFromFakeProc(t *testing.T) {
	p := newFakeProc(t)
	p.state(100, 50, "cpu  1000 0 500 8000 0 0 0 0 0 0", "0.25", map[string]string{
		"4242": "1000000000 2000000 10",
		"4243": "500000000 0 5",
	})
	s, err := Open(p.root)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if _, ok := s.Sample(t0); ok {
		t.Fatal("the first sample is the baseline, not a rate")
	}

	// Two seconds later: 300 ticks more CPU (1.5 cores), host 1000
	// jiffies more of which 100 stolen, thread 4242 ran 1.2 s and waited
	// 0.3 s more, 4243 ran 0.4 s and waited 0.1 s, and a new thread
	// 4250 ran 0.1 s and waited 0.2 s since it started.
	p.state(300, 150, "cpu  1500 0 700 8200 0 0 0 100 0 0", "3.75", map[string]string{
		"4242": "2200000000 302000000 20",
		"4243": "900000000 100000000 8",
		"4250": "100000000 200000000 1",
	})
	got, ok := s.Sample(t0.Add(2 * time.Second))
	if !ok {
		t.Fatal("second sample not ok")
	}
	want := Sample{CPU: 1.5, ThreadCPUMax: 0.6, RunqueueDelay: 0.3, Load1: 3.75, Steal: 0.1, Threads: 3, CPUSeconds: 4.5, RunqueueDelaySeconds: 0.6}
	if !near(got.CPU, want.CPU) || !near(got.ThreadCPUMax, want.ThreadCPUMax) || !near(got.RunqueueDelay, want.RunqueueDelay) ||
		!near(got.Load1, want.Load1) || !near(got.Steal, want.Steal) || got.Threads != want.Threads ||
		!near(got.CPUSeconds, want.CPUSeconds) || !near(got.RunqueueDelaySeconds, want.RunqueueDelaySeconds) {
		t.Fatalf("sample = %+v, want %+v", got, want)
	}

	// Thread 4243 exits: it is forgotten, and the others' deltas count.
	if err := os.RemoveAll(filepath.Join(p.root, "proc/self/task/4243")); err != nil {
		t.Fatal(err)
	}
	p.state(400, 150, "cpu  1600 0 700 8300 0 0 0 100 0 0", "3.00", map[string]string{
		"4242": "2300000000 302000000 21",
		"4250": "100000000 200000000 1",
	})
	got, ok = s.Sample(t0.Add(3 * time.Second))
	if !ok || got.Threads != 2 || len(s.threads) != 2 || !near(got.CPU, 1) || !near(got.ThreadCPUMax, 0.1) || got.RunqueueDelay != 0 || got.Steal != 0 {
		t.Fatalf("after a thread exited: ok %v, %+v (%d threads kept)", ok, got, len(s.threads))
	}
	if !near(got.RunqueueDelaySeconds, 0.6) {
		t.Fatalf("run-queue total %v, want 0.6: it never goes back", got.RunqueueDelaySeconds)
	}

	// Sooner than MinGap is not a sample, and leaves the baseline.
	if _, ok := s.Sample(t0.Add(3*time.Second + MinGap/2)); ok {
		t.Fatal("a sample sooner than MinGap should not be ok")
	}
	p.state(600, 150, "cpu  1600 0 700 8300 0 0 0 100 0 0", "3.00", map[string]string{
		"4242": "2300000000 302000000 21",
		"4250": "100000000 200000000 1",
	})
	if got, ok = s.Sample(t0.Add(5 * time.Second)); !ok || !near(got.CPU, 1) {
		t.Fatalf("after a skipped sample: ok %v, CPU %v, want 1 (2 s over 2 s)", ok, got.CPU)
	}
}

func TestSampleMissingFilesStayZero(t *testing.T) {
	p := newFakeProc(t)
	p.write("proc/loadavg", "1.5 1 1 1/1 1\n")
	s, err := Open(p.root)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.Sample(time.Unix(0, 0))
	got, ok := s.Sample(time.Unix(1, 0))
	if !ok || got.Load1 != 1.5 || got.CPU != 0 || got.Threads != 0 {
		t.Fatalf("ok %v, %+v", ok, got)
	}
	if _, err := Open(t.TempDir()); err == nil {
		t.Fatal("Open of a root without /proc should fail")
	}
}

func TestParsers(t *testing.T) {
	if total, steal, ok := hostCPU([]byte("cpu  10 1 5 80 2 0 1 3 7 0\n")); !ok || total != 102 || steal != 3 {
		t.Fatalf("hostCPU = %d, %d, %v", total, steal, ok)
	}
	if _, _, ok := hostCPU([]byte("intr 1 2\n")); ok {
		t.Fatal("hostCPU of a line that is not cpu")
	}
	if v, ok := procCPUTicks([]byte("1 (a) b) R 1 1 1 0 -1 0 0 0 0 0 7 8 0 0")); !ok || v != 15 {
		t.Fatalf("procCPUTicks = %d, %v", v, ok)
	}
	if _, ok := procCPUTicks([]byte("1 (a) R 1")); ok {
		t.Fatal("procCPUTicks of a short line")
	}
}

// TestSampleAllocatesNothing: a sample of known threads allocates
// nothing (it runs every second for hours).
func TestSampleAllocatesNothing(t *testing.T) {
	p := newFakeProc(t)
	p.state(1, 1, "cpu  1 0 1 1 0 0 0 0 0 0", "0.10", map[string]string{"1": "1 1 1", "2": "2 2 2"})
	s, err := Open(p.root)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	now := time.Unix(0, 0)
	s.Sample(now)
	if a := testing.AllocsPerRun(20, func() {
		now = now.Add(time.Second)
		s.Sample(now)
	}); a != 0 {
		t.Fatalf("a sample allocates %v times", a)
	}
}

// TestSampleRealProc reads this process's own /proc, where there is one.
func TestSampleRealProc(t *testing.T) {
	if _, err := os.Stat("/proc/self/schedstat"); err != nil {
		t.Skip("no /proc/self/schedstat here")
	}
	s, err := Open("/")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.Sample(time.Unix(0, 0))
	got, ok := s.Sample(time.Unix(1, 0))
	if !ok || got.Threads < 1 || got.CPUSeconds <= 0 || got.CPU < 0 || got.Steal < 0 || got.Steal > 1 {
		t.Fatalf("ok %v, %+v", ok, got)
	}
}
