package swapfile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// fakeHost records the commands run and the allocation (as
// "fallocate"), acting them out on real files in a temp dir; fail names
// commands that fail instead (for "fallocate", the output is ignored
// and allocErr is returned). avail and total are the free space.
type fakeHost struct {
	mu       sync.Mutex
	cmds     []string
	fail     map[string]string // command -> its output when it fails
	allocErr error
	avail    int64
	total    int64
}

func (k *fakeHost) host(t *testing.T, euid int) Host {
	return Host{Dir: t.TempDir(), Euid: func() int { return euid }, Run: k.run, Allocate: k.allocate, Space: k.space}
}

func (k *fakeHost) space(string) (int64, int64, error) {
	if k.total == 0 {
		return 100 << 30, 200 << 30, nil
	}
	return k.avail, k.total, nil
}

func (k *fakeHost) allocate(f *os.File, size int64) error {
	k.mu.Lock()
	k.cmds = append(k.cmds, "fallocate "+strconv.FormatInt(size, 10)+" "+f.Name())
	k.mu.Unlock()
	if k.allocErr != nil {
		return k.allocErr
	}
	if _, ok := k.fail["fallocate"]; ok {
		return errors.New("fallocate failed")
	}
	return nil
}

func (k *fakeHost) run(_ context.Context, name string, args ...string) ([]byte, error) {
	k.mu.Lock()
	k.cmds = append(k.cmds, name+" "+strings.Join(args, " "))
	k.mu.Unlock()
	if out, ok := k.fail[name]; ok {
		return []byte(out), errors.New("exit status 1")
	}
	return nil, nil
}

// empty checks that dir holds nothing: no swapfile, no private directory.
func empty(t *testing.T, dir string) {
	t.Helper()
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("left in %s: %v", dir, left)
	}
}

func (k *fakeHost) commands() string {
	k.mu.Lock()
	defer k.mu.Unlock()
	var names []string
	for _, c := range k.cmds {
		names = append(names, strings.Fields(c)[0])
	}
	return strings.Join(names, ",")
}

func gone(t *testing.T, p string) {
	t.Helper()
	if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s still there (%v)", p, err)
	}
}

// TestOnOff: every path leaves no file and no swap on, except the one
// where swapoff itself fails (the file stays, and the error says so).
func TestOnOff(t *testing.T) {
	for _, tc := range []struct {
		name       string
		euid       int
		fail       map[string]string
		wantOn     string // commands run by On
		wantErr    string // On's error ("" = on)
		wantOffCmd string // commands run by Off after On's
		wantOffErr string
	}{
		{name: "success", wantOn: "fallocate,mkswap,swapon", wantOffCmd: "swapoff"},
		{name: "fallocate fails", fail: map[string]string{"fallocate": ""}, wantOn: "fallocate", wantErr: "fallocate failed"},
		{name: "mkswap fails", fail: map[string]string{"mkswap": "mkswap: error"}, wantOn: "fallocate,mkswap", wantErr: "mkswap "},
		{name: "swapon not permitted", fail: map[string]string{"swapon": "swapon: /x: swapon failed: Operation not permitted"},
			wantOn: "fallocate,mkswap,swapon", wantErr: "swapon failed: Operation not permitted"},
		{name: "not root", euid: 1000, wantOn: "", wantErr: "needs root"},
		{name: "swapoff fails", fail: map[string]string{"swapoff": "swapoff: Cannot allocate memory"}, wantOn: "fallocate,mkswap,swapon",
			wantOffCmd: "swapoff", wantOffErr: "the swapfile is still on"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := &fakeHost{fail: tc.fail}
			h := k.host(t, tc.euid)
			f, err := h.On(context.Background(), 64<<20)
			if got := k.commands(); got != tc.wantOn {
				t.Errorf("On ran %s, want %s", got, tc.wantOn)
			}
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("On: %v, want an error with %q", err, tc.wantErr)
				}
				empty(t, h.Dir)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			path := f.Path
			if fi, err := os.Stat(f.Path); err != nil || fi.Mode().Perm() != 0o600 || filepath.Dir(filepath.Dir(path)) != h.Dir {
				t.Fatalf("swapfile %s: %v %v", f.Path, fi, err)
			}
			if di, err := os.Stat(filepath.Dir(path)); err != nil || di.Mode().Perm() != 0o700 {
				t.Fatalf("swapfile's directory: %v %v (want a private 0700 directory)", di, err)
			}
			if !strings.Contains(strings.Join(k.cmds, "|"), "fallocate 67108864 "+path) {
				t.Errorf("size not asked for: %q", k.cmds)
			}
			n := len(k.cmds)
			err = f.Off()
			k.mu.Lock()
			off := strings.Join(k.cmds[n:], "|")
			k.mu.Unlock()
			if off != tc.wantOffCmd+" "+path {
				t.Errorf("Off ran %q, want %s %s", off, tc.wantOffCmd, path)
			}
			if tc.wantOffErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantOffErr) {
					t.Fatalf("Off: %v, want %q", err, tc.wantOffErr)
				}
				if _, serr := os.Stat(path); serr != nil {
					t.Errorf("a swapfile still on was removed")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			empty(t, h.Dir)
			// Once only.
			if err := f.Off(); err != nil || len(k.cmds) != n+1 {
				t.Errorf("second Off: %v, %d commands", err, len(k.cmds)-n)
			}
		})
	}
}

