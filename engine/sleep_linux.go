//go:build linux

package engine

import (
	"runtime"
	"syscall"
	"time"
	"unsafe"
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

// holdPBelow is the longest sleep in which the pacer keeps its P (see
// preciseSleep); longer sleeps (rates under ~1000 ops/s) give it up.
const holdPBelow = time.Millisecond

// preciseSleep sleeps d with nanosleep on the current (pacer) thread.
//
// With hold, a sleep shorter than holdPBelow is a raw nanosleep: the Go
// scheduler sees the pacer running, so it keeps its P and runs the
// moment the kernel wakes it. A nanosleep through syscall.Nanosleep
// enters a syscall instead: sysmon retakes the P (polling every 20 us
// while one is pending, ~10% of a core at 500k ops/s) and hands it to a
// worker, and on waking the pacer queues for a P the workers hold. The
// runtime's preemption signal (a stop-the-world, a preemption after
// 10 ms) ends the raw sleep at once (EINTR), and the pacer yields at its
// next call. hold needs GOMAXPROCS >= 2, or the workers get no P while
// the pacer sleeps.
func preciseSleep(d time.Duration, hold bool) {
	if d <= 0 {
		return
	}
	ts := syscall.NsecToTimespec(int64(d))
	if hold && d < holdPBelow {
		// Interrupted: return early; the pacer looks at the schedule
		// and sleeps again.
		_, _, _ = syscall.RawSyscall(syscall.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&ts)), 0, 0)
		return
	}
	for {
		var rem syscall.Timespec
		err := syscall.Nanosleep(&ts, &rem)
		if err != syscall.EINTR {
			return
		}
		ts = rem
	}
}
