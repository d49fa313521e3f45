package runpath

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	_ "github.com/soakd/soakd/targets/redis" // the target named, registered: a connection would show
)

// A run whose preparation fails (its capture vanished after the
// scenario was read) fails before it opens the target: the redis
// server it names sees no connection.
func TestPreparationFailsBeforeTheTargetOpens(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var conns atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			c.Close()
		}
	}()
	dir := t.TempDir()
	capture := filepath.Join(dir, "ops.ndjson")
	if err := os.WriteFile(capture, []byte(`{"ts": 1.0, "op": "SET", "args": ["a", "1"]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sc := parse(t, "name: prep\ntarget: {kind: redis, url: \"redis://"+ln.Addr().String()+"\"}\n"+
		"phases:\n  - {name: r, kind: replay, source: "+capture+", format: ndjson, concurrency: 1}\n")
	if err := os.Remove(capture); err != nil {
		t.Fatal(err)
	}
	sum, err := Run(context.Background(), Options{Scenario: sc, OutDir: filepath.Join(dir, "run"), Getenv: noEnv})
	if sum != nil || !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "phase r") {
		t.Fatalf("run: summary %v, err %v; want phase r's capture missing", sum != nil, err)
	}
	if n := conns.Load(); n != 0 {
		t.Errorf("the target saw %d connections before the run was refused, want none", n)
	}
}
