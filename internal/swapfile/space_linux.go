package swapfile

import (
	"os"
	"syscall"
)

// statfsSpace is the space available in dir's filesystem (to any user:
// the blocks reserved for root are left alone) and its size.
func statfsSpace(dir string) (avail, total int64, err error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, 0, err
	}
	return int64(st.Bavail) * int64(st.Bsize), int64(st.Blocks) * int64(st.Bsize), nil
}

// fallocate reserves size bytes for f (mode 0: allocate and extend).
func fallocate(f *os.File, size int64) error {
	for {
		err := syscall.Fallocate(int(f.Fd()), 0, 0, size)
		if err != syscall.EINTR {
			if err != nil {
				return &os.PathError{Op: "fallocate", Path: f.Name(), Err: err}
			}
			return nil
		}
	}
}
