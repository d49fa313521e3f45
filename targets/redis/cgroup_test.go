package redis

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
	"github.com/soakd/soakd/targets/internal/cgroup"

	"github.com/soakd/soakd/internal/testutil"
)

// needCgroup skips when this host allows no memory cgroup, with the
// reason detection gives. On the project's machines (cgroup v1, root)
// it does not skip. It stays a skip even under SOAKD_REQUIRE_TOOLS=1:
// a memory cgroup is a property of the host or container (a rootless or
// nested container may offer none), not a tool CI can install, and
// TestManagedWithoutCgroup covers the path taken without one.
func needCgroup(t *testing.T) {
	t.Helper()
	if s := (cgroup.Host{}).Detect(); s.Version == "" {
		testutil.HostSkip(t, "host allows no memory cgroup: %s", s.Reason)
	}
	g, err := cgroup.Host{}.Create(fmt.Sprintf("soakd-probe-%d", os.Getpid()), cgroup.Limits{Memory: 64 << 20})
	if err != nil {
		testutil.HostSkip(t, "host allows no memory cgroup: %v", err)
	}
	if err := g.Remove(); err != nil {
		t.Fatal(err)
	}
}

// procCgroup is the line of /proc/pid/cgroup for the memory controller
// (v1) or the unified hierarchy (v2).
func procCgroup(t *testing.T, pid int, version string) string {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cgroup")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		parts := strings.SplitN(l, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if (version == "v2" && parts[0] == "0" && parts[1] == "") || (version == "v1" && strings.Contains(","+parts[1]+",", ",memory,")) {
			return parts[2]
		}
	}
	return ""
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

func limitFile(version string) string {
	if version == "v2" {
		return "memory.max"
	}
	return "memory.limit_in_bytes"
}

// TestManagedCgroupCap: a managed redis-server with cgroup_memory 64mb
// runs in soakd's cgroup with that limit, its stats carry the cgroup
// figures, and the group is gone after Close.
func TestManagedCgroupCap(t *testing.T) {
	needCgroup(t)
	var warned []string
	testutil.NeedFile(t, "/usr/bin/redis-server")
	ctx := ctxT(t)
	tgt, err := targets.Open(ctx, scenarios.Target{Kind: "redis", Managed: &scenarios.Managed{CgroupMemory: 64 << 20, MaxMemory: 256 << 20, Policy: "noeviction"}},
		targets.Options{Warn: func(m string) { warned = append(warned, m) }})
	if err != nil {
		t.Fatal(err)
	}
	tg := tgt.(*Target)
	defer tg.Close()
	ms := tg.Managed()
	version, path, note := ms.Cgroup()
	if version == "" {
		t.Fatalf("no cgroup though the host allows one: %s", note)
	}
	if len(warned) != 0 {
		t.Errorf("warnings with the cap in place: %v", warned)
	}
	name := CgroupName(ms.Port)
	if filepath.Base(path) != name {
		t.Errorf("cgroup path %s, want one named %s", path, name)
	}
	if got := procCgroup(t, ms.Pid(), version); filepath.Base(got) != name {
		t.Errorf("/proc/%d/cgroup names %q, want the group %s", ms.Pid(), got, name)
	}
	b, err := os.ReadFile(filepath.Join(path, limitFile(version)))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(b)); got != strconv.Itoa(64<<20) {
		t.Errorf("%s = %s, want %d", limitFile(version), got, 64<<20)
	}
	for i := int64(0); i < 200; i++ {
		if err := tg.Do(ctx, insertReq(i)); err != nil {
			t.Fatal(err)
		}
	}
	st, err := tg.ServerStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st["cgroup_memory_limit_bytes"] != 64<<20 {
		t.Errorf("cgroup_memory_limit_bytes = %v, want %d", st["cgroup_memory_limit_bytes"], 64<<20)
	}
	if st["cgroup_memory_usage_bytes"] <= 0 {
		t.Errorf("cgroup_memory_usage_bytes = %v, want > 0", st["cgroup_memory_usage_bytes"])
	}
	if _, ok := st["cgroup_oom_kills_total"]; !ok && version == "v2" {
		t.Errorf("cgroup_oom_kills_total missing on v2: %v", st)
	}
	if _, ok := st["host_swap_total_bytes"]; !ok {
		t.Errorf("host_swap_total_bytes missing for a local server: %v", st)
	}
	if version == "v1" {
		if _, ok := st["cgroup_memory_failcnt_total"]; !ok {
			t.Errorf("cgroup_memory_failcnt_total missing on v1: %v", st)
		}
	}
	ml := tg.MemoryLimits()
	if ml == nil || ml.Cgroup != version || ml.CgroupMemoryBytes != 64<<20 || ml.MaxMemoryBytes != 256<<20 || ml.Policy != "noeviction" || ml.HostSwapBytes == nil {
		t.Errorf("memory limits %+v", ml)
	}
	if s := ml.String(); !strings.Contains(s, "maxmemory 256.0 MB (noeviction); cgroup "+version+" memory 64.0 MB, no swap; host swap ") {
		t.Errorf("memory limits line %q", s)
	}
	if err := tg.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("cgroup %s still there after Close (%v)", path, err)
	}
}

