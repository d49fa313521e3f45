//go:build !unix

package runpath

import "os"

// LockFile is the run directory's lock (not taken on this platform: a
// second resumer of a run directory is not refused here).
const LockFile = "run.lock"

// dirLock is a held run directory lock (none on this platform).
type dirLock struct{ f *os.File }

func lockDir(dir string) (*dirLock, error) { return &dirLock{}, nil }

func (l *dirLock) unlock() {}

func (l *dirLock) remove() {}
