// Command soakd is the single soakd binary: main only wires the real
// environment into App.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	_ "github.com/soakd/soakd/targets/cql"
	_ "github.com/soakd/soakd/targets/elastic"
	_ "github.com/soakd/soakd/targets/embedded"
	_ "github.com/soakd/soakd/targets/mongo"
	redistarget "github.com/soakd/soakd/targets/redis"
)

func main() {
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
