// Package swapfile turns on a temporary swapfile for a run (soakd run
// --swap SIZE) and turns it off and deletes it again: fallocate (dd
// where the filesystem refuses fallocate), mkswap, swapon; then swapoff
// and remove. The commands and the file removal are replaceable, so the
// clean-up on every path is tested without root.
package swapfile

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// MinSize is the smallest swapfile mkswap makes usable (ten pages, and
// a page of header); smaller asks are refused before anything is made.
const MinSize = 1 << 20

// Runner runs a command and returns its combined output.
type Runner func(ctx context.Context, name string, args ...string) ([]byte, error)

// Host is where and how the swapfile is made. The zero value is this
// host: a file in /var/tmp, the real commands, os.Remove, os.Geteuid.
type Host struct {
	Dir    string
	Run    Runner
	Remove func(path string) error
	Euid   func() int
}

// File is a swapfile soakd turned on.
type File struct {
	Path string
	Size int64

	h    Host
	on   bool // swapon succeeded: swapoff before removing
	once sync.Once
	err  error
}

func (h Host) run(ctx context.Context, name string, args ...string) error {
	r := h.Run
	if r == nil {
		r = func(ctx context.Context, name string, args ...string) ([]byte, error) {
			return exec.CommandContext(ctx, name, args...).CombinedOutput()
		}
	}
	out, err := r(ctx, name, args...)
	if err != nil {
		msg := strings.TrimSpace(string(out))
		if msg != "" {
			return fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, msg)
		}
		return fmt.Errorf("%s %s: %w", name, strings.Join(args, " "), err)
	}
	return nil
}

func (h Host) remove(p string) error {
	if h.Remove != nil {
		return h.Remove(p)
	}
	return os.Remove(p)
}

// On makes a swapfile of size bytes named for this process and turns it
// on. Without root it refuses before making anything. When a step
// fails, what was done is undone (the file removed) and the error names
// the step and the command's output. ctx ending (SIGINT) stops the
// commands and undoes the same way.
func (h Host) On(ctx context.Context, size int64) (*File, error) {
	if size < MinSize {
		return nil, fmt.Errorf("%d bytes is too small for a swapfile (at least 1mb)", size)
	}
	euid := os.Geteuid
	if h.Euid != nil {
		euid = h.Euid
	}
	if euid() != 0 {
		return nil, errors.New("turning on a swapfile needs root (mkswap, swapon): not permitted for this user")
	}
	dir := h.Dir
	if dir == "" {
		dir = "/var/tmp"
	}
	f := &File{Path: filepath.Join(dir, fmt.Sprintf("soakd-%d.swap", os.Getpid())), Size: size, h: h}
	fail := func(err error) (*File, error) {
		if oerr := f.Off(); oerr != nil {
			err = fmt.Errorf("%w; undoing it: %v", err, oerr)
		}
		return nil, err
	}
	// The file must be new: one left by an earlier soakd with this pid
	// may be in use as swap.
	if _, err := os.Lstat(f.Path); err == nil {
		return nil, fmt.Errorf("%s already exists (left by an earlier run? swapoff and remove it)", f.Path)
	}
	if err := h.run(ctx, "fallocate", "-l", strconv.FormatInt(size, 10), f.Path); err != nil {
		// Some filesystems refuse fallocate, or make files swapon
		// rejects: write the zeros instead.
		_ = h.remove(f.Path)
		mb := (size + 1<<20 - 1) >> 20
		if derr := h.run(ctx, "dd", "if=/dev/zero", "of="+f.Path, "bs=1M", "count="+strconv.FormatInt(mb, 10)); derr != nil {
			return fail(fmt.Errorf("make %s: %v; %v", f.Path, err, derr))
		}
	}
	// swapon warns about (and some kernels refuse) a swapfile others
	// can read.
	if err := os.Chmod(f.Path, 0o600); err != nil {
		return fail(err)
	}
	if err := h.run(ctx, "mkswap", f.Path); err != nil {
		return fail(err)
	}
	if err := h.run(ctx, "swapon", f.Path); err != nil {
		return fail(err)
	}
	f.on = true
	return f, nil
}

// Off turns the swapfile off (when it was on) and removes it. It runs
// once; later calls return the first call's error. The pages in the
// file are read back into memory by swapoff, so it can take a while.
func (f *File) Off() error {
	f.once.Do(func() {
		if f.on {
			// Not the run's context: it has ended by now on a signal.
			if err := f.h.run(context.Background(), "swapoff", f.Path); err != nil {
				// Removing a file still in use as swap would leave the
				// swap on with no path to turn it off by.
				f.err = fmt.Errorf("%w (the swapfile is still on: swapoff %s and remove it)", err, f.Path)
				return
			}
		}
		if err := f.h.remove(f.Path); err != nil && !errors.Is(err, os.ErrNotExist) {
			f.err = err
		}
	})
	return f.err
}
