package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
	redistarget "github.com/soakd/soakd/targets/redis"
)

// runRedis runs sc against the redis-server its target block starts
// (managed) and returns the summary, the run directory and a client of
// the server, open until the test ends.
func runRedis(t *testing.T, sc *scenarios.Scenario, shard rundir.Shard) (*rundir.Summary, string, goredis.UniversalClient) {
	t.Helper()
	needRedis(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	tg, err := targets.Open(ctx, sc.Target, targets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close() })
	dir := t.TempDir()
	sum, err := Run(ctx, Options{Scenario: sc, Target: tg, TargetKind: sc.Target.Kind, OutDir: dir, Interval: 200 * time.Millisecond, Shard: shard})
	if err != nil {
		t.Fatal(err)
	}
	return sum, dir, tg.(*redistarget.Target).Client()
}

// The cart scenario (shortened to 2 s): both custom ops run,
// under their own names in the summary, the SLO verdict, latency.hlog
// and counts.csv; the carts really hold what HINCRBY added; HGETALL of
// an absent cart is a miss, never an error.
func TestCustomRedisCart(t *testing.T) {
	sc := scenario(t, `
name: cart
target: {kind: redis, managed: {persistence: none}}
keyspace: {records: 10000, distribution: zipfian}
bindings:
  user: {key: zipfian}
ops:
  cart_add: {redis: [HINCRBY, "cart:{user}", "sku{int:1:50}", "1"]}
  cart_get: {redis: [HGETALL, "cart:{user}"], miss_when: empty}
phases:
  - {name: steady, kind: steady, rate: 1000, duration: 2s, concurrency: 8, mix: {cart_add: 50, cart_get: 50}}
slo:
  latency: {cart_get: {p99: 50ms}}
`)
	sum, dir, cl := runRedis(t, sc, rundir.Shard{})
	p := sum.Phases[0]
	add, get := p.Result.Ops["cart_add"], p.Result.Ops["cart_get"]
	if add.Count < 500 || get.Count < 500 {
		t.Fatalf("cart_add %d, cart_get %d ops; want about 1000 each", add.Count, get.Count)
	}
	if len(add.Errors) > 0 || len(get.Errors) > 0 {
		t.Fatalf("errors: cart_add %v cart_get %v", add.Errors, get.Errors)
	}
	if get.Misses == 0 || get.Misses == get.Count {
		t.Errorf("cart_get: %d misses of %d; an empty cart is a miss and a filled one is not", get.Misses, get.Count)
	}
	// The server holds what the adds sent: fields sku1..sku50 with
	// counts summing to the adds (ops still in flight at the end aside).
	ctx := context.Background()
	keys, err := cl.Keys(ctx, "cart:*").Result()
	if err != nil || len(keys) == 0 {
		t.Fatalf("carts: %v %v", keys, err)
	}
	var total int64
	for _, k := range keys {
		m, err := cl.HGetAll(ctx, k).Result()
		if err != nil {
			t.Fatal(err)
		}
		for f, v := range m {
			if !strings.HasPrefix(f, "sku") {
				t.Fatalf("%s has field %q", k, f)
			}
			var n int64
			for _, c := range v {
				n = n*10 + int64(c-'0')
			}
			total += n
		}
	}
	if total < add.Count || total > add.Count+int64(sum.Phases[0].Result.Dropped)+64 {
		t.Errorf("carts hold %d items, cart_add completed %d", total, add.Count)
	}
	judged := false
	for _, c := range sum.Phases[0].SLO.Checks {
		judged = judged || (c.Op == "cart_get" && c.Percentile == 99)
	}
	if !judged {
		t.Errorf("no p99 check of cart_get in the phase's verdict: %+v", sum.Phases[0].SLO)
	}
	for _, f := range []string{"latency.hlog", "counts.csv"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, op := range []string{"cart_add", "cart_get"} {
			if !strings.Contains(string(b), op) {
				t.Errorf("%s does not name %s", f, op)
			}
		}
	}
}
