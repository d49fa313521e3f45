//go:build unix

package runpath

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// LockFile is the run directory's lock: held (flock) by the soakd
// process running or resuming the run, with its pid in it, so that
// no second process resumes it.
const LockFile = "run.lock"

// dirLock is a held run directory lock.
type dirLock struct{ f *os.File }

// lockDir takes dir's lock for this process, or says who holds it
// (a *NotResumableError with ResumeLocked).
func lockDir(dir string) (*dirLock, error) {
	f, err := os.OpenFile(filepath.Join(dir, LockFile), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		pid := lockHolder(f)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			msg := "another soakd process is running it"
			if pid > 0 {
				msg = fmt.Sprintf("soakd pid %d is running it (it holds %s)", pid, LockFile)
			}
			return nil, &NotResumableError{Dir: dir, Reason: ResumeLocked, Msg: msg, PID: pid}
		}
		return nil, fmt.Errorf("%s: %w", f.Name(), err)
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &dirLock{f}, nil
}

// lockHolder is the pid written in the lock file (0 unknown).
func lockHolder(f *os.File) int {
	b := make([]byte, 32)
	n, _ := f.ReadAt(b, 0)
	pid, err := strconv.Atoi(string(bytes.TrimSpace(b[:n])))
	if err != nil {
		return 0
	}
	return pid
}

// unlock releases the lock (the file stays: removing it would let a
// process that opened it before lock another inode than the next one).
func (l *dirLock) unlock() {
	if l == nil {
		return
	}
	_ = syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
	l.f.Close()
}

// remove removes the lock file (a new run that did not start: its
// directory is left as it was).
func (l *dirLock) remove() {
	if l != nil {
		os.Remove(l.f.Name())
	}
}