// TestManagedCgroupRemovedOnKillAndStartFailure: the group goes when
// the server is killed, and when it never starts.
func TestManagedCgroupRemovedOnKillAndStartFailure(t *testing.T) {
	needCgroup(t)
	testutil.NeedFile(t, "/usr/bin/redis-server")
	ctx := ctxT(t)
	s, err := StartServer(ctx, ServerConfig{Persistence: "none", CgroupMemory: 64 << 20, CgroupSwap: 0})
	if err != nil {
		t.Fatal(err)
	}
	_, path, _ := s.Cgroup()
	if path == "" {
		t.Fatal("no cgroup")
	}
	s.Kill()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("cgroup %s still there after Kill", path)
	}
	if err := s.Stop(); err != nil {
		t.Errorf("Stop after Kill: %v", err)
	}

	port, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	_, err = StartServer(ctx, ServerConfig{Port: port, Persistence: "none", CgroupMemory: 64 << 20, Args: []string{"--no-such-option", "1"}})
	if err == nil {
		t.Fatal("redis-server with a bad option started")
	}
	for _, parent := range (cgroup.Host{}).Detect().Parents {
		if p := filepath.Join(parent, CgroupName(port)); exists(p) {
			t.Errorf("cgroup %s left after a start failure", p)
		}
	}
}

// TestManagedWithoutCgroup: when the host allows no cgroup the server
// still starts, uncapped, and the memory limits say why.
func TestManagedWithoutCgroup(t *testing.T) {
	testutil.NeedFile(t, "/usr/bin/redis-server")
	ctx := ctxT(t)
	empty := t.TempDir()
	for _, tc := range []struct {
		cfg  ServerConfig
		want string
	}{
		{ServerConfig{CgroupMemory: 64 << 20, cgroups: cgroup.Host{Root: filepath.Join(empty, "none")}},
			"cgroup memory cap not available: no cgroup filesystem at " + filepath.Join(empty, "none")},
		{ServerConfig{cgroups: cgroup.Host{Root: empty}},
			"no cgroup cap (cgroup_memory unset; this host offers none: cgroup v2 not mounted; cgroup v1 memory not mounted)"},
	} {
		s, err := StartServer(ctx, tc.cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Stop() }) // after the client's Close
		tg := openURL(t, s)
		ml := tg.memoryLimits(ctx, s)
		if ml.Cgroup != "" || ml.CgroupNote != tc.want {
			t.Errorf("limits %+v, want note %q", ml, tc.want)
		}
		if st, _ := tg.ServerStats(ctx); st["cgroup_memory_limit_bytes"] != 0 {
			t.Errorf("cgroup stats without a cgroup: %v", st)
		}
	}
}

// TestManagedCgroupSwap shows the server swapping once its dataset
// outgrows a cgroup cap that allows swap. It needs host swap, which
// tests never turn on (bench/run.sh SWAPCLIFF=1 does, for its run).
func TestManagedCgroupSwap(t *testing.T) {
	needCgroup(t)
	// Host swap is machine configuration that tests must not turn on
	// (bench/run.sh SWAPCLIFF=1 does), so this stays a skip in CI too.
	if sw, _ := HostSwapBytes(); sw < 256<<20 {
		testutil.HostSkip(t, "host swap %.0f bytes: needs at least 256 MB of swap", sw)
	}
	testutil.NeedFile(t, "/usr/bin/redis-server")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tg := managedTarget(t, scenarios.Managed{CgroupMemory: 32 << 20, CgroupSwap: 256 << 20})
	if v, _, note := tg.Managed().Cgroup(); v == "" {
		t.Fatalf("no cgroup: %s", note)
	}
	c := tg.Client()
	val := strings.Repeat("x", 1024)
	var first, last map[string]float64
	// 96 MB of 1 KB values: three times the cap.
	for i := 0; i < 96; i++ {
		pipe := c.Pipeline()
		for j := 0; j < 1024; j++ {
			pipe.Set(ctx, fmt.Sprintf("k:%d:%d", i, j), val, 0)
		}
		if _, err := pipe.Exec(ctx); err != nil {
			t.Fatalf("batch %d: %v", i, err)
		}
		st, err := tg.ServerStats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = st
		}
		last = st
	}
	if last["cgroup_swap_usage_bytes"] <= first["cgroup_swap_usage_bytes"] || last["cgroup_swap_usage_bytes"] < 16<<20 {
		t.Errorf("cgroup swap usage %v -> %v: want it to grow past 16 MB with the dataset at 3x the cap", first["cgroup_swap_usage_bytes"], last["cgroup_swap_usage_bytes"])
	}
	if last["process_swap_bytes"] <= 0 {
		t.Errorf("process_swap_bytes %v, want > 0", last["process_swap_bytes"])
	}
	if last["cgroup_memory_usage_bytes"] > 33<<20 {
		t.Errorf("usage %v above the 32 MB cap", last["cgroup_memory_usage_bytes"])
	}
}
