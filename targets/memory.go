package targets

import "github.com/soakd/soakd/storeinfo"

// MemoryLimits is what caps a server's memory (summary.json's
// target.memory_limits); the type is the leaf storeinfo's, so rundir
// need not import targets.
type MemoryLimits = storeinfo.MemoryLimits

// MemoryLimiter is implemented by targets that can tell what caps the
// server's memory.
type MemoryLimiter interface {
	MemoryLimits() *MemoryLimits
}

// FormatBytes prints a size in the units scenarios use (storeinfo.FormatBytes).
func FormatBytes(n int64) string { return storeinfo.FormatBytes(n) }
