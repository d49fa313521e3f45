// Package cgroup puts a process under a memory cap with the kernel's
// memory controller: cgroup v2 (memory.max, memory.swap.max) where the
// host offers it, else cgroup v1 (memory.limit_in_bytes,
// memory.memsw.limit_in_bytes). Every path hangs off Host.Root, and the
// directory calls are replaceable, so tests can lay out a fake hierarchy
// in a temp dir.
package cgroup

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Stat names, as soakd's server stats call them.
const (
	StatLimit    = "cgroup_memory_limit_bytes"
	StatUsage    = "cgroup_memory_usage_bytes"
	StatSwap     = "cgroup_swap_usage_bytes"
	StatFailcnt  = "cgroup_memory_failcnt_total"
	StatOOMKills = "cgroup_oom_kills_total"
	// StatFile is the group's page cache (file-backed memory: the
	// pages of files its processes read or wrote, AOF and RDB files
	// included), StatAnon its anonymous memory (the heap), both from
	// memory.stat. The kernel charges both to the group's usage.
	StatFile = "cgroup_memory_file_bytes"
	StatAnon = "cgroup_memory_anon_bytes"
)

// Host is where the cgroup filesystems are. The zero value is this host.
type Host struct {
	Root string // cgroup mounts; "" = /sys/fs/cgroup
	Self string // this process's cgroup list; "" = /proc/self/cgroup
	// Mkdir and Rmdir create and remove a cgroup directory; nil =
	// os.Mkdir and syscall.Rmdir. A fake hierarchy's Mkdir lays out the
	// interface files the kernel would.
	Mkdir func(path string) error
	Rmdir func(path string) error
}

// Limits is the cap to set. Swap is the allowance on top of Memory; 0
// means the group may not swap at all.
type Limits struct {
	Memory int64
	Swap   int64
}

// Support is what Detect found: the controller version to use and the
// directories a new group may go under, in the order tried (the
// hierarchy's root first, then this process's own group). Reason says
// why nothing is usable when Version is "".
type Support struct {
	Version string // "v2", "v1" or ""
	Parents []string
	Reason  string
}

type candidate struct{ version, parent string }

func (h Host) root() string {
	if h.Root == "" {
		return "/sys/fs/cgroup"
	}
	return h.Root
}

func (h Host) selfGroups() map[string]string {
	p := h.Self
	if p == "" {
		p = "/proc/self/cgroup"
	}
	out := map[string]string{}
	b, err := os.ReadFile(p)
	if err != nil {
		return out
	}
	// Lines are "id:controllers:path"; v2's is "0::path".
	for _, line := range strings.Split(string(b), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[0] == "0" && parts[1] == "" {
			out["v2"] = parts[2]
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			if c == "memory" {
				out["v1"] = parts[2]
			}
		}
	}
	return out
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

func hasWord(file, word string) bool {
	b, err := os.ReadFile(file)
	if err != nil {
		return false
	}
	for _, w := range strings.Fields(string(b)) {
		if w == word {
			return true
		}
	}
	return false
}

// under joins a hierarchy's mount point and a group path from
// /proc/self/cgroup ("" when the path is the root or unknown).
func under(mount, group string) string {
	group = filepath.Clean("/" + group)
	if group == "/" {
		return ""
	}
	return filepath.Join(mount, group)
}

// candidates lists where a group could go, v2 first, and the reasons
// each version is out when it is.
func (h Host) candidates() ([]candidate, []string) {
	root := h.root()
	self := h.selfGroups()
	var cs []candidate
	var why []string
	v2 := ""
	switch {
	case exists(filepath.Join(root, "cgroup.controllers")):
		v2 = root
	case exists(filepath.Join(root, "unified", "cgroup.controllers")):
		v2 = filepath.Join(root, "unified")
	}
	if v2 == "" {
		why = append(why, "cgroup v2 not mounted")
	} else if !hasWord(filepath.Join(v2, "cgroup.controllers"), "memory") {
		why = append(why, "cgroup v2 has no memory controller")
	} else {
		cs = append(cs, candidate{"v2", v2})
		if p := under(v2, self["v2"]); p != "" && hasWord(filepath.Join(p, "cgroup.controllers"), "memory") {
			cs = append(cs, candidate{"v2", p})
		}
	}
	v1 := filepath.Join(root, "memory")
	if !exists(filepath.Join(v1, "memory.limit_in_bytes")) {
		why = append(why, "cgroup v1 memory not mounted")
	} else {
		cs = append(cs, candidate{"v1", v1})
		if p := under(v1, self["v1"]); p != "" && exists(filepath.Join(p, "memory.limit_in_bytes")) {
			cs = append(cs, candidate{"v1", p})
		}
	}
	if v2 == "" && !exists(v1) && !exists(root) {
		why = []string{"no cgroup filesystem at " + root}
	}
	return cs, why
}

// Detect tells which memory controller the host offers, creating
// nothing: whether a group can really be made shows in Create.
func (h Host) Detect() Support {
	cs, why := h.candidates()
	if len(cs) == 0 {
		return Support{Reason: strings.Join(why, "; ")}
	}
	s := Support{Version: cs[0].version}
	for _, c := range cs {
		if c.version == s.Version {
			s.Parents = append(s.Parents, c.parent)
		}
	}
	return s
}

// Group is a memory cgroup soakd created.
type Group struct {
	Version string // "v1" or "v2"
	Path    string
	Limits  Limits
	// Note is a caveat about the limits set ("" when none), e.g. that
	// swap is not limited because the host does not account it.
	Note string

	h       Host
	once    sync.Once
	rmErr   error
	swapSet bool
}

// Create makes the group name under the first place the host allows and
// sets its limits. When none does, the error says why, in words fit for
// a report ("cgroup v2 has no memory controller; cgroup v1 memory not
// mounted", "not permitted: mkdir ...: permission denied").
func (h Host) Create(name string, lim Limits) (*Group, error) {
	if lim.Memory <= 0 {
		return nil, errors.New("no memory limit given")
	}
	if name == "" || strings.ContainsAny(name, "/\x00") || name == "." || name == ".." {
		return nil, fmt.Errorf("bad cgroup name %q", name)
	}
	cs, why := h.candidates()
	if len(cs) == 0 {
		return nil, errors.New(strings.Join(why, "; "))
	}
	var errs []error
	denied := true
	for _, c := range cs {
		g, err := h.create(c, name, lim)
		if err == nil {
			return g, nil
		}
		if !errors.Is(err, os.ErrPermission) && !errors.Is(err, syscall.EROFS) && !errors.Is(err, syscall.EPERM) {
			denied = false
		}
		errs = append(errs, err)
	}
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = e.Error()
	}
	if denied {
		return nil, errors.New("not permitted: " + strings.Join(msgs, "; "))
	}
	return nil, errors.New(strings.Join(msgs, "; "))
}

