package cgroup

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// fakeKernel lays out what the kernel would in a new group of version v
// when mkdir runs, and removes it on rmdir (like the kernel, only when
// cgroup.procs is empty).
type fakeKernel struct {
	t       *testing.T
	v       string
	files   map[string]string // extra or replaced files in new groups
	omit    []string          // files the host lacks (no swap accounting)
	deny    map[string]bool   // parents where mkdir is refused
	removed []string
}

func (k *fakeKernel) host(root, self string) Host {
	return Host{Root: root, Self: self, Mkdir: k.mkdir, Rmdir: k.rmdir}
}

func (k *fakeKernel) mkdir(p string) error {
	if k.deny[filepath.Dir(p)] {
		return &os.PathError{Op: "mkdir", Path: p, Err: syscall.EACCES}
	}
	if err := os.Mkdir(p, 0o755); err != nil {
		return err
	}
	files := map[string]string{"cgroup.procs": ""}
	if k.v == "v2" {
		for n, v := range map[string]string{"memory.max": "max\n", "memory.swap.max": "max\n", "memory.current": "0\n",
			"memory.swap.current": "0\n", "memory.events": "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n"} {
			files[n] = v
		}
	} else {
		for n, v := range map[string]string{"memory.limit_in_bytes": "9223372036854771712\n", "memory.memsw.limit_in_bytes": "9223372036854771712\n",
			"memory.usage_in_bytes": "0\n", "memory.memsw.usage_in_bytes": "0\n", "memory.failcnt": "0\n",
			"memory.oom_control": "oom_kill_disable 0\nunder_oom 0\n"} {
			files[n] = v
		}
	}
	for n, v := range k.files {
		files[n] = v
	}
	for _, n := range k.omit {
		delete(files, n)
	}
	for n, v := range files {
		if err := os.WriteFile(filepath.Join(p, n), []byte(v), 0o644); err != nil {
			k.t.Fatal(err)
		}
	}
	return nil
}

func (k *fakeKernel) rmdir(p string) error {
	b, err := os.ReadFile(filepath.Join(p, "cgroup.procs"))
	if errors.Is(err, os.ErrNotExist) {
		return &os.PathError{Op: "rmdir", Path: p, Err: syscall.ENOENT}
	}
	if strings.TrimSpace(string(b)) != "" {
		return &os.PathError{Op: "rmdir", Path: p, Err: syscall.EBUSY}
	}
	k.removed = append(k.removed, p)
	return os.RemoveAll(p)
}

func put(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// layoutV1 is this project's machines: v1 memory at root/memory, a v2
// hierarchy at root/unified without the memory controller, and this
// process in a v1 group of its own.
func layoutV1(t *testing.T) (root, self string) {
	root = t.TempDir()
	put(t, filepath.Join(root, "memory", "memory.limit_in_bytes"), "9223372036854771712\n")
	put(t, filepath.Join(root, "memory", "process_api", "abc", "memory.limit_in_bytes"), "4294967296\n")
	put(t, filepath.Join(root, "unified", "cgroup.controllers"), "\n")
	put(t, filepath.Join(root, "unified", "cgroup.subtree_control"), "\n")
	self = filepath.Join(root, "self-cgroup")
	put(t, self, "9:name=systemd:/\n4:memory:/process_api/abc\n3:cpuset:/\n0::/\n")
	return root, self
}

// layoutV2 is the common modern host: unified v2 at root with memory.
func layoutV2(t *testing.T, subtree string) (root, self string) {
	root = t.TempDir()
	put(t, filepath.Join(root, "cgroup.controllers"), "cpuset cpu io memory hugetlb pids\n")
	put(t, filepath.Join(root, "cgroup.subtree_control"), subtree)
	put(t, filepath.Join(root, "user.slice", "cgroup.controllers"), "memory pids\n")
	self = filepath.Join(root, "self-cgroup")
	put(t, self, "0::/user.slice\n")
	return root, self
}

func TestDetect(t *testing.T) {
	v1root, v1self := layoutV1(t)
	v2root, v2self := layoutV2(t, "")
	none := t.TempDir()
	put(t, filepath.Join(none, "unified", "cgroup.controllers"), "cpu io pids\n")
	noV2Mem := t.TempDir()
	put(t, filepath.Join(noV2Mem, "cgroup.controllers"), "cpu io pids\n")
	for _, tc := range []struct {
		name, root, self string
		version          string
		parents          []string
		reason           string
	}{
		{"v1 host", v1root, v1self, "v1", []string{filepath.Join(v1root, "memory"), filepath.Join(v1root, "memory", "process_api", "abc")}, ""},
		{"v2 host", v2root, v2self, "v2", []string{v2root, filepath.Join(v2root, "user.slice")}, ""},
		{"hybrid without memory", none, "", "", nil, "cgroup v2 has no memory controller; cgroup v1 memory not mounted"},
		{"unified without memory", noV2Mem, "", "", nil, "cgroup v2 has no memory controller; cgroup v1 memory not mounted"},
		{"nothing mounted", filepath.Join(none, "missing"), "", "", nil, "no cgroup filesystem at " + filepath.Join(none, "missing")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Host{Root: tc.root, Self: tc.self}.Detect()
			if s.Version != tc.version || s.Reason != tc.reason || strings.Join(s.Parents, ",") != strings.Join(tc.parents, ",") {
				t.Errorf("Detect = %+v, want version %q parents %v reason %q", s, tc.version, tc.parents, tc.reason)
			}
		})
	}
}

