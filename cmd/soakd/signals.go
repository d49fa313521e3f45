package main

import (
	"io"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
)

// stopSignals are the signals that end a command through its clean path
// (the run's results written, a --swap file turned off and removed):
// every catchable one a user or a closing terminal sends. serve keeps
// SIGHUP for reloading its config; a foreground run treats a hang-up (a
// closed terminal or ssh session) like SIGINT. SIGQUIT ends the run the
// same way instead of dumping goroutines and losing it.
func stopSignals(cmd string) []os.Signal {
	s := []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGQUIT}
	if cmd != "serve" {
		s = append(s, syscall.SIGHUP)
	}
	return s
}

// quietWriter passes writes to w and swallows their errors: a run whose
// stdout or stderr is a closed pipe (soakd run ... | head -3) or a
// vanished terminal goes on and writes its run directory. After the
// first failure it stops trying: the reader is gone. With SIGPIPE
// caught (main), a write to a closed pipe returns EPIPE instead of
// killing the process.
type quietWriter struct {
	mu     sync.Mutex // one write at a time, so lines do not interleave
	w      io.Writer
	broken atomic.Bool
}

func newQuietWriter(w io.Writer) *quietWriter { return &quietWriter{w: w} }

// Fd is the descriptor of the file q writes to, so term.IsTerminal can
// ask it; an invalid one when q does not write to a file.
func (q *quietWriter) Fd() uintptr {
	if f, ok := q.w.(interface{ Fd() uintptr }); ok {
		return f.Fd()
	}
	return ^uintptr(0)
}

// Write always reports success.
func (q *quietWriter) Write(p []byte) (int, error) {
	if q.broken.Load() {
		return len(p), nil
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if _, err := q.w.Write(p); err != nil {
		q.broken.Store(true)
	}
	return len(p), nil
}
