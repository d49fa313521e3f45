package main

import (
	"flag"
	"fmt"
	"runtime"
	"time"

	"github.com/soakd/soakd/internal/heapprof"
)

// heapFirst is when the first heap profile is taken: past start-up, so
// the later ones diffed against it show growth, not warm-up.
const heapFirst = 5 * time.Minute

// heapRate is --heap-profile-rate's default, Go's own default
// runtime.MemProfileRate (main turns profiling off until a run asks).
const heapRate = 512 * 1024

// heapFlags are --heap-profile and --heap-profile-every, of run and serve.
type heapFlags struct {
	dir   string
	every time.Duration
	rate  int
}

func (h *heapFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&h.dir, "heap-profile", "", "write heap profiles (pprof, after a GC) into `DIR`: at 5m, then every --heap-profile-every, and at the end; named by time since start (heap-00h05m00s.pb.gz, heap-02h00m03s-end.pb.gz); read with go tool pprof")
	fs.DurationVar(&h.every, "heap-profile-every", 30*time.Minute, "interval between heap profiles after the first (`D`; 0 = only at 5m and at the end)")
	fs.IntVar(&h.rate, "heap-profile-rate", heapRate, "record one allocation per this many `BYTES` allocated in the heap profiles (Go's runtime.MemProfileRate; smaller sees smaller growth and costs more)")
}

// startHeap starts the profiler the flags ask for. stop writes the end
// profile and reports a failed write on stderr; ok is false (and the
// reason printed) when the flags are refused.
func (a *App) startHeap(cmd string, fs *flag.FlagSet, h heapFlags) (stop func(), ok bool) {
	var needsDir string
	fs.Visit(func(fl *flag.Flag) {
		if fl.Name == "heap-profile-every" || fl.Name == "heap-profile-rate" {
			needsDir = fl.Name
		}
	})
	if h.dir == "" {
		if needsDir != "" {
			fmt.Fprintf(a.Stderr, "soakd %s: --%s needs --heap-profile DIR\n", cmd, needsDir)
			return nil, false
		}
		return func() {}, true
	}
	if h.rate <= 0 {
		fmt.Fprintf(a.Stderr, "soakd %s: --heap-profile-rate %d: use a positive number of bytes like 4096 (Go's default is 524288)\n", cmd, h.rate)
		return nil, false
	}
	if h.every < 0 {
		fmt.Fprintf(a.Stderr, "soakd %s: --heap-profile-every %v: use a positive duration like 30m (0 = only at 5m and at the end)\n", cmd, h.every)
		return nil, false
	}
	p, err := heapprof.Start(h.dir, heapprof.Schedule{First: heapFirst, Every: h.every})
	if err != nil {
		fmt.Fprintf(a.Stderr, "soakd %s: --heap-profile %s: %v\n", cmd, h.dir, err)
		return nil, false
	}
	// Before the run allocates: the runtime samples at the rate in force
	// when each allocation is made.
	runtime.MemProfileRate = h.rate
	return func() {
		paths, err := p.Stop()
		if err != nil {
			fmt.Fprintf(a.Stderr, "soakd %s: --heap-profile %s: %v (%d profiles written)\n", cmd, h.dir, err, len(paths))
		}
	}, true
}
