// Command soakd is the single soakd binary: main only wires the real
// environment into App.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"syscall"
	"time"

	_ "github.com/soakd/soakd/targets/cql"
	_ "github.com/soakd/soakd/targets/elastic"
	_ "github.com/soakd/soakd/targets/embedded"
	_ "github.com/soakd/soakd/targets/mongo"
	redistarget "github.com/soakd/soakd/targets/redis"
)

// procs is the GOMAXPROCS soakd runs with when Go picked n: one P more
// than the CPUs, for the pacer. The pacer locks an OS thread and keeps
// its P through its short sleeps (engine/sleep_linux.go), so it runs as
// soon as the kernel wakes it; the extra P leaves the workers the n Go
// picked. With one P (one CPU, or a 1-CPU container limit) the pacer
// waited for the workers to yield the only P after every wake-up and
// its lag p99 went from 0.2 ms to 6-13 ms; with two, the OS still
// time-slices one core between the two threads. A GOMAXPROCS the
// environment sets is kept, raised to 2.
func procs(n int, fromEnv bool) int {
	if fromEnv {
		return max(n, 2)
	}
	return max(n+1, 2)
}

// gcPercent is soakd's GOGC when the environment sets none. The live
// heap is mostly the recording histograms (pointer-free, cheap to
// mark), while the Redis pipeline allocates ~250 B per op: at the
// default 100 a 500k ops/s run collected ~6 times a second, each cycle
// taking a P for 5-12 ms of marking. At 400 it collects ~4 times less
// often for a heap ceiling 5x the live heap (~150 MB at 500k GET/s).
const gcPercent = 400

func main() {
	runtime.GOMAXPROCS(procs(runtime.GOMAXPROCS(0), os.Getenv("GOMAXPROCS") != ""))
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// go-redis writes its own log lines (dial failures, topology changes)
	// through a package global, redis.SetLogger: the one global soakd sets
	// besides the adapter registry, set here once for the whole process.
	// The lines go to soakd's stderr with every URL redacted.
	redistarget.SetLogger(func(msg string) { fmt.Fprintf(os.Stderr, "soakd: go-redis: %s\n", msg) })
	app := &App{Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, Now: time.Now}
	if len(os.Args) > 1 && os.Args[1] == "serve" {
		// Only the daemon reloads on SIGHUP; a foreground run keeps the
		// default (a closed terminal ends it).
		hup := make(chan os.Signal, 1)
		signal.Notify(hup, syscall.SIGHUP)
		app.Reload = hup
	}
	os.Exit(app.Main(ctx, os.Args[1:]))
}
