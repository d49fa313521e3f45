package main

import (
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/soakd/soakd/internal/schedslice"
)

// schedFlags is --sched-slice, of run and serve.
type schedFlags struct {
	slice time.Duration
}

func (s *schedFlags) register(fs *flag.FlagSet) {
	fs.DurationVar(&s.slice, "sched-slice", schedslice.Default, "ask the kernel for this scheduler time slice (`D`) for soakd's threads (Linux 6.12+, 100us..100ms; 0 = the kernel's, the default): a waking task with a shorter slice than the running one may preempt it; its share of the CPU stays the same. Real-time threads (chrt) keep their policy")
}

// apply asks for the slice. A slice out of bounds is refused (ok
// false); a kernel that does not take one is said on stderr when the
// flag was given, and the run goes on with the kernel's.
func (a *App) applySched(cmd string, fs *flag.FlagSet, s schedFlags) (ok bool) {
	if err := schedslice.Check(s.slice); err != nil {
		fmt.Fprintf(a.Stderr, "soakd %s: --sched-slice %v\n", cmd, err)
		return false
	}
	given := false
	fs.Visit(func(fl *flag.Flag) { given = given || fl.Name == "sched-slice" })
	if !given && s.slice == schedslice.Default {
		return true // the kernel's, untouched
	}
	if _, err := schedslice.Apply(s.slice); err != nil && (given || !errors.Is(err, schedslice.ErrUnsupported)) {
		fmt.Fprintf(a.Stderr, "soakd %s: --sched-slice %v: %v; soakd runs with the kernel's slice\n", cmd, s.slice, err)
	}
	return true
}
