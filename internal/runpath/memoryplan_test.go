package runpath

import (
	"strings"
	"testing"

	"github.com/soakd/soakd/targets"
)

// limited is a target that says what caps its memory.
type limited struct {
	targets.Target
	m *targets.MemoryLimits
}

func (l limited) MemoryLimits() *targets.MemoryLimits { return l.m }

// Swap asked for on a host with none is said before the run; swap on a
// host that has it, no swap asked, no cgroup cap, a remote server
// (host swap unknown) and a target that does not tell say nothing.
func TestMemoryPlanWarnings(t *testing.T) {
	none, some := int64(0), int64(1<<30)
	plan := func(swap int64, host *int64, cgroup string) targets.Target {
		return limited{m: &targets.MemoryLimits{Managed: true, Cgroup: cgroup, CgroupMemoryBytes: 256 << 20, CgroupSwapBytes: swap, HostSwapBytes: host}}
	}
	ws := memoryPlanWarnings(plan(1<<30, &none, "v1"))
	if len(ws) != 1 || !strings.Contains(ws[0], "allows the server 1.0 GB of swap, but this host has no swap") ||
		!strings.Contains(ws[0], "past cgroup_memory (256.0 MB)") || !strings.Contains(ws[0], "--swap SIZE") {
		t.Fatalf("warnings %q", ws)
	}
	for name, tg := range map[string]targets.Target{
		"host has swap":   plan(1<<30, &some, "v1"),
		"no swap asked":   plan(0, &none, "v1"),
		"no cgroup cap":   plan(1<<30, &none, ""),
		"remote server":   plan(1<<30, nil, "v1"),
		"does not tell":   struct{ targets.Target }{},
		"nothing to tell": limited{},
	} {
		if ws := memoryPlanWarnings(tg); len(ws) != 0 {
			t.Errorf("%s: %q", name, ws)
		}
	}
}
