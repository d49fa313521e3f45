package main

import (
	"context"
	"fmt"

	"github.com/soakd/soakd/daemon"
)

func (a *App) serve(ctx context.Context, args []string) int {
	fs := newFlagSet("serve")
	config := fs.String("config", "soakd.yaml", "daemon config `FILE`")
	var heap heapFlags
	heap.register(fs)
	var sched schedFlags
	sched.register(fs)
	var mem memFlags
	mem.register(fs)
	pos, code, ok := a.parseCmd("serve", fs, args)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		fmt.Fprintf(a.Stderr, "soakd serve: unexpected argument %q (soakd serve --help)\n", pos[0])
		return exitRefused
	}
	cfg, err := daemon.LoadConfig(*config, a.Getenv)
	if err != nil {
		printProblems(a.Stderr, err)
		fmt.Fprintf(a.Stderr, "soakd serve: %s refused\n", *config)
		return exitRefused
	}
	if !a.applySched("serve", fs, sched) {
		return exitRefused
	}
	stopHeap, ok := a.startHeap("serve", fs, heap)
	if !ok {
		return exitRefused
	}
	defer stopHeap()
	stopRelease, ok := a.startRelease("serve", mem)
	if !ok {
		return exitRefused
	}
	defer stopRelease()
	d, err := daemon.New(cfg, daemon.Options{ConfigPath: *config, Getenv: a.Getenv, Log: a.Stderr,
		Reload: a.Reload, Now: a.Now, Version: version, OnListen: a.OnListen})
	if err != nil {
		fmt.Fprintf(a.Stderr, "soakd serve: %v\n", err)
		return exitRefused
	}
	if err := d.Run(ctx); err != nil {
		fmt.Fprintf(a.Stderr, "soakd serve: %v\n", err)
		return exitFailed
	}
	return exitOK
}
