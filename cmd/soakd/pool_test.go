package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	redistarget "github.com/soakd/soakd/targets/redis"
)

// connectionsReceived is redis-server's count of connections accepted.
func connectionsReceived(t *testing.T, rc *goredis.Client) int {
	t.Helper()
	info, err := rc.Info(context.Background(), "stats").Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), "total_connections_received:"); ok {
			n, _ := strconv.Atoi(v)
			return n
		}
	}
	t.Fatal("no total_connections_received in INFO stats")
	return 0
}

// TestRunPoolFollowsConcurrency: `soakd run` with concurrency 50 and no
// pool_size opens 50 load connections to redis-server when 50 closed-loop
// workers are busy at once, on either client protocol (go-redis's own default pool is 10 per CPU,
// 20 here); client.pool_size caps it. A CLIENT PAUSE mid-run holds every
// worker's command at the server so all 50 need a connection at once.
func TestRunPoolFollowsConcurrency(t *testing.T) {
	s, err := redistarget.StartServer(context.Background(), redistarget.ServerConfig{Persistence: "none"})
	if err != nil {
		t.Fatalf("redis-server (apt-get install redis-server): %v", err)
	}
	t.Cleanup(func() { s.Stop() })
	rc := goredis.NewClient(&goredis.Options{Addr: s.Addr(), Protocol: 2, DisableIdentity: true})
	t.Cleanup(func() { rc.Close() })
	dir := t.TempDir()
	ctx := context.Background()

	run := func(name, client string, pause bool) int {
		t.Helper()
		scen := write(t, dir, name+".yaml", fmt.Sprintf(`target: {kind: redis, url: %q%s}
keyspace: {records: 1000}
phases:
  - {name: set, kind: steady, rate: 0, concurrency: 50, duration: 3s, mix: {set: 100}}
`, s.URL(), client))
		rc.FlushAll(ctx)
		before := connectionsReceived(t, rc)
		done := make(chan int, 1)
		a, _, errb := newApp()
		go func() {
			done <- a.Main(ctx, []string{"run", scen, "--out", filepath.Join(dir, name), "--listen", "", "--quiet"})
		}()
		if pause {
			// Once the workers are running, hold every command for
			// 500 ms: each busy worker then holds a connection.
			for rc.DBSize(ctx).Val() == 0 {
				select {
				case code := <-done:
					t.Fatalf("run ended (exit %d) before any SET: %s", code, errb)
				case <-time.After(10 * time.Millisecond):
				}
			}
			if err := rc.Do(ctx, "CLIENT", "PAUSE", 500, "ALL").Err(); err != nil {
				t.Fatal(err)
			}
		}
		if code := <-done; code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, errb)
		}
		return connectionsReceived(t, rc) - before
	}
	// The load runs on the fast path's own pool; go-redis keeps one
	// connection for PING, INFO and stats; go-redis opens another when
	// two of its calls overlap, and a CI host at load 13 counted 52.
	// Either way the pool followed the 50 workers, not go-redis's 20.
	if got := run("default", "", true); got < 50+1 || got > 50+2 {
		t.Errorf("concurrency 50, no pool_size: soakd opened %d connections, want 50 + 1 or 2 go-redis", got)
	}
	if got := run("capped", ", client: {pool_size: 8}", false); got > 8+1 {
		t.Errorf("pool_size 8: soakd opened %d connections, want at most 8 + 1 go-redis", got)
	}
	if got := run("goredis", ", client: {protocol: goredis}", true); got < 50 || got > 50+2 {
		t.Errorf("concurrency 50, protocol goredis: soakd opened %d connections, want 50 (up to 2 more on a loaded host, as above)", got)
	}
}
