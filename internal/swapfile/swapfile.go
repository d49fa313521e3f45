// Package swapfile turns on a temporary swapfile for a run (soakd run
// --swap SIZE) and turns it off and deletes it again: a check that the
// filesystem has room for it and a margin, a private 0700 directory,
// the file created there with O_EXCL|O_NOFOLLOW, fallocate(2) (zeros
// written only where the filesystem does not support fallocate, never
// after ENOSPC), mkswap, swapon; then swapoff and remove. The space
// check, the allocation, the commands and the file removal are
// replaceable, so every path is tested without root.
package swapfile

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// MinSize is the smallest swapfile mkswap makes usable (ten pages, and
// a page of header); smaller asks are refused before anything is made.
const MinSize = 1 << 20

// Free-space margin: a swapfile is made only when the filesystem keeps
// at least MarginMin bytes, and MarginPercent of its size, free after
// it.
const (
	MarginMin     = 1 << 30
	MarginPercent = 5
)

// FileName is the swapfile's name inside its private directory.
const FileName = "swapfile"

// Runner runs a command and returns its combined output.
type Runner func(ctx context.Context, name string, args ...string) ([]byte, error)

// Host is where and how the swapfile is made. The zero value is this
// host: a private directory in /var/tmp, statfs(2), fallocate(2), the
// real mkswap/swapon/swapoff, os.Remove, os.Geteuid.
type Host struct {
	Dir    string
	Run    Runner
	Remove func(path string) error
	Euid   func() int
	// Space returns the bytes available to root and the filesystem's
	// size for dir (default: statfs).
	Space func(dir string) (avail, total int64, err error)
	// Allocate reserves size bytes for f (default: fallocate(2)).
	Allocate func(f *os.File, size int64) error
}

// File is a swapfile soakd turned on.
type File struct {
	Path string
	Size int64

	dir  string // the private directory holding Path
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

// Margin is the free space a filesystem of total bytes must keep after
// the swapfile.
func Margin(total int64) int64 {
	return max(MarginMin, total/100*MarginPercent)
}

// On makes a swapfile of size bytes and turns it on. Without root, or
// without room for it and the margin, it refuses before making
// anything. When a step fails, what was done is undone (the file and
// its directory removed) and the error names the step and the
// command's output. ctx ending (SIGINT) stops the commands and undoes
// the same way.
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
	space := h.Space
	if space == nil {
		space = statfsSpace
	}
	avail, total, err := space(dir)
	if err != nil {
		return nil, fmt.Errorf("free space in %s: %w", dir, err)
	}
	if need := size + Margin(total); avail < need {
		return nil, fmt.Errorf("%s has %d MiB free: a %d MiB swapfile must leave %d MiB (%d%% of the filesystem, at least %d MiB) free; give a smaller --swap",
			dir, avail>>20, size>>20, Margin(total)>>20, MarginPercent, MarginMin>>20)
	}
	// A directory only root can enter, with a name no one can guess
	// (mkdir fails rather than reuse anything): in a world-writable
	// directory such as /var/tmp no one can put a file or a symlink
	// where the swapfile goes.
	priv, err := os.MkdirTemp(dir, "soakd-swap-")
	if err != nil {
		return nil, err
	}
	f := &File{Path: filepath.Join(priv, FileName), Size: size, dir: priv, h: h}
	fail := func(err error) (*File, error) {
		if oerr := f.Off(); oerr != nil {
			err = fmt.Errorf("%w; undoing it: %v", err, oerr)
		}
		return nil, err
	}
	fd, err := create(f.Path)
	if err != nil {
		return fail(err)
	}
	err = h.fill(ctx, fd, size)
	if cerr := fd.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fail(fmt.Errorf("make %s: %w", f.Path, err))
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

// create makes path, which must not exist (O_EXCL) and is not followed
// if it is a symlink (O_NOFOLLOW), readable by its owner only: swapon
// warns about (and some kernels refuse) a swapfile others can read.
func create(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
}

// fill reserves size bytes for fd: fallocate, or zeros written where
// the filesystem does not support fallocate. Running out of space is
// an error, never a reason to write zeros until the disk is full.
func (h Host) fill(ctx context.Context, fd *os.File, size int64) error {
	alloc := h.Allocate
	if alloc == nil {
		alloc = fallocate
	}
	err := alloc(fd, size)
	if err == nil || !(errors.Is(err, errors.ErrUnsupported) || errors.Is(err, syscall.EOPNOTSUPP) || errors.Is(err, syscall.ENOSYS)) {
		return err
	}
	// The space was checked before: write exactly size bytes, stopping
	// at the first error or signal.
	zeros := make([]byte, 1<<20)
	for left := size; left > 0; {
		if err := ctx.Err(); err != nil {
			return err
		}
		n := int64(len(zeros))
		if left < n {
			n = left
		}
		if _, err := fd.Write(zeros[:n]); err != nil {
			return err
		}
		left -= n
	}
	return fd.Sync()
}

// Off turns the swapfile off (when it was on) and removes it and its
// directory. It runs once; later calls return the first call's error.
// The pages in the file are read back into memory by swapoff, so it can
// take a while.
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
			return
		}
		if err := os.Remove(f.dir); err != nil && !errors.Is(err, os.ErrNotExist) {
			f.err = err
		}
	})
	return f.err
}
