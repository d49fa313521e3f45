//go:build linux

package engine

import (
	"os"
	"runtime"
	"sync/atomic"
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

// timerfdRefused is why this process cannot have a timerfd pacer (nil:
// it can).
func timerfdRefused() error {
	s, err := newTimerfdSleeper()
	if err != nil {
		return err
	}
	s.close()
	return nil
}

// timerfdSleeper sleeps on a CLOCK_MONOTONIC timerfd, through the
// file's syscall.RawConn: the netpoller parks the pacer until the timer
// fires, and the timerfd_settime and the read of the expiration are raw
// syscalls. An ordinary read (os.File.Read) enters the runtime's syscall
// path, and while every P is idle that wakes the runtime's monitor
// thread (sysmon: a futex wake, then its 20 us nanosleep), once per
// pacer wake-up; and it first tried a read before the timer had fired.
type timerfdSleeper struct {
	f  *os.File
	fd uintptr
	rc syscall.RawConn
	// kicked is set by wake before it fires the timer: a sleep that
	// arms the timer after that firing sees it and does not wait.
	kicked atomic.Bool
	buf    [8]byte
	spec   itimerspec
	armed  bool
	err    syscall.Errno
	wait   func(fd uintptr) bool // s.waitFD, made once
}

func newTimerfdSleeper() (*timerfdSleeper, error) {
	const clockMonotonic = 1
	fd, _, errno := syscall.RawSyscall(syscall.SYS_TIMERFD_CREATE, clockMonotonic, syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if errno != 0 {
		return nil, errno
	}
	// A non-blocking fd is registered with the netpoller: a RawConn
	// read parks the goroutine until the timer fires.
	f := os.NewFile(fd, "pacer-timerfd")
	rc, err := f.SyscallConn()
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	s := &timerfdSleeper{f: f, fd: fd, rc: rc}
	s.wait = s.waitFD
	return s, nil
}

type itimerspec struct {
	interval, value syscall.Timespec
}

// waitFD is the RawConn read's step: the first call arms the timer (after
// the RawConn has cleared the fd's readiness, so its firing cannot be
// missed) and asks to wait; later calls read the expiration count, and
// wait again while there is none.
func (s *timerfdSleeper) waitFD(fd uintptr) bool {
	if !s.armed {
		s.armed = true
		_, _, errno := syscall.RawSyscall6(syscall.SYS_TIMERFD_SETTIME, fd, 0, uintptr(unsafe.Pointer(&s.spec)), 0, 0, 0)
		if errno != 0 {
			s.err = errno
			return true
		}
		// A wake whose firing this arming overwrote.
		return s.kicked.Swap(false)
	}
	for {
		_, _, errno := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&s.buf[0])), uintptr(len(s.buf)))
		switch errno {
		case 0:
			// Fired (by the time or a wake): the dispatcher looks at
			// what a wake was for before its next sleep.
			s.kicked.Store(false)
			return true
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false
		}
		s.err = errno
		return true
	}
}

func (s *timerfdSleeper) sleep(d time.Duration) {
	if d <= 0 {
		return
	}
	s.spec = itimerspec{value: syscall.NsecToTimespec(int64(d))}
	s.armed, s.err = false, 0
	if err := s.rc.Read(s.wait); err == nil && s.err == 0 {
		return
	}
	time.Sleep(d)
}

// wake fires the timer now (1 ns), from another goroutine: the sleep in
// progress ends, or, through kicked, the next one does not start.
func (s *timerfdSleeper) wake() {
	s.kicked.Store(true)
	now := itimerspec{value: syscall.Timespec{Nsec: 1}}
	_, _, _ = syscall.RawSyscall6(syscall.SYS_TIMERFD_SETTIME, s.fd, 0, uintptr(unsafe.Pointer(&now)), 0, 0, 0)
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
