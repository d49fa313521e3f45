//go:build linux

package term

import (
	"os"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal's terminal end, or skips with nil
// when the host has none to give.
func openPTY(t *testing.T) *os.File {
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Logf("no /dev/ptmx: %v", err)
		return nil
	}
	t.Cleanup(func() { m.Close() })
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Logf("unlockpt: %v", err)
		return nil
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Logf("ptsname: %v", err)
		return nil
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Logf("open pts: %v", err)
		return nil
	}
	t.Cleanup(func() { s.Close() })
	return s
}
