package targets

import "github.com/soakd/soakd/rundir"

// MemoryLimits is what caps a server's memory; the type is the run
// directory's (summary.json's target.memory_limits), so rundir need not
// import targets.
type MemoryLimits = rundir.MemoryLimits

// MemoryLimiter is implemented by targets that can tell what caps the
// server's memory.
type MemoryLimiter interface {
	MemoryLimits() *MemoryLimits
}

// FormatBytes prints a size in the units scenarios use (rundir.FormatBytes).
func FormatBytes(n int64) string { return rundir.FormatBytes(n) }
