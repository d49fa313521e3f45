package swapfile

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/soakd/soakd/internal/testutil"
)

// TestRealSwapfile turns a real 16 MB swapfile on and off with the real
// commands: /proc/swaps lists it in between, and afterwards it is
// neither listed nor on disk. Turning swap on needs root (CAP_SYS_ADMIN),
// so for any other user it skips: that is a property of the account, not
// a missing tool, and TestOnOff covers every clean-up path without root.
// The project's machines run the tests as root.
func TestRealSwapfile(t *testing.T) {
	if os.Geteuid() != 0 {
		testutil.HostSkip(t, "swapon needs root")
	}
	// /var/tmp: a swapfile needs a disk filesystem (tmpfs refuses it).
	h := Host{Dir: "/var/tmp"}
	f, err := h.On(context.Background(), 16<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Off()
	swaps := func() string {
		b, err := os.ReadFile("/proc/swaps")
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if !strings.Contains(swaps(), f.Path) {
		t.Fatalf("/proc/swaps lacks %s:\n%s", f.Path, swaps())
	}
	if err := f.Off(); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(swaps(), f.Path) {
		t.Errorf("%s still on after Off:\n%s", f.Path, swaps())
	}
	gone(t, f.Path)
}
