package redis

import (
	"context"
	"testing"

	goredis "github.com/redis/go-redis/v9"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// mustRedis starts a redis-server and fails (not skips) when it cannot:
// CI installs it.
func mustRedis(t *testing.T) *Server {
	t.Helper()
	s, err := StartServer(context.Background(), ServerConfig{Dir: t.TempDir(), Persistence: "none"})
	if err != nil {
		t.Fatalf("redis-server (apt-get install redis-server): %v", err)
	}
	t.Cleanup(func() { s.Stop() })
	return s
}

// TestPoolSizeFollowsConcurrency: go-redis's pool and soakd's own (the
// fast path's) hold one connection per worker of the busiest phase
// unless client.pool_size or the URL's pool_size sets it.
func TestPoolSizeFollowsConcurrency(t *testing.T) {
	s := mustRedis(t)
	for _, c := range []struct {
		url        string
		pool, conc int
		want       int
	}{
		{s.URL(), 0, 50, 50},
		{s.URL(), 0, 300, 300},
		{s.URL(), 8, 50, 8},
		{s.URL() + "?pool_size=7", 0, 50, 7},
		{s.URL() + "?pool_size=7", 9, 50, 9},
	} {
		tg := openTarget(t, scenarios.Target{URL: c.url, Client: scenarios.ClientOf(scenarios.ClientCommon{PoolSize: c.pool}, nil)}, targets.Options{Concurrency: c.conc})
		if got := tg.Client().(*goredis.Client).Options().PoolSize; got != c.want {
			t.Errorf("%s pool_size %d concurrency %d: PoolSize %d, want %d", c.url, c.pool, c.conc, got, c.want)
		}
		if got := tg.own.size; got != c.want {
			t.Errorf("%s pool_size %d concurrency %d: own pool of %d, want %d", c.url, c.pool, c.conc, got, c.want)
		}
	}
}
