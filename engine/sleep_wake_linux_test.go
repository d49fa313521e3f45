//go:build linux

package engine

import (
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/soakd/soakd/internal/testutil"
)

// The timerfd pacer's sleep costs its own thread's park in epoll and
// nothing more: its syscalls are raw, so they do not wake the runtime's
// monitor thread (sysmon), which sleeps while every P is idle and which
// an ordinary syscall wakes (a futex wake, then its 20 us nanosleep: two
// more voluntary context switches a sleep, three in all). Counted, not
// timed: the process's voluntary context switches over 300 sleeps at
// GOMAXPROCS=1.
func TestTimerfdSleepDoesNotWakeSysmon(t *testing.T) {
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	s, err := newTimerfdSleeper()
	if err != nil {
		testutil.HostSkip(t, "timerfd refused here: %v", err)
	}
	defer s.close()
	s.sleep(time.Millisecond) // settle: first-use costs are not per sleep
	const n = 300
	v0 := voluntarySwitches(t)
	for i := 0; i < n; i++ {
		s.sleep(200 * time.Microsecond)
	}
	per := float64(voluntarySwitches(t)-v0) / n
	t.Logf("%.2f voluntary context switches per sleep", per)
	if per > 2.0 {
		t.Errorf("%.2f voluntary context switches per pacer sleep, want about 1 (its own park): a syscall wakes sysmon", per)
	}
}

func voluntarySwitches(t *testing.T) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return ru.Nvcsw
}
