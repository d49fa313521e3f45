// Package schedslice asks the kernel for a short scheduler time slice
// for every thread of this process: Linux's EEVDF scheduler (6.12 and
// later) lets a SCHED_OTHER task name its slice (sched_attr's
// sched_runtime, 100 us to 100 ms), and a waking task with a shorter
// slice than the one running may preempt it.
//
// soakd's pacer sleeps until each op's intended start; at normal
// priority other tasks on its CPU (on the development VM the RCU thread
// and DAMON's kdamond, 1 to 3.4 ms at a time) delay it. A shorter slice
// changes how often a task gets the CPU back, not its share of it, and
// needs no privilege (real-time priority, chrt, does). Whether a wake-up
// preempts at once depends on the kernel's preemption mode: on the
// development VM (PREEMPT_NONE, HZ 250) it waited for the tick, and 100
// us changed nothing measurable (docs/capacity.md).
package schedslice

import (
	"errors"
	"fmt"
	"time"
)

// The kernel's bounds for a custom slice.
const (
	Min = 100 * time.Microsecond
	Max = 100 * time.Millisecond
)

// Default is what soakd run and soakd serve ask for unless told
// otherwise: the kernel's own. On the development VM (Linux 6.18) 100
// us made no difference to the schedule's tail, on a quiet host or
// beside a CPU hog on soakd's core (docs/capacity.md), so it is
// offered, not imposed.
const Default = 0

// ErrUnsupported says the kernel keeps its own slice (before Linux
// 6.12, or not Linux).
var ErrUnsupported = errors.New("this kernel does not take a slice from a task (custom slices need Linux 6.12 or later)")

// Result is what Apply did.
type Result struct {
	Threads  int // threads given the slice
	RealTime int // threads left alone: they run under a real-time policy (chrt)
}

// Check refuses a slice outside the kernel's bounds (0 is allowed: it
// keeps the kernel's own).
func Check(d time.Duration) error {
	if d == 0 || (d >= Min && d <= Max) {
		return nil
	}
	return fmt.Errorf("%v: use %v to %v, or 0 to keep the kernel's", d, Min, Max)
}