func (h Host) mkdir(p string) error {
	if h.Mkdir != nil {
		return h.Mkdir(p)
	}
	return os.Mkdir(p, 0o755)
}

func (h Host) rmdir(p string) error {
	if h.Rmdir != nil {
		return h.Rmdir(p)
	}
	if err := syscall.Rmdir(p); err != nil {
		return &os.PathError{Op: "rmdir", Path: p, Err: err}
	}
	return nil
}

// write sets one interface file, which must exist (cgroup files are
// made by the kernel, never by soakd).
func write(p, v string) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(v)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s to %s: %w", v, p, err)
	}
	return nil
}

func (h Host) create(c candidate, name string, lim Limits) (*Group, error) {
	if c.version == "v2" {
		// A v2 group has the memory files only when its parent hands the
		// controller down.
		sc := filepath.Join(c.parent, "cgroup.subtree_control")
		if !hasWord(sc, "memory") {
			if err := write(sc, "+memory"); err != nil {
				return nil, fmt.Errorf("cgroup v2 %s: enable the memory controller: %w", c.parent, err)
			}
		}
	}
	p := filepath.Join(c.parent, name)
	err := h.mkdir(p)
	if errors.Is(err, os.ErrExist) {
		// Left by an earlier soakd with the same pid and port: an empty
		// group goes, one with processes in it stays and is an error.
		if err = h.rmdir(p); err == nil {
			err = h.mkdir(p)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("cgroup %s: %w", c.version, err)
	}
	g := &Group{Version: c.version, Path: p, Limits: lim, h: h}
	if err := g.setLimits(); err != nil {
		_ = h.rmdir(p)
		return nil, fmt.Errorf("cgroup %s: %w", c.version, err)
	}
	return g, nil
}

func (g *Group) file(n string) string { return filepath.Join(g.Path, n) }

func (g *Group) setLimits() error {
	mem := strconv.FormatInt(g.Limits.Memory, 10)
	if g.Version == "v2" {
		if !exists(g.file("memory.max")) {
			return fmt.Errorf("%s has no memory.max", g.Path)
		}
		if err := write(g.file("memory.max"), mem); err != nil {
			return err
		}
		if !exists(g.file("memory.swap.max")) {
			g.Note = "swap not limited: the host does not account swap (no memory.swap.max)"
			return nil
		}
		g.swapSet = true
		return write(g.file("memory.swap.max"), strconv.FormatInt(g.Limits.Swap, 10))
	}
	if !exists(g.file("memory.memsw.limit_in_bytes")) {
		g.Note = "swap not limited: the host does not account swap (no memory.memsw.limit_in_bytes)"
		return write(g.file("memory.limit_in_bytes"), mem)
	}
	g.swapSet = true
	memsw := strconv.FormatInt(g.Limits.Memory+g.Limits.Swap, 10)
	// memsw must never be below the memory limit: lowering goes memory
	// first, raising memsw first. Try the first order, fall back to the
	// other (the kernel answers EINVAL when the order was wrong).
	if err := write(g.file("memory.limit_in_bytes"), mem); err != nil {
		if err2 := write(g.file("memory.memsw.limit_in_bytes"), memsw); err2 != nil {
			return err
		}
		return write(g.file("memory.limit_in_bytes"), mem)
	}
	return write(g.file("memory.memsw.limit_in_bytes"), memsw)
}

// SwapLimited reports whether the host let the swap allowance be set.
func (g *Group) SwapLimited() bool { return g.swapSet }

// Join moves process pid into the group.
func (g *Group) Join(pid int) error {
	return write(g.file("cgroup.procs"), strconv.Itoa(pid))
}

func readInt(p string) (float64, bool) {
	b, err := os.ReadFile(p)
	if err != nil {
		return 0, false
	}
	s := strings.TrimSpace(string(b))
	if s == "max" {
		return 0, false
	}
	n, err := strconv.ParseFloat(s, 64)
	return n, err == nil
}

// keyed reads "name value" lines (memory.events, memory.oom_control).
func keyed(p, key string) (float64, bool) {
	f, err := os.Open(p)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) == 2 && fs[0] == key {
			n, err := strconv.ParseFloat(fs[1], 64)
			return n, err == nil
		}
	}
	return 0, false
}

