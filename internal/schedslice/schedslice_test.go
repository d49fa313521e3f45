package schedslice

import (
	"errors"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// customSlices says whether this kernel takes a slice from a task:
// Linux 6.12 or later.
func customSlices(t *testing.T) bool {
	t.Helper()
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		t.Fatal(err)
	}
	rel := unix.ByteSliceToString(u.Release[:])
	parts := strings.SplitN(rel, ".", 3)
	major, err1 := strconv.Atoi(parts[0])
	minor, err2 := strconv.Atoi(strings.TrimFunc(parts[1], func(r rune) bool { return r < '0' || r > '9' }))
	if err1 != nil || err2 != nil {
		t.Fatalf("kernel release %q", rel)
	}
	return major > 6 || major == 6 && minor >= 12
}

// procSlices reads every thread's slice from /proc (the scheduler's own
// account, not sched_getattr's).
func procSlices(t *testing.T) map[string]string {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range ents {
		b, err := os.ReadFile("/proc/self/task/" + e.Name() + "/sched")
		if err != nil {
			continue // ended
		}
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "se.slice") {
				out[e.Name()] = strings.TrimSpace(line[strings.IndexByte(line, ':')+1:])
			}
		}
	}
	return out
}

func TestApplyGivesEveryThreadTheSlice(t *testing.T) {
	if !customSlices(t) {
		if _, err := Apply(200 * time.Microsecond); !errors.Is(err, ErrUnsupported) {
			t.Fatalf("before Linux 6.12: Apply = %v, want ErrUnsupported", err)
		}
		return
	}
	before, err := Slice(unix.Gettid())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := Apply(0); err != nil {
			t.Errorf("restoring the kernel's slice: %v", err)
		}
	})
	res, err := Apply(200 * time.Microsecond)
	if err != nil {
		t.Fatal(err)
	}
	if res.Threads < 2 || res.RealTime != 0 {
		t.Fatalf("Apply: %+v, want every thread (a Go test has several), none real-time", res)
	}
	// Threads started after Apply inherit it: park a few goroutines on
	// their own threads.
	var ready, release sync.WaitGroup
	release.Add(1)
	for i := 0; i < 4; i++ {
		ready.Add(1)
		go func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			ready.Done()
			release.Wait()
		}()
	}
	ready.Wait()
	slices := procSlices(t)
	release.Done()
	if len(slices) < res.Threads {
		t.Fatalf("/proc lists %d threads, Apply set %d", len(slices), res.Threads)
	}
	for tid, s := range slices {
		if s != "200000" {
			t.Errorf("thread %s: se.slice %s ns, want 200000", tid, s)
		}
	}

	if _, err := Apply(0); err != nil {
		t.Fatal(err)
	}
	if got, err := Slice(unix.Gettid()); err != nil || got != before {
		t.Fatalf("after Apply(0): slice %v (%v), want the kernel's %v back", got, err, before)
	}
}

func TestApplyLeavesRealTimeThreads(t *testing.T) {
	if !customSlices(t) {
		return // TestApplyGivesEveryThreadTheSlice checks the refusal
	}
	done := make(chan struct{})
	tidc := make(chan int)
	go func() {
		runtime.LockOSThread() // the thread ends with the goroutine: its policy goes with it
		attr := &unix.SchedAttr{Policy: unix.SCHED_FIFO, Priority: 1}
		if err := unix.SchedSetAttr(0, attr, 0); err != nil {
			tidc <- -1
			return
		}
		tidc <- unix.Gettid()
		<-done
	}()
	tid := <-tidc
	defer close(done)
	if tid < 0 {
		// Not permitted here (no CAP_SYS_NICE, no RLIMIT_RTPRIO):
		// the refusal is the kernel's; nothing of Apply's to check.
		t.Log("SCHED_FIFO refused: no real-time thread to leave alone")
		return
	}
	t.Cleanup(func() { _, _ = Apply(0) })
	res, err := Apply(Min)
	if err != nil {
		t.Fatal(err)
	}
	if res.RealTime != 1 {
		t.Fatalf("Apply: %+v, want the one SCHED_FIFO thread left alone", res)
	}
	attr, err := unix.SchedGetAttr(tid, 0)
	if err != nil || attr.Policy != unix.SCHED_FIFO || attr.Priority != 1 {
		t.Fatalf("the real-time thread: %+v (%v), want SCHED_FIFO 1 kept", attr, err)
	}
}

func TestCheckBounds(t *testing.T) {
	for d, ok := range map[time.Duration]bool{
		0: true, Min: true, Max: true, time.Millisecond: true,
		Min - 1: false, 50 * time.Microsecond: false, Max + 1: false, time.Second: false, -Min: false,
	} {
		err := Check(d)
		if (err == nil) != ok {
			t.Errorf("Check(%v) = %v, want ok=%v", d, err, ok)
		}
		if err != nil && !strings.Contains(err.Error(), "use 100µs to 100ms") {
			t.Errorf("Check(%v) = %q, want the bounds named", d, err)
		}
		if _, aerr := Apply(d); (aerr == nil || errors.Is(aerr, ErrUnsupported)) != ok {
			t.Errorf("Apply(%v) = %v, want refused=%v", d, aerr, !ok)
		}
	}
	_, _ = Apply(0)
}

// Apply called from a real-time thread (soakd under chrt) reads the
// slice back from a thread it set, not from its own: no false
// ErrUnsupported.
func TestApplyFromRealTimeThread(t *testing.T) {
	if !customSlices(t) {
		return // TestApplyGivesEveryThreadTheSlice checks the refusal
	}
	t.Cleanup(func() { _, _ = Apply(0) })
	type out struct {
		res Result
		err error
		ok  bool
	}
	c := make(chan out)
	go func() {
		runtime.LockOSThread() // the thread ends with the goroutine: its policy goes with it
		if err := unix.SchedSetAttr(0, &unix.SchedAttr{Policy: unix.SCHED_FIFO, Priority: 1}, 0); err != nil {
			c <- out{err: err}
			return
		}
		res, err := Apply(300 * time.Microsecond)
		c <- out{res, err, true}
	}()
	o := <-c
	if !o.ok {
		t.Fatalf("SCHED_FIFO refused (%v): the test runs as root in CI", o.err)
	}
	if o.err != nil || o.res.RealTime < 1 || o.res.Threads < 1 {
		t.Fatalf("Apply from a SCHED_FIFO thread: %+v, %v; want the others set and no error", o.res, o.err)
	}
}
