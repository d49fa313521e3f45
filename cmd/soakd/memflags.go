package main

import (
	"flag"
	"fmt"
	"time"

	"github.com/soakd/soakd/internal/memrelease"
)

// memFlags is --release-memory-every, of run and serve.
type memFlags struct {
	every time.Duration
}

func (m *memFlags) register(fs *flag.FlagSet) {
	fs.DurationVar(&m.every, "release-memory-every", memrelease.Default, "hand the heap's free pages back to the OS every `D` (1s..24h; 0 = never) with a forced GC, so a long run's RSS stays level instead of creeping into pages the Go runtime keeps")
}

// startRelease starts the releases the flag asks for; ok is false (and
// the reason printed) when the interval is refused.
func (a *App) startRelease(cmd string, m memFlags) (stop func(), ok bool) {
	if err := memrelease.Check(m.every); err != nil {
		fmt.Fprintf(a.Stderr, "soakd %s: --release-memory-every %v\n", cmd, err)
		return nil, false
	}
	s := memrelease.Start(m.every, nil)
	return func() { s() }, true
}
