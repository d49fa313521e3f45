package hostprobe

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/soakd/soakd/rundir"
)

func tree(t *testing.T, files map[string]string) FS {
	t.Helper()
	root := t.TempDir()
	for p, body := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return FS(root)
}

func TestReadCgroupV2Host(t *testing.T) {
	root := tree(t, map[string]string{
		"proc/sys/kernel/hostname":  "soak-1\n",
		"proc/sys/kernel/osrelease": "6.1.0-13-amd64\n",
		"proc/cpuinfo":              "processor\t: 0\nmodel name\t: AMD EPYC 7B13\n\nprocessor\t: 1\nmodel name\t: AMD EPYC 7B13\n",
		"sys/devices/system/cpu/cpu0/cpufreq/scaling_governor": "performance\n",
		"sys/kernel/mm/transparent_hugepage/enabled":           "always [madvise] never\n",
		"proc/meminfo":     "MemTotal:       24000000 kB\nSwapTotal:       2097148 kB\n",
		"proc/self/cgroup": "0::/system.slice/soakd.service\n",
		"sys/fs/cgroup/system.slice/soakd.service/memory.max": "4294967296\n",
		"sys/fs/cgroup/system.slice/soakd.service/cpu.max":    "150000 100000\n",
		"proc/loadavg": "1.25 0.80 0.40 2/300 1234\n",
	})
	h := Read(root)
	want := rundir.Host{Hostname: "soak-1", Kernel: "6.1.0-13-amd64", Arch: h.Arch, CPUModel: "AMD EPYC 7B13", Cores: 2,
		Governor: "performance", THP: "madvise", MemTotalBytes: 24000000 << 10, SwapTotalBytes: 2097148 << 10,
		CgroupMemoryMax: "4294967296", CgroupCPUMax: "150000 100000", LoadStart: 1.25}
	if h != want {
		t.Errorf("got  %+v\nwant %+v", h, want)
	}
}

func TestReadCgroupV1AndMissingFiles(t *testing.T) {
	root := tree(t, map[string]string{
		"proc/self/cgroup": "12:memory:/soak\n11:cpu,cpuacct:/soak\n",
		"sys/fs/cgroup/memory/soak/memory.limit_in_bytes":  "9223372036854771712\n",
		"sys/fs/cgroup/cpu,cpuacct/soak/cpu.cfs_quota_us":  "-1\n",
		"sys/fs/cgroup/cpu,cpuacct/soak/cpu.cfs_period_us": "100000\n",
	})
	h := Read(root)
	if h.CgroupMemoryMax != "max" || h.CgroupCPUMax != "max 100000" {
		t.Errorf("v1 limits: memory %q cpu %q", h.CgroupMemoryMax, h.CgroupCPUMax)
	}
	if h.Kernel != "" || h.CPUModel != "" || h.Cores != 0 || h.LoadStart != 0 {
		t.Errorf("missing files should leave fields empty: %+v", h)
	}
}

func TestHostDiff(t *testing.T) {
	a := &rundir.Host{CPUModel: "X", Cores: 2, Kernel: "6.1", Hostname: "a", LoadStart: 0.3, LoadEnd: 0.4}
	b := *a
	if u, n := rundir.HostDiff(a, &b); len(u)+len(n) != 0 {
		t.Errorf("same host: %v %v", u, n)
	}
	b.Cores, b.Hostname, b.LoadEnd = 4, "b", 6
	u, n := rundir.HostDiff(a, &b)
	if len(u) != 1 || u[0] != "cores 2 vs 4" || len(n) != 2 {
		t.Errorf("unlike %v, notes %v", u, n)
	}
	if u, n := rundir.HostDiff(a, nil); len(u) != 0 || len(n) != 1 {
		t.Errorf("no record: %v %v", u, n)
	}
}
