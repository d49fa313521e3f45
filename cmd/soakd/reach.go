package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// reachTimeout bounds the connect-and-ping of one --target before any
// run starts.
const reachTimeout = 30 * time.Second

// emptyTarget names the first --target given as an empty string: it
// would silently run against the scenario's own target.
func emptyTarget(ts []string) bool {
	for _, t := range ts {
		if strings.TrimSpace(t) == "" {
			return true
		}
	}
	return false
}

// checkReachable opens sc's target (overrides applied) with one
// connection and closes it: the adapters connect and ping in Open. A
// managed target is started by the run itself and is not checked.
func (a *App) checkReachable(ctx context.Context, sc *scenarios.Scenario) error {
	if sc.Target.Managed != nil || sc.Target.Kind == scenarios.KindEmbedded {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, reachTimeout)
	defer cancel()
	tg, err := targets.Open(ctx, sc.Target, targets.Options{Env: a.Getenv, Concurrency: 1, Warn: func(string) {}})
	if err != nil {
		return err
	}
	tg.Close()
	return nil
}

// errEmptyTarget is the message for an empty --target.
var errEmptyTarget = fmt.Errorf("--target '': give a store URL such as redis://host:6379 (leave the flag out to use the scenario's target)")
