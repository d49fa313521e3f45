//go:build linux

package engine

import (
	"os"
	"runtime"
	"syscall"
	"time"
	"unsafe"
)

// newPacerSleeper returns the pacer's sleep: a timerfd read through the
// Go netpoller, or, where timerfd_create is refused (a seccomp filter),
// nanosleep on a locked thread.
//
// The timerfd wakes on its hrtimer, microseconds late, where a Go timer
// wakes in whole milliseconds (the netpoller's epoll timeout). And the
// pacer parks like any goroutine: the workers it just woke run on its
// P at once. A pacer sleeping in nanosleep keeps its P in a syscall,
// so the workers queued on that P waited for another P to steal them
// or for sysmon to take the P back, up to 10 ms: that, not the sleep,
// was the lag tail (lag p99 at 6,000 ops/s on one core: 1.6 ms with
// GOMAXPROCS=1, 0.2 ms at 2; with the timerfd 0.07 ms at 1, with no
// GOMAXPROCS floor needed).
func newPacerSleeper() pacerSleeper {
	if s, err := newTimerfdSleeper(); err == nil {
		return s
	}
	return newThreadSleeper()
}

// timerfdSleeper sleeps on a CLOCK_MONOTONIC timerfd.
type timerfdSleeper struct {
	f   *os.File
	fd  uintptr
	buf [8]byte
}

func newTimerfdSleeper() (*timerfdSleeper, error) {
	const clockMonotonic = 1
	fd, _, errno := syscall.RawSyscall(syscall.SYS_TIMERFD_CREATE, clockMonotonic, syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if errno != 0 {
		return nil, errno
	}
	// A non-blocking fd is registered with the netpoller: Read parks
	// the goroutine until the timer fires.
	return &timerfdSleeper{f: os.NewFile(fd, "pacer-timerfd"), fd: fd}, nil
}

type itimerspec struct {
	interval, value syscall.Timespec
}

func (s *timerfdSleeper) sleep(d time.Duration) {
	if d <= 0 {
		return
	}
	spec := itimerspec{value: syscall.NsecToTimespec(int64(d))}
	_, _, errno := syscall.RawSyscall6(syscall.SYS_TIMERFD_SETTIME, s.fd, 0, uintptr(unsafe.Pointer(&spec)), 0, 0, 0)
	if errno == 0 {
		// The read returns the number of expirations (1) once it fired.
		if _, err := s.f.Read(s.buf[:]); err == nil {
			return
		}
	}
	time.Sleep(d)
}

func (s *timerfdSleeper) close() { _ = s.f.Close() }

// threadSleeper is the fallback: the pacer on its own OS thread with a
// 1 ns timer slack, sleeping with nanosleep.
type threadSleeper struct{}

const prSetTimerSlack = 29

func newThreadSleeper() threadSleeper {
	runtime.LockOSThread()
	_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, prSetTimerSlack, 1, 0)
	return threadSleeper{}
}

func (threadSleeper) sleep(d time.Duration) {
	if d <= 0 {
		return
	}
	ts := syscall.NsecToTimespec(int64(d))
	for {
		var rem syscall.Timespec
		err := syscall.Nanosleep(&ts, &rem)
		if err != syscall.EINTR {
			return
		}
		ts = rem
	}
}

func (threadSleeper) close() { runtime.UnlockOSThread() }
