// Command soakd is the single soakd binary: main only wires the real
// environment into App.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/soakd/soakd/engine"
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

func main() {
	runtime.GOMAXPROCS(procs(runtime.GOMAXPROCS(0), os.Getenv("GOMAXPROCS") != ""))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// go-redis writes its own log lines (dial failures, topology changes)
	// through a package global, redis.SetLogger: the one global soakd sets
	// besides the adapter registry, set here once for the whole process.
	// The lines go to soakd's stderr with every URL redacted.
	redistarget.SetLogger(func(msg string) { fmt.Fprintf(os.Stderr, "soakd: go-redis: %s\n", msg) })
	// One P beyond the CPUs (procs), so one pacer at a time keeps it.
	app := &App{Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, Now: time.Now, PacerPs: engine.NewPacerPs(1)}
	if len(os.Args) > 1 && os.Args[1] == "serve" {
		// Only the daemon reloads on SIGHUP; a foreground run keeps the
		// default (a closed terminal ends it).
		hup := make(chan os.Signal, 1)
		signal.Notify(hup, syscall.SIGHUP)
		app.Reload = hup
	}
	os.Exit(app.Main(ctx, os.Args[1:]))
}