func TestCreateV1(t *testing.T) {
	root, self := layoutV1(t)
	k := &fakeKernel{t: t, v: "v1"}
	for _, tc := range []struct {
		swap      int64
		wantMemsw string
	}{
		{1 << 30, "1342177280"}, // 256 MiB + 1 GiB
		{0, "268435456"},        // memsw = memory: no swap
	} {
		g, err := k.host(root, self).Create("soakd-redis-6379-1", Limits{Memory: 256 << 20, Swap: tc.swap})
		if err != nil {
			t.Fatal(err)
		}
		want := filepath.Join(root, "memory", "soakd-redis-6379-1")
		if g.Version != "v1" || g.Path != want || g.Note != "" || !g.SwapLimited() {
			t.Fatalf("group %+v, want v1 at %s with swap limited", g, want)
		}
		if got := read(t, filepath.Join(want, "memory.limit_in_bytes")); got != "268435456" {
			t.Errorf("memory.limit_in_bytes = %q", got)
		}
		if got := read(t, filepath.Join(want, "memory.memsw.limit_in_bytes")); got != tc.wantMemsw {
			t.Errorf("swap %d: memory.memsw.limit_in_bytes = %q, want %s", tc.swap, got, tc.wantMemsw)
		}
		if err := g.Join(4242); err != nil {
			t.Fatal(err)
		}
		if got := read(t, filepath.Join(want, "cgroup.procs")); got != "4242" {
			t.Errorf("cgroup.procs = %q", got)
		}
		// The kernel's figures, as a loaded group would show them.
		put(t, filepath.Join(want, "memory.usage_in_bytes"), "268000000\n")
		put(t, filepath.Join(want, "memory.memsw.usage_in_bytes"), "300000000\n")
		put(t, filepath.Join(want, "memory.failcnt"), "17\n")
		put(t, filepath.Join(want, "memory.oom_control"), "oom_kill_disable 0\nunder_oom 0\noom_kill 2\n")
		st := g.Stats()
		wantSt := map[string]float64{StatLimit: 256 << 20, StatUsage: 268000000, StatSwap: 32000000, StatFailcnt: 17, StatOOMKills: 2}
		if len(st) != len(wantSt) {
			t.Errorf("stats %v, want %v", st, wantSt)
		}
		for n, v := range wantSt {
			if st[n] != v {
				t.Errorf("%s = %v, want %v", n, st[n], v)
			}
		}
		// Remove waits for the group to empty; the process has exited.
		put(t, filepath.Join(want, "cgroup.procs"), "")
		if err := g.Remove(); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(want); !os.IsNotExist(err) {
			t.Errorf("%s still there after Remove (%v)", want, err)
		}
		if err := g.Remove(); err != nil {
			t.Errorf("second Remove: %v", err)
		}
	}
}

