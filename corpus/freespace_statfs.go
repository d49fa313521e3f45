//go:build linux || darwin || freebsd

package corpus

import "syscall"

// freeSpace returns the bytes free to an unprivileged writer in dir's
// file system.
func freeSpace(dir string) (int64, bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, false
	}
	return int64(st.Bavail) * int64(st.Bsize), true
}
