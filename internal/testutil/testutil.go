// Package testutil holds helpers shared by soakd's tests in several
// packages. It is not imported by non-test code.
package testutil

import (
	"bytes"
	"sync"
)

// SyncBuffer is an io.Writer safe for concurrent writers (logs, progress
// output of goroutines) whose contents a test reads with String.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
