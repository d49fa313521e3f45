//go:build linux

package engine

import (
	"runtime"
	"syscall"
	"time"
)

const prSetTimerSlack = 29

// pacerThread pins the calling goroutine to its own OS thread and sets
// that thread's timer slack to 1 ns, so short sleeps wake on time instead
// of in the default 50 us (and Go timer ~1 ms) steps.
func pacerThread() (release func()) {
	runtime.LockOSThread()
	_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, prSetTimerSlack, 1, 0)
	return runtime.UnlockOSThread
}

// preciseSleep sleeps d with nanosleep on the current (pacer) thread.
func preciseSleep(d time.Duration) {
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
