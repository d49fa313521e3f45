package storeinfo

import (
	"fmt"
	"strings"
)

// MemoryLimits is what caps a server's memory, as far as soakd can tell
// (summary.json's target.memory_limits; the targets that can tell fill
// it, as targets.MemoryLimiter):
// the store's own limit and, for a server soakd started, the cgroup cap
// the host allowed. Reports print it so a cliff can be read against it.
type MemoryLimits struct {
	MaxMemoryBytes int64  `json:"max_memory_bytes,omitempty"` // the store's own cap (Redis maxmemory); 0 = none
	Policy         string `json:"policy,omitempty"`           // what the store does at the cap (maxmemory-policy)
	// Managed is set when soakd started the server, so a cgroup cap was
	// its to set.
	Managed bool `json:"managed,omitempty"`
	// Cgroup is the controller version in use ("v1" or "v2"), "" when
	// the server runs without a cgroup cap.
	Cgroup     string `json:"cgroup,omitempty"`
	CgroupPath string `json:"cgroup_path,omitempty"`
	// CgroupNote says why there is no cap (asked for but not allowed, or
	// not asked for and what the host would allow), or a caveat about
	// the cap set (swap not accounted).
	CgroupNote        string `json:"cgroup_note,omitempty"`
	CgroupMemoryBytes int64  `json:"cgroup_memory_bytes,omitempty"` // asked for
	CgroupSwapBytes   int64  `json:"cgroup_swap_bytes,omitempty"`   // asked for, on top of memory
	// HostSwapBytes is SwapTotal of the host the server runs on; nil
	// when the server is not on soakd's host.
	HostSwapBytes *int64 `json:"host_swap_bytes,omitempty"`
}

// FormatBytes prints a size in the units scenarios use (1 MB = 1024 KB):
// 512mb prints as 512.0 MB.
func FormatBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// String is the one-line form for reports, e.g. "maxmemory 512.0 MB
// (allkeys-lru); cgroup v1 memory 256.0 MB + swap 1.0 GB; host swap 2.0
// GB".
func (m *MemoryLimits) String() string {
	if m == nil {
		return ""
	}
	var parts []string
	mm := "maxmemory none"
	if m.MaxMemoryBytes > 0 {
		mm = "maxmemory " + FormatBytes(m.MaxMemoryBytes)
	}
	if m.Policy != "" {
		mm += " (" + m.Policy + ")"
	}
	parts = append(parts, mm)
	switch {
	case m.Cgroup != "":
		c := "cgroup " + m.Cgroup + " memory " + FormatBytes(m.CgroupMemoryBytes)
		if m.CgroupSwapBytes > 0 {
			c += " + swap " + FormatBytes(m.CgroupSwapBytes)
		} else {
			c += ", no swap"
		}
		if m.CgroupNote != "" {
			c += " (" + m.CgroupNote + ")"
		}
		parts = append(parts, c)
	case m.CgroupNote != "":
		parts = append(parts, m.CgroupNote)
	}
	if m.HostSwapBytes != nil {
		if *m.HostSwapBytes > 0 {
			parts = append(parts, "host swap "+FormatBytes(*m.HostSwapBytes))
		} else {
			parts = append(parts, "host swap off")
		}
	}
	return strings.Join(parts, "; ")
}
