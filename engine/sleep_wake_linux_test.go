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

// BenchmarkPacerWake is what one wake-up of an otherwise idle process
// costs: the timerfd pacer's sleep of 167 us (6,000 ops/s) with nothing
// else to do, so each iteration is one park in epoll and one wake-up by
// the timer (cpu-ns/op: the process's CPU; ctxsw/op: its context
// switches). /twice sleeps the same period in two parts: two wake-ups,
// as an op whose reply wakes the process besides the pacer. Run on one
// core: taskset -c 1 go test -run XXX -bench PacerWake -cpu 1 ./engine/
func BenchmarkPacerWake(b *testing.B) {
	for _, parts := range []int{1, 2} {
		name := "once"
		if parts == 2 {
			name = "twice"
		}
		b.Run(name, func(b *testing.B) {
			s, err := newTimerfdSleeper()
			if err != nil {
				b.Fatalf("timerfd refused here: %v", err)
			}
			defer s.close()
			const period = 167 * time.Microsecond
			s.sleep(time.Millisecond)
			var ru0, ru1 syscall.Rusage
			_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
			for b.Loop() {
				if parts == 1 {
					s.sleep(period)
					continue
				}
				s.sleep(40 * time.Microsecond)
				s.sleep(period - 40*time.Microsecond)
			}
			_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
			n := float64(b.N)
			cpu := ru1.Utime.Nano() + ru1.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano()
			b.ReportMetric(float64(cpu)/n, "cpu-ns/op")
			b.ReportMetric(float64(ru1.Nvcsw+ru1.Nivcsw-ru0.Nvcsw-ru0.Nivcsw)/n, "ctxsw/op")
		})
	}
}
