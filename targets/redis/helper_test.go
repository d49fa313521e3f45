package redis

import (
	"context"
	"strconv"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"

	"github.com/soakd/soakd/internal/testutil"
)

// startRedis starts redis-server on a free port with no persistence in a
// temp dir and stops it when the test ends; it skips when redis-server
// is not installed.
func startRedis(t *testing.T, args ...string) *Server {
	t.Helper()
	return startRedisOn(t, 0, "", args...)
}

func startRedisOn(t *testing.T, port int, dir string, args ...string) *Server {
	t.Helper()
	testutil.NeedTool(t, "redis-server")
	if dir == "" {
		dir = t.TempDir()
	}
	s, err := StartServer(context.Background(), ServerConfig{Dir: dir, Port: port, Persistence: "none", Args: args})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Stop() })
	return s
}

// rawClient is a plain client for checking what the adapter did.
func rawClient(t *testing.T, s *Server) *goredis.Client {
	t.Helper()
	c := goredis.NewClient(&goredis.Options{Addr: s.Addr(), Protocol: 2, DisableIdentity: true})
	t.Cleanup(func() { c.Close() })
	return c
}

func openTarget(t *testing.T, st scenarios.Target, o targets.Options) *Target {
	t.Helper()
	if st.Kind == "" {
		st.Kind = "redis"
	}
	tg, err := targets.Open(context.Background(), st, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close() })
	return tg.(*Target)
}

func openURL(t *testing.T, s *Server) *Target {
	return openTarget(t, scenarios.Target{URL: s.URL()}, targets.Options{})
}

func key(n int64) []byte { return scenarios.AppendKey(nil, "user", n, false) }

func record(n int64, fields int) []targets.Field {
	fs := make([]targets.Field, fields)
	for i := range fs {
		fs[i] = targets.Field{Name: scenarios.FieldName(i), Value: []byte("v" + strconv.FormatInt(n, 10) + "-" + strconv.Itoa(i))}
	}
	return fs
}

func insertReq(n int64) *targets.Request {
	return &targets.Request{Op: scenarios.OpInsert, KeyNum: n, Key: key(n), Fields: record(n, 3)}
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}
