package schedslice

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// Apply gives every thread of this process the slice d (0: the
// kernel's own again). Threads the Go runtime starts later are cloned
// from these and inherit it. Threads under a real-time policy keep it.
func Apply(d time.Duration) (Result, error) {
	if err := Check(d); err != nil {
		return Result{}, err
	}
	var res Result
	set := 0 // a thread given the slice, to read it back from
	done := map[int]bool{}
	// A thread the runtime clones from one not yet visited while the
	// list is read would keep the old slice: read until a pass finds no
	// thread it has not seen.
	for pass := 0; pass < 10; pass++ {
		tids, err := threads()
		if err != nil {
			return res, err
		}
		fresh := 0
		for _, tid := range tids {
			if done[tid] {
				continue
			}
			fresh++
			done[tid] = true
			rt, err := setOne(tid, d)
			switch {
			case errors.Is(err, unix.ESRCH): // the thread has ended
			case err != nil:
				return res, fmt.Errorf("thread %d: %w", tid, err)
			case rt:
				res.RealTime++
			default:
				res.Threads++
				set = tid
			}
		}
		if fresh == 0 {
			break
		}
	}
	if d != 0 && set != 0 {
		// This thread, unless it is a real-time one left alone.
		check := unix.Gettid()
		if a, err := unix.SchedGetAttr(check, 0); err == nil && !fair(a.Policy) {
			check = set
		}
		got, err := Slice(check)
		if err != nil {
			return res, err
		}
		if got != d {
			return res, ErrUnsupported
		}
	}
	return res, nil
}

// fair says whether a policy is one of the fair class's, the ones a
// slice applies to (not real-time or deadline).
func fair(policy uint32) bool { return policy == unix.SCHED_NORMAL || policy == unix.SCHED_BATCH }

// setOne sets thread tid's slice unless it runs under a real-time
// policy (rt true).
func setOne(tid int, d time.Duration) (rt bool, err error) {
	attr, err := unix.SchedGetAttr(tid, 0)
	if err != nil {
		return false, err
	}
	if !fair(attr.Policy) {
		return true, nil
	}
	attr.Runtime = uint64(d.Nanoseconds())
	attr.Flags = 0
	return false, unix.SchedSetAttr(tid, attr, 0)
}

// Slice is thread tid's slice as the kernel reports it: the custom one,
// or the kernel's default (0 before Linux 6.12).
func Slice(tid int) (time.Duration, error) {
	attr, err := unix.SchedGetAttr(tid, 0)
	if err != nil {
		return 0, err
	}
	return time.Duration(attr.Runtime), nil
}

// threads lists this process's thread ids.
func threads() ([]int, error) {
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil, err
	}
	tids := make([]int, 0, len(ents))
	for _, e := range ents {
		if tid, err := strconv.Atoi(e.Name()); err == nil {
			tids = append(tids, tid)
		}
	}
	return tids, nil
}