// TestOnCancelled: a signal (the run's context ending) while the file is
// being made stops On and removes the file.
func TestOnCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	k := &fakeHost{}
	h := k.host(t, 0)
	h.Run = func(c context.Context, name string, args ...string) ([]byte, error) {
		out, err := k.run(c, name, args...)
		if name == "mkswap" {
			cancel() // SIGINT arrives while mkswap runs
			return []byte("signal: interrupt"), c.Err()
		}
		return out, err
	}
	_, err := h.On(ctx, 64<<20)
	if err == nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("On: %v", err)
	}
	if got := k.commands(); got != "fallocate,mkswap" {
		t.Errorf("commands %s", got)
	}
	empty(t, h.Dir)
}

func TestOnRefusesSmall(t *testing.T) {
	k := &fakeHost{}
	h := k.host(t, 0)
	if _, err := h.On(context.Background(), 4096); err == nil || !strings.Contains(err.Error(), "too small") {
		t.Errorf("4096 bytes: %v", err)
	}
	empty(t, h.Dir)
}

// TestOnChecksFreeSpace: a swapfile that would leave less than the
// margin free is refused before anything is made or run; one that fits
// with the margin is made.
func TestOnChecksFreeSpace(t *testing.T) {
	const total = 100 << 30 // margin 5 GiB
	for _, tc := range []struct {
		name  string
		avail int64
		ok    bool
	}{
		{"no room", 10 << 30, false},         // 10 GiB free, 8 GiB asked: 2 GiB would be left < 5 GiB
		{"room with margin", 14 << 30, true}, // 6 GiB left
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := &fakeHost{avail: tc.avail, total: total}
			h := k.host(t, 0)
			f, err := h.On(context.Background(), 8<<30)
			if !tc.ok {
				if err == nil || !strings.Contains(err.Error(), "must leave 5120 MiB") {
					t.Fatalf("On: %v, want a refusal naming the margin", err)
				}
				if k.commands() != "" {
					t.Errorf("ran %s after refusing", k.commands())
				}
				empty(t, h.Dir)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := f.Off(); err != nil {
				t.Fatal(err)
			}
			empty(t, h.Dir)
		})
	}
}

// TestOnENOSPCNoZeroFill: fallocate failing for lack of space ends On
// with that error and nothing else written (the old dd fallback wrote
// zeros until the disk was full); only an unsupported fallocate falls
// back to writing zeros, exactly size bytes.
func TestOnENOSPCNoZeroFill(t *testing.T) {
	k := &fakeHost{allocErr: &os.PathError{Op: "fallocate", Path: "x", Err: syscall.ENOSPC}}
	h := k.host(t, 0)
	if _, err := h.On(context.Background(), 64<<20); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("On: %v, want ENOSPC", err)
	}
	if got := k.commands(); got != "fallocate" {
		t.Errorf("commands %s, want fallocate only", got)
	}
	empty(t, h.Dir)

	k = &fakeHost{allocErr: syscall.EOPNOTSUPP}
	h = k.host(t, 0)
	var size int64
	h.Run = func(ctx context.Context, name string, args ...string) ([]byte, error) {
		if name == "mkswap" {
			fi, err := os.Stat(args[0])
			if err != nil {
				return nil, err
			}
			size = fi.Size()
		}
		return k.run(ctx, name, args...)
	}
	f, err := h.On(context.Background(), 3<<20+5)
	if err != nil {
		t.Fatal(err)
	}
	if size != 3<<20+5 {
		t.Errorf("zero-filled %d bytes, want %d", size, 3<<20+5)
	}
	if err := f.Off(); err != nil {
		t.Fatal(err)
	}
	empty(t, h.Dir)
}

// TestCreateRefusesExisting: the swapfile is created, never opened: an
// existing file or a symlink (even a dangling one, which would point the
// swapfile at a path of someone's choosing) at its place is refused and
// left alone.
func TestCreateRefusesExisting(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(dir, "victim")
	link := filepath.Join(dir, "link")
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{file, link} {
		if f, err := create(p); !errors.Is(err, os.ErrExist) {
			if f != nil {
				f.Close()
			}
			t.Errorf("create %s: %v, want it refused as existing", p, err)
		}
	}
	if b, _ := os.ReadFile(file); string(b) != "x" {
		t.Errorf("the existing file was changed: %q", b)
	}
	if _, err := os.Lstat(victim); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the symlink's target was created")
	}
	f, err := create(filepath.Join(dir, "new"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if fi, _ := f.Stat(); fi.Mode().Perm() != 0o600 {
		t.Errorf("new swapfile mode %v, want 0600", fi.Mode().Perm())
	}
}
