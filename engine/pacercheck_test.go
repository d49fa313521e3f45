package engine

import (
	"strings"
	"syscall"
	"testing"
)

// A run starts with the timerfd pacer on any number of cores, and with
// the fallback only where it has two or more Ps; on one core without
// timerfd it is refused with the reason and the way out.
func TestPacerCheck(t *testing.T) {
	refused := syscall.EPERM
	for _, c := range []struct {
		err   error
		procs int
		ok    bool
	}{
		{nil, 1, true},
		{nil, 8, true},
		{refused, 2, true},
		{refused, 1, false},
	} {
		err := pacerCheck(c.err, c.procs)
		if (err == nil) != c.ok {
			t.Errorf("timerfd error %v, %d Ps: %v, want ok=%v", c.err, c.procs, err, c.ok)
		}
		if err != nil && (!strings.Contains(err.Error(), "timerfd_create was refused") || !strings.Contains(err.Error(), "two cores")) {
			t.Errorf("refusal does not say why or what to do: %v", err)
		}
	}
}