// unlimitedV1 is where v1 reports "no limit" (PAGE_COUNTER_MAX pages).
const unlimitedV1 = 1 << 62

// Stats reads the group's figures under the Stat* names. A figure the
// host does not provide is absent (v2 has no failcnt; swap needs swap
// accounting; a limit of "max" is no limit).
func (g *Group) Stats() map[string]float64 {
	st := map[string]float64{}
	put := func(k string, v float64, ok bool) {
		if ok {
			st[k] = v
		}
	}
	if g.Version == "v2" {
		v, ok := readInt(g.file("memory.current"))
		put(StatUsage, v, ok)
		v, ok = readInt(g.file("memory.max"))
		put(StatLimit, v, ok)
		v, ok = readInt(g.file("memory.swap.current"))
		put(StatSwap, v, ok)
		v, ok = keyed(g.file("memory.events"), "oom_kill")
		put(StatOOMKills, v, ok)
		ms := memoryStat(g.file("memory.stat"))
		v, ok = ms["file"]
		put(StatFile, v, ok)
		v, ok = ms["anon"]
		put(StatAnon, v, ok)
		return st
	}
	usage, uok := readInt(g.file("memory.usage_in_bytes"))
	put(StatUsage, usage, uok)
	if l, ok := readInt(g.file("memory.limit_in_bytes")); ok && l < unlimitedV1 {
		st[StatLimit] = l
	}
	if sw, ok := readInt(g.file("memory.memsw.usage_in_bytes")); ok && uok {
		st[StatSwap] = max(sw-usage, 0)
	}
	v, ok := readInt(g.file("memory.failcnt"))
	put(StatFailcnt, v, ok)
	v, ok = keyed(g.file("memory.oom_control"), "oom_kill")
	put(StatOOMKills, v, ok)
	// v1: total_* counts the group and its descendants (soakd's group
	// has none, but a kernel may still list both); the plain names are
	// the group's own.
	ms := memoryStat(g.file("memory.stat"))
	for _, f := range []struct{ stat, total, own string }{{StatFile, "total_cache", "cache"}, {StatAnon, "total_rss", "rss"}} {
		if v, ok := ms[f.total]; ok {
			st[f.stat] = v
		} else if v, ok := ms[f.own]; ok {
			st[f.stat] = v
		}
	}
	return st
}

// memoryStat reads memory.stat's "name value" lines (bytes; nil when
// the file is missing).
func memoryStat(p string) map[string]float64 {
	b, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	out := map[string]float64{}
	for _, line := range strings.Split(string(b), "\n") {
		fs := strings.Fields(line)
		if len(fs) != 2 {
			continue
		}
		if n, err := strconv.ParseFloat(fs[1], 64); err == nil {
			out[fs[0]] = n
		}
	}
	return out
}

// Procs lists the processes in the group.
func (g *Group) Procs() []int {
	b, err := os.ReadFile(g.file("cgroup.procs"))
	if err != nil {
		return nil
	}
	var out []int
	for _, f := range strings.Fields(string(b)) {
		if n, err := strconv.Atoi(f); err == nil && n > 0 {
			out = append(out, n)
		}
	}
	return out
}

// RemoveWait is how long Remove keeps trying while the group still
// holds processes (a fork child finishing, a reap in progress).
const RemoveWait = 5 * time.Second

// Remove deletes the group; call it once its process has exited. A
// process still in the group by then is a child of the one the group
// was made for (a persistence fork): it gets SIGKILL. Safe to call more
// than once; later calls return the first call's error.
func (g *Group) Remove() error {
	g.once.Do(func() {
		deadline := time.Now().Add(RemoveWait)
		for {
			err := g.h.rmdir(g.Path)
			if err == nil || errors.Is(err, os.ErrNotExist) {
				return
			}
			if !errors.Is(err, syscall.EBUSY) || time.Now().After(deadline) {
				g.rmErr = fmt.Errorf("remove cgroup: %w", err)
				return
			}
			for _, pid := range g.Procs() {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
	return g.rmErr
}
