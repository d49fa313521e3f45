package targets

import "testing"

func TestMemoryLimitsString(t *testing.T) {
	gb2, off := int64(2<<30), int64(0)
	for _, tc := range []struct {
		m    *MemoryLimits
		want string
	}{
		{&MemoryLimits{MaxMemoryBytes: 512 << 20, Policy: "allkeys-lru", Managed: true, Cgroup: "v1", CgroupMemoryBytes: 256 << 20, CgroupSwapBytes: 1 << 30, HostSwapBytes: &gb2},
			"maxmemory 512.0 MB (allkeys-lru); cgroup v1 memory 256.0 MB + swap 1.0 GB; host swap 2.0 GB"},
		{&MemoryLimits{MaxMemoryBytes: 1 << 30, Policy: "noeviction", Managed: true, Cgroup: "v2", CgroupMemoryBytes: 64 << 20, CgroupNote: "swap not limited", HostSwapBytes: &off},
			"maxmemory 1.0 GB (noeviction); cgroup v2 memory 64.0 MB, no swap (swap not limited); host swap off"},
		{&MemoryLimits{Policy: "noeviction", Managed: true, CgroupMemoryBytes: 64 << 20, CgroupNote: "cgroup memory cap not available: cgroup v2 has no memory controller; cgroup v1 memory not mounted", HostSwapBytes: &off},
			"maxmemory none (noeviction); cgroup memory cap not available: cgroup v2 has no memory controller; cgroup v1 memory not mounted; host swap off"},
		{&MemoryLimits{MaxMemoryBytes: 1500, Policy: "allkeys-lru"}, "maxmemory 1.5 KB (allkeys-lru)"},
		{nil, ""},
	} {
		if got := tc.m.String(); got != tc.want {
			t.Errorf("got  %q\nwant %q", got, tc.want)
		}
	}
}