func TestCreateV1NoSwapAccounting(t *testing.T) {
	root, self := layoutV1(t)
	k := &fakeKernel{t: t, v: "v1", omit: []string{"memory.memsw.limit_in_bytes", "memory.memsw.usage_in_bytes"}}
	g, err := k.host(root, self).Create("g", Limits{Memory: 64 << 20, Swap: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Remove()
	if g.SwapLimited() || !strings.Contains(g.Note, "swap not limited") {
		t.Errorf("note %q, swap limited %v: want a note that swap is not limited", g.Note, g.SwapLimited())
	}
	if _, ok := g.Stats()[StatSwap]; ok {
		t.Errorf("swap usage reported without swap accounting: %v", g.Stats())
	}
}

// TestCreateV1FallsBackToOwnGroup: a root the process may not write to
// sends the group under the process's own memory cgroup.
func TestCreateV1FallsBackToOwnGroup(t *testing.T) {
	root, self := layoutV1(t)
	k := &fakeKernel{t: t, v: "v1", deny: map[string]bool{filepath.Join(root, "memory"): true}}
	g, err := k.host(root, self).Create("g", Limits{Memory: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(root, "memory", "process_api", "abc", "g"); g.Path != want {
		t.Errorf("path %s, want %s", g.Path, want)
	}
	if err := g.Remove(); err != nil || len(k.removed) != 1 {
		t.Errorf("Remove: %v, removed %v", err, k.removed)
	}
}

func TestCreateNotPermitted(t *testing.T) {
	root, self := layoutV1(t)
	k := &fakeKernel{t: t, v: "v1", deny: map[string]bool{filepath.Join(root, "memory"): true, filepath.Join(root, "memory", "process_api", "abc"): true}}
	_, err := k.host(root, self).Create("g", Limits{Memory: 64 << 20})
	if err == nil || !strings.HasPrefix(err.Error(), "not permitted: ") || !strings.Contains(err.Error(), "permission denied") {
		t.Errorf("err %v, want not permitted: ... permission denied", err)
	}
}

func TestCreateNoController(t *testing.T) {
	root := t.TempDir()
	put(t, filepath.Join(root, "unified", "cgroup.controllers"), "cpu io pids\n")
	_, err := Host{Root: root, Self: filepath.Join(root, "none")}.Create("g", Limits{Memory: 64 << 20})
	if err == nil || err.Error() != "cgroup v2 has no memory controller; cgroup v1 memory not mounted" {
		t.Errorf("err %v", err)
	}
}

func TestCreateV2(t *testing.T) {
	root, self := layoutV2(t, "cpu\n") // memory not handed down yet
	k := &fakeKernel{t: t, v: "v2"}
	g, err := k.host(root, self).Create("soakd-redis-7000-9", Limits{Memory: 64 << 20, Swap: 2 << 30})
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(root, "soakd-redis-7000-9")
	if g.Version != "v2" || g.Path != want || !g.SwapLimited() {
		t.Fatalf("group %+v, want v2 at %s", g, want)
	}
	if got := read(t, filepath.Join(root, "cgroup.subtree_control")); got != "+memory" {
		t.Errorf("cgroup.subtree_control = %q, want +memory written", got)
	}
	if got := read(t, filepath.Join(want, "memory.max")); got != "67108864" {
		t.Errorf("memory.max = %q", got)
	}
	if got := read(t, filepath.Join(want, "memory.swap.max")); got != "2147483648" {
		t.Errorf("memory.swap.max = %q", got)
	}
	if err := g.Join(77); err != nil {
		t.Fatal(err)
	}
	put(t, filepath.Join(want, "memory.current"), "50000000\n")
	put(t, filepath.Join(want, "memory.swap.current"), "1234\n")
	put(t, filepath.Join(want, "memory.events"), "low 0\nhigh 0\nmax 9\noom 1\noom_kill 1\noom_group_kill 0\n")
	st := g.Stats()
	wantSt := map[string]float64{StatLimit: 64 << 20, StatUsage: 50000000, StatSwap: 1234, StatOOMKills: 1}
	if len(st) != len(wantSt) {
		t.Errorf("stats %v, want %v", st, wantSt)
	}
	for n, v := range wantSt {
		if st[n] != v {
			t.Errorf("%s = %v, want %v", n, st[n], v)
		}
	}
	put(t, filepath.Join(want, "memory.max"), "max\n")
	if _, ok := g.Stats()[StatLimit]; ok {
		t.Error(`memory.max "max" reported as a limit`)
	}
	put(t, filepath.Join(want, "cgroup.procs"), "")
	if err := g.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(want); !os.IsNotExist(err) {
		t.Errorf("%s still there after Remove", want)
	}
}

func TestCreateV2SwapZeroAndNoSwapFile(t *testing.T) {
	root, self := layoutV2(t, "memory\n")
	k := &fakeKernel{t: t, v: "v2"}
	g, err := k.host(root, self).Create("a", Limits{Memory: 32 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(g.Path, "memory.swap.max")); got != "0" {
		t.Errorf("memory.swap.max = %q, want 0 (no swap)", got)
	}
	if got := read(t, filepath.Join(root, "cgroup.subtree_control")); got != "memory\n" {
		t.Errorf("cgroup.subtree_control rewritten to %q though memory was on", got)
	}
	g.Remove()
	k.omit = []string{"memory.swap.max", "memory.swap.current"}
	g, err = k.host(root, self).Create("b", Limits{Memory: 32 << 20, Swap: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Remove()
	if g.SwapLimited() || !strings.Contains(g.Note, "memory.swap.max") {
		t.Errorf("note %q: want swap not limited", g.Note)
	}
}

// TestRemoveBusy: a group still busy on the first rmdir (a fork child
// not yet gone) is tried again until it empties.
func TestRemoveBusy(t *testing.T) {
	root, self := layoutV1(t)
	k := &fakeKernel{t: t, v: "v1"}
	g, err := k.host(root, self).Create("g", Limits{Memory: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	// pid 0 is never killed (Procs drops it), the group stays busy.
	put(t, filepath.Join(g.Path, "cgroup.procs"), "0\n")
	g.h.Rmdir = func(p string) error {
		if err := k.rmdir(p); err != nil {
			put(t, filepath.Join(g.Path, "cgroup.procs"), "") // emptied on the second try
			return err
		}
		return nil
	}
	if err := g.Remove(); err != nil {
		t.Fatalf("Remove: %v", err)
	}
	if len(k.removed) != 1 {
		t.Errorf("removed %v", k.removed)
	}
}

func TestCreateBadInput(t *testing.T) {
	root, self := layoutV1(t)
	k := &fakeKernel{t: t, v: "v1"}
	if _, err := k.host(root, self).Create("../x", Limits{Memory: 1}); err == nil {
		t.Error("a name with / accepted")
	}
	if _, err := k.host(root, self).Create("x", Limits{}); err == nil {
		t.Error("no memory limit accepted")
	}
}

// TestStatsMemoryStat: the group's page cache (file) and anonymous
// memory come from memory.stat, in the names each kernel version uses:
// v2 file/anon; v1 total_cache/total_rss, or cache/rss where the total_
// lines are absent. Lines other than these never leak in.
func TestStatsMemoryStat(t *testing.T) {
	for _, tc := range []struct {
		name, v, stat string
		file, anon    float64
		absent        bool
	}{
		{name: "v2", v: "v2", stat: "anon 104857600\nfile 52428800\nkernel_stack 16384\nfile_mapped 4096\nfile_dirty 8192\nshmem 0\n", file: 52428800, anon: 104857600},
		{name: "v1 total", v: "v1", stat: "cache 1000\nrss 2000\nmapped_file 7\ntotal_cache 3000\ntotal_rss 4000\ntotal_mapped_file 9\n", file: 3000, anon: 4000},
		{name: "v1 own only", v: "v1", stat: "cache 1000\nrss 2000\nrss_huge 0\nswap 5\n", file: 1000, anon: 2000},
		{name: "v1 no memory.stat", v: "v1", absent: true},
		{name: "v2 no memory.stat", v: "v2", absent: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var root, self string
			if tc.v == "v1" {
				root, self = layoutV1(t)
			} else {
				root, self = layoutV2(t, "memory\n")
			}
			k := &fakeKernel{t: t, v: tc.v}
			g, err := k.host(root, self).Create("soakd-redis-1-1", Limits{Memory: 64 << 20})
			if err != nil {
				t.Fatal(err)
			}
			if !tc.absent {
				put(t, filepath.Join(g.Path, "memory.stat"), tc.stat)
			}
			st := g.Stats()
			f, fok := st[StatFile]
			a, aok := st[StatAnon]
			if tc.absent {
				if fok || aok {
					t.Fatalf("file/anon reported without memory.stat: %v", st)
				}
				return
			}
			if !fok || !aok || f != tc.file || a != tc.anon {
				t.Errorf("file %v (%v) anon %v (%v), want %v and %v", f, fok, a, aok, tc.file, tc.anon)
			}
		})
	}
}
