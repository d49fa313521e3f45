// Package hostprobe reads what a run's host is (rundir.Host) from /proc
// and /sys: the provenance a summary carries so that runs from unlike
// hosts are not compared as if alike.
package hostprobe

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/soakd/soakd/rundir"
)

// FS is where the host's files are read: "/" on a real host, a test's
// directory in tests.
type FS string

func (r FS) read(p string) string {
	b, err := os.ReadFile(filepath.Join(string(r), p))
	if err != nil || len(b) > 1<<20 {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// Read is the host record: kernel and CPU, memory and swap, THP, the
// governor and the limits of soakd's cgroup, and the load now (as
// LoadStart). Nothing here fails: what cannot be read stays empty.
func Read(root FS) rundir.Host {
	h := rundir.Host{Arch: runtime.GOARCH}
	h.Hostname = root.read("proc/sys/kernel/hostname")
	h.Kernel = root.read("proc/sys/kernel/osrelease")
	for _, line := range strings.Split(root.read("proc/cpuinfo"), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if ok && strings.TrimSpace(k) == "model name" {
			h.CPUModel = strings.TrimSpace(v)
			break
		}
	}
	h.Cores = cores(root)
	h.Governor = root.read("sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")
	if thp := root.read("sys/kernel/mm/transparent_hugepage/enabled"); thp != "" {
		if i, j := strings.IndexByte(thp, '['), strings.IndexByte(thp, ']'); i >= 0 && j > i {
			h.THP = thp[i+1 : j]
		} else {
			h.THP = thp
		}
	}
	mem := meminfo(root.read("proc/meminfo"))
	h.MemTotalBytes, h.SwapTotalBytes = mem["MemTotal"], mem["SwapTotal"]
	h.CgroupMemoryMax, h.CgroupCPUMax = cgroupLimits(root)
	h.LoadStart = Load(root)
	return h
}

// Load is the 1-minute load average (0 when unreadable).
func Load(root FS) float64 {
	f := strings.Fields(root.read("proc/loadavg"))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}

// cores is the CPUs this process may use: its affinity mask on the real
// host, else the processors /proc/cpuinfo lists.
func cores(root FS) int {
	if root == "/" {
		return runtime.NumCPU() // the affinity mask at start, on Linux
	}
	return bytes.Count([]byte(root.read("proc/cpuinfo")), []byte("processor\t:"))
}

// meminfo is /proc/meminfo's fields in bytes.
func meminfo(s string) map[string]int64 {
	out := map[string]int64{}
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		f := strings.Fields(v)
		if len(f) == 0 {
			continue
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			continue
		}
		if len(f) > 1 && f[1] == "kB" {
			n <<= 10
		}
		out[k] = n
	}
	return out
}

// cgroupLimits are memory.max and cpu.max of this process's cgroup (v2),
// else v1's memory.limit_in_bytes and cpu.cfs_quota_us/cfs_period_us.
func cgroupLimits(root FS) (mem, cpu string) {
	for _, line := range strings.Split(root.read("proc/self/cgroup"), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		ctrl, path := parts[1], parts[2]
		switch {
		case ctrl == "": // v2
			base := filepath.Join("sys/fs/cgroup", path)
			if v := root.read(filepath.Join(base, "memory.max")); v != "" {
				mem = v
			}
			if v := root.read(filepath.Join(base, "cpu.max")); v != "" {
				cpu = v
			}
		case hasCtrl(ctrl, "memory") && mem == "":
			if v := root.read(filepath.Join("sys/fs/cgroup/memory", path, "memory.limit_in_bytes")); v != "" {
				mem = v
				if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 1<<62 {
					mem = "max"
				}
			}
		case hasCtrl(ctrl, "cpu") && cpu == "":
			dir := filepath.Join("sys/fs/cgroup", ctrl, path)
			q, p := root.read(filepath.Join(dir, "cpu.cfs_quota_us")), root.read(filepath.Join(dir, "cpu.cfs_period_us"))
			if q != "" {
				if q == "-1" {
					q = "max"
				}
				cpu = q + " " + p
			}
		}
	}
	return mem, cpu
}

func hasCtrl(list, c string) bool {
	for _, x := range strings.Split(list, ",") {
		if x == c {
			return true
		}
	}
	return false
}
