package engine

import "fmt"

// pacerCheck decides whether a run may start with the pacer this host
// gives it. timerfdErr is why timerfd_create was refused (nil: the
// timerfd pacer is there); procs is the Ps the run gets (GOMAXPROCS,
// which follows the CPU affinity: 1 under taskset -c 1).
//
// The fallback pacer sleeps in nanosleep on a locked thread and keeps
// its P while it sleeps. With one P, the workers it just released wait
// for sysmon to retake that P, up to 10 ms: lag p99 at 6,000 ops/s was
// 1.6 ms against the timerfd's 0.07 ms (20x; sleep_linux.go). That is
// not a schedule soakd can vouch for, so a run on one core without
// timerfd is refused, saying why, rather than reported with a lag that
// is the pacer's own. With two or more Ps the fallback held 0.2 ms.
func pacerCheck(timerfdErr error, procs int) error {
	if timerfdErr == nil || procs > 1 {
		return nil
	}
	return fmt.Errorf("the pacer needs timerfd on one core: timerfd_create was refused (%v, a seccomp filter?), and the fallback pacer on one core lags the schedule by milliseconds (lag p99 1.6 ms against 0.07 ms at 6,000 ops/s); give soakd two cores (taskset, cpuset) or allow timerfd_create", timerfdErr)
}
