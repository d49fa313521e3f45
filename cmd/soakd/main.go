// Command soakd is the single soakd binary: main only wires the real
// environment into App.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"time"

	_ "github.com/soakd/soakd/targets/elastic"
	_ "github.com/soakd/soakd/targets/embedded"
	_ "github.com/soakd/soakd/targets/mongo"
	_ "github.com/soakd/soakd/targets/redis"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
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
