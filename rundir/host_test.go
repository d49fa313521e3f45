package rundir

import (
	"strings"
	"testing"
)

// Hosts that differ in what changes a store's speed are unlike; a
// hostname or a modest load difference is only noted; a missing record
// is noted once and makes nothing unlike.
func TestHostDiff(t *testing.T) {
	a := &Host{Hostname: "a", Kernel: "6.1", Arch: "amd64", CPUModel: "X", Cores: 2, THP: "madvise", MemTotalBytes: 1 << 30, LoadStart: 0.2, LoadEnd: 0.3}
	if u, n := HostDiff(a, a); len(u)+len(n) != 0 {
		t.Fatalf("a host against itself: unlike %q, notes %q", u, n)
	}
	b := *a
	b.Hostname, b.LoadEnd = "b", 0.5
	if u, n := HostDiff(a, &b); len(u) != 0 || len(n) != 1 || !strings.Contains(n[0], `hostname "a" vs "b"`) {
		t.Errorf("hostname and load within 2x: unlike %q, notes %q", u, n)
	}
	c := *a
	c.Cores, c.Kernel, c.SwapTotalBytes, c.LoadEnd = 4, "6.8", 1<<30, 5
	u, n := HostDiff(a, &c)
	for _, want := range []string{"cores 2 vs 4", `kernel "6.1" vs "6.8"`, "swap 0 vs 1073741824 bytes"} {
		if !strings.Contains(strings.Join(u, "; "), want) {
			t.Errorf("unlike %q lacks %q", u, want)
		}
	}
	if len(n) != 1 || !strings.HasPrefix(n[0], "load ") {
		t.Errorf("load 0.3 vs 5: notes %q", n)
	}
	if u, n := HostDiff(nil, a); len(u) != 0 || len(n) != 1 {
		t.Errorf("no record: unlike %q, notes %q", u, n)
	}
	if u, n := HostDiff(nil, nil); len(u)+len(n) != 0 {
		t.Errorf("two old runs: unlike %q, notes %q", u, n)
	}
}
