// Command soakd is the single soakd binary: main only wires the real
// environment into App.
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/soakd/soakd/internal/term"
	_ "github.com/soakd/soakd/targets/cql"
	_ "github.com/soakd/soakd/targets/elastic"
	_ "github.com/soakd/soakd/targets/embedded"
	_ "github.com/soakd/soakd/targets/mongo"
	redistarget "github.com/soakd/soakd/targets/redis"
)

func main() {
	// Heap profiling is off unless a run asks for it (--heap-profile sets
	// the rate back). With Go's default rate on, the runtime keeps a
	// record per allocation stack and size it has sampled, filed in a
	// 1.4 MB hash table whose pages are touched one at a time as new
	// stacks come up: a soak's RSS then rises for hours from the
	// profiler alone, for profiles nobody reads (docs/capacity.md#memory).
	runtime.MemProfileRate = 0
	cmd := ""
	if len(os.Args) > 1 {
		cmd = os.Args[1]
	}
	ctx, stop := signal.NotifyContext(context.Background(), stopSignals(cmd)...)
	defer stop()
	// Caught, not ignored (an ignored signal would be inherited by a
	// managed server): a write to a closed stdout or stderr then fails
	// with EPIPE, which the quiet writers swallow, instead of killing
	// the run.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	stdout, stderr := newQuietWriter(os.Stdout), newQuietWriter(os.Stderr)
	// go-redis writes its own log lines (dial failures, topology changes)
	// through a package global, redis.SetLogger: the one global soakd sets
	// besides the adapter registry, set here once for the whole process.
	// They are debug output (redisLog).
	redistarget.SetLogger(redisLog(os.Getenv, stderr))
	app := &App{Stdout: stdout, Stderr: stderr, Getenv: os.Getenv, Now: time.Now, Terminal: term.IsTerminal}
	if cmd == "serve" {
		// Only the daemon reloads on SIGHUP; a foreground run ends on it
		// (stopSignals).
		hup := make(chan os.Signal, 1)
		signal.Notify(hup, syscall.SIGHUP)
		app.Reload = hup
	}
	os.Exit(app.Main(ctx, os.Args[1:]))
}
