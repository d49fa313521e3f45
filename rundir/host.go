package rundir

import "fmt"

// Host is where a run ran: what can make two runs of one scenario
// differ that is not the store. Every field is best effort: empty or 0
// where the host did not say.
type Host struct {
	Hostname string `json:"hostname,omitempty"`
	Kernel   string `json:"kernel,omitempty"` // uname release
	Arch     string `json:"arch,omitempty"`
	CPUModel string `json:"cpu_model,omitempty"`
	// Cores is the CPUs this process may run on (its affinity mask).
	Cores int `json:"cores,omitempty"`
	// Governor is cpu0's cpufreq scaling governor ("" without cpufreq,
	// as in most VMs).
	Governor string `json:"governor,omitempty"`
	// THP is transparent huge pages' mode (the bracketed one of
	// /sys/kernel/mm/transparent_hugepage/enabled).
	THP            string `json:"thp,omitempty"`
	MemTotalBytes  int64  `json:"mem_total_bytes,omitempty"`
	SwapTotalBytes int64  `json:"swap_total_bytes,omitempty"`
	// CgroupMemoryMax and CgroupCPUMax are the limits of soakd's own
	// cgroup ("max" when unlimited; "" when not found).
	CgroupMemoryMax string `json:"cgroup_memory_max,omitempty"`
	CgroupCPUMax    string `json:"cgroup_cpu_max,omitempty"`
	// LoadStart and LoadEnd are the 1-minute load average when the run
	// started and ended.
	LoadStart float64 `json:"load_start"`
	LoadEnd   float64 `json:"load_end"`
}

// HostDiff lists how b's host differs from a's: unlike are differences
// that change what a store can do or how soakd is scheduled (CPU model,
// cores, kernel, architecture, governor, THP, memory, swap, cgroup
// limits), so runs on them are not comparable; notes are the rest
// (hostname, load). A run without a host record (older summaries) is
// unlike nothing and noted once.
func HostDiff(a, b *Host) (unlike, notes []string) {
	if a == nil || b == nil {
		if a != b {
			notes = append(notes, "one run has no host record (written by an older soakd)")
		}
		return nil, notes
	}
	str := func(name, x, y string, hard bool) {
		if x == y {
			return
		}
		d := fmt.Sprintf("%s %q vs %q", name, x, y)
		if hard {
			unlike = append(unlike, d)
		} else {
			notes = append(notes, d)
		}
	}
	str("cpu model", a.CPUModel, b.CPUModel, true)
	if a.Cores != b.Cores {
		unlike = append(unlike, fmt.Sprintf("cores %d vs %d", a.Cores, b.Cores))
	}
	str("arch", a.Arch, b.Arch, true)
	str("kernel", a.Kernel, b.Kernel, true)
	str("governor", a.Governor, b.Governor, true)
	str("thp", a.THP, b.THP, true)
	if a.MemTotalBytes != b.MemTotalBytes {
		unlike = append(unlike, fmt.Sprintf("memory %d vs %d bytes", a.MemTotalBytes, b.MemTotalBytes))
	}
	if a.SwapTotalBytes != b.SwapTotalBytes {
		unlike = append(unlike, fmt.Sprintf("swap %d vs %d bytes", a.SwapTotalBytes, b.SwapTotalBytes))
	}
	str("cgroup memory.max", a.CgroupMemoryMax, b.CgroupMemoryMax, true)
	str("cgroup cpu.max", a.CgroupCPUMax, b.CgroupCPUMax, true)
	str("hostname", a.Hostname, b.Hostname, false)
	if max(a.LoadStart, a.LoadEnd) > 2*max(b.LoadStart, b.LoadEnd, 0.5) || max(b.LoadStart, b.LoadEnd) > 2*max(a.LoadStart, a.LoadEnd, 0.5) {
		notes = append(notes, fmt.Sprintf("load %.2f-%.2f vs %.2f-%.2f", a.LoadStart, a.LoadEnd, b.LoadStart, b.LoadEnd))
	}
	return unlike, notes
}
