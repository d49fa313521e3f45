package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
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

// Every redis template form on both client paths: a command, a Lua
// script (EVALSHA), MULTI/EXEC; the miss rules; and error replies (of a
// command, of a script, inside EXEC) counted as errors, never success.
func TestCustomRedisForms(t *testing.T) {
	t.Parallel()
	for _, proto := range []string{"fast", "goredis"} {
		t.Run(proto, func(t *testing.T) {
			sc := scenario(t, `
name: forms
target: {kind: redis, managed: {persistence: none}, client: {protocol: `+proto+`}}
keyspace: {records: 100}
bindings:
  user: {key: uniform, records: 5, prefix: "u"}
ops:
  cmd_set: {redis: [SET, "s:{key}", "{bytes:16}"]}
  lua_incr:
    redis:
      script: "return redis.call('INCRBY', KEYS[1], ARGV[1])"
      keys: ["lua:{user}"]
      args: ["{int:2:2}"]
  tx: {redis: {multi: [[SET, "tx:{seq}", "{uuid}"], [EXPIRE, "tx:{seq}", "600"]]}}
  miss_nil: {redis: [GET, "absent:{key}"], miss_when: nil}
  miss_zero: {redis: [EXISTS, "absent:{key}"], miss_when: zero}
  miss_empty: {redis: [SMEMBERS, "absent:{key}"], miss_when: empty}
  no_rule: {redis: [GET, "absent:{key}"]}
  bad_cmd: {redis: [HINCRBY, "h:{key}", "f", "notanumber"]}
  bad_lua: {redis: {script: "return redis.error_reply('boom')"}}
  bad_tx: {redis: {multi: [[SET, "str:{seq}", "abc"], [INCR, "str:{seq}"]]}}
phases:
  - {name: all, kind: steady, requests: 2000, concurrency: 4,
     mix: {cmd_set: 10, lua_incr: 10, tx: 10, miss_nil: 10, miss_zero: 10, miss_empty: 10, no_rule: 10, bad_cmd: 10, bad_lua: 10, bad_tx: 10}}
`)
			sum, _, cl := runRedis(t, sc, rundir.Shard{})
			ops := sum.Phases[0].Result.Ops
			for _, name := range []string{"cmd_set", "lua_incr", "tx", "miss_nil", "miss_zero", "miss_empty", "no_rule", "bad_cmd", "bad_lua", "bad_tx"} {
				o := ops[name]
				var errs int64
				for _, n := range o.Errors {
					errs += n
				}
				want := "ok"
				switch {
				case strings.HasPrefix(name, "miss_"):
					want = "miss"
				case strings.HasPrefix(name, "bad_"):
					want = "error"
				}
				got := map[bool]string{true: "ok"}[errs == 0 && o.Misses == 0]
				if errs == o.Count && o.Count > 0 {
					got = "error"
				}
				if o.Misses == o.Count && errs == 0 && o.Count > 0 {
					got = "miss"
				}
				if o.Count < 100 || got != want {
					t.Errorf("%s: %d ops, %d misses, errors %v; want every one %s", name, o.Count, o.Misses, o.Errors, want)
				}
			}
			ctx := context.Background()
			// The script ran: the five counters add up to 2 per lua_incr.
			var sum2 int64
			for i := 0; i < 5; i++ {
				n, _ := cl.Get(ctx, "lua:u"+string(rune('0'+i))).Int64()
				sum2 += n
			}
			if sum2 != 2*ops["lua_incr"].Count {
				t.Errorf("lua counters hold %d, want 2 × %d", sum2, ops["lua_incr"].Count)
			}
			// The transaction ran whole: every tx key has its TTL.
			keys, _ := cl.Keys(ctx, "tx:*").Result()
			if int64(len(keys)) != ops["tx"].Count {
				t.Errorf("%d tx keys, %d tx ops", len(keys), ops["tx"].Count)
			}
			for _, k := range keys[:min(len(keys), 20)] {
				if ttl, _ := cl.TTL(ctx, k).Result(); ttl <= 0 {
					t.Errorf("%s has no TTL (%v)", k, ttl)
				}
				if v, _ := cl.Get(ctx, k).Result(); len(v) != 36 || v[14] != '4' {
					t.Errorf("%s = %q, not a v4 UUID", k, v)
				}
			}
			set, _ := cl.Keys(ctx, "s:*").Result()
			for _, k := range set[:min(len(set), 20)] {
				if v, _ := cl.Get(ctx, k).Result(); len(v) != 16 {
					t.Errorf("%s = %q, want 16 bytes", k, v)
				}
			}
		})
	}
}

// batchSizes wraps the redis target and keeps the largest batch of
// custom ops the engine sent in one DoBatch.
type batchSizes struct {
	*redistarget.Target
	mu       sync.Mutex
	maxBatch int
}

func (b *batchSizes) DoBatch(ctx context.Context, reqs []*targets.Request, errs []error) {
	n := 0
	for _, r := range reqs {
		if r.Op.IsCustom() {
			n++
		}
	}
	b.mu.Lock()
	b.maxBatch = max(b.maxBatch, n)
	b.mu.Unlock()
	b.Target.DoBatch(ctx, reqs, errs)
}

// Custom ops are pipelined like the built-ins: due ops go to the server
// in one round trip, several custom ops (and built-ins) per batch, and
// every one of them succeeds.
func TestCustomRedisPipelined(t *testing.T) {
	needRedis(t)
	sc := scenario(t, `
name: pipelined
target: {kind: redis, managed: {persistence: none}}
keyspace: {records: 1000}
ops:
  bump: {redis: [INCR, "c:{key}"]}
  peek: {redis: [GET, "c:{key}"]}
phases:
  - {name: fast, kind: steady, rate: 20000, duration: 1s, concurrency: 1, mix: {bump: 40, peek: 40, get: 20}}
`)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tg, err := targets.Open(ctx, sc.Target, targets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	bs := &batchSizes{Target: tg.(*redistarget.Target)}
	sum, err := Run(ctx, Options{Scenario: sc, Target: bs, TargetKind: sc.Target.Kind, OutDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	r := sum.Phases[0].Result
	if r.Errors > 0 {
		t.Fatalf("%d errors: %+v", r.Errors, r.Ops)
	}
	if bs.maxBatch < 2 {
		t.Fatalf("the largest batch held %d custom ops; due custom ops are not pipelined", bs.maxBatch)
	}
	var n int64
	keys, _ := bs.Client().Keys(ctx, "c:*").Result()
	for _, k := range keys {
		v, _ := bs.Client().Get(ctx, k).Int64()
		n += v
	}
	if n != r.Ops["bump"].Count {
		t.Errorf("counters hold %d, bump completed %d", n, r.Ops["bump"].Count)
	}
}

// Values are a function of (seed, shard, worker): the same seed gives
// the same values on two runs, another shard other values.
func TestCustomRedisShardDeterminism(t *testing.T) {
	t.Parallel()
	src := `
name: det
seed: 42
target: {kind: redis, managed: {persistence: none}}
keyspace: {records: 1000, distribution: zipfian}
bindings:
  who: {key: hotspot, records: 50}
  color: {gen: "choice:red=3,green,blue"}
ops:
  log: {redis: [RPUSH, "log", "{key}|{who}|{color}|{int:0:1000000}|{float:-5:5}|{bytes:6}|{text:2}|{uuid}|{seq}"]}
phases:
  - {name: p, kind: steady, requests: 60, concurrency: 1, mix: {log: 100}}
`
	values := func(sh rundir.Shard) []string {
		_, _, cl := runRedis(t, scenario(t, src), sh)
		v, err := cl.LRange(context.Background(), "log", 0, -1).Result()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	a, b := values(rundir.Shard{}), values(rundir.Shard{})
	if len(a) != 60 || strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Fatalf("two runs with one seed differ:\n%v\n%v", a[:min(3, len(a))], b[:min(3, len(b))])
	}
	c := values(rundir.Shard{Index: 1, Count: 2})
	if len(c) != 30 {
		t.Fatalf("shard 1 of 2 sent %d values, want 30", len(c))
	}
	same := 0
	for i := range c {
		ca, aa := strings.Split(c[i], "|"), strings.Split(a[i], "|")
		if ca[3] == aa[3] && ca[7] == aa[7] {
			same++
		}
	}
	if same > 0 {
		t.Errorf("shard 1 drew %d of shard 0's values", same)
	}
}

// The shipped custom scenarios run against a redis-server, shortened:
// every op of every phase runs and none fails.
func TestCustomShippedRedisScenarios(t *testing.T) {
	for _, f := range []string{"custom-leaderboard-redis.yaml", "custom-session-redis.yaml"} {
		t.Run(f, func(t *testing.T) {
			sc, err := scenarios.LoadFile(filepath.Join("..", "scenarios", f))
			if err != nil {
				t.Fatal(err)
			}
			sc.Target = scenarios.Target{Kind: scenarios.KindRedis, Managed: &scenarios.Managed{Persistence: "none"}}
			for i := range sc.Phases {
				p := &sc.Phases[i]
				if p.Requests > 0 {
					p.Requests = 2000
				} else {
					p.Duration, p.Warmup, p.Rate = scenarios.Duration(time.Second), 0, 2000
				}
			}
			sum, _, _ := runRedis(t, sc, rundir.Shard{})
			for i, p := range sum.Phases {
				if p.Result.Errors > 0 {
					t.Errorf("phase %s: %d errors: %+v", p.Name, p.Result.Errors, p.Result.Ops)
				}
				for name := range sc.Phases[i].Mix {
					if p.Result.Ops[name].Count == 0 {
						t.Errorf("phase %s: op %s never ran", p.Name, name)
					}
				}
			}
		})
	}
}

// The cart scenario runs on the embedded store too (its default
// target): both ops, no error.
func TestCustomEmbeddedCart(t *testing.T) {
	sc := scenario(t, strings.Replace(`name: cart
keyspace: {records: 10000, distribution: zipfian}
bindings:
  user: {key: zipfian}
ops:
  cart_add: {redis: [HINCRBY, "cart:{user}", "sku{int:1:50}", "1"]}
  cart_get: {redis: [HGETALL, "cart:{user}"], miss_when: empty}
phases:
  - {name: steady, kind: steady, rate: 1000, duration: 10s, concurrency: 8, mix: {cart_add: 50, cart_get: 50}}
slo:
  latency: {cart_get: {p99: 50ms}}
`, "duration: 10s", "duration: 1s", 1))
	sum, _ := runEmbedded(t, sc)
	r := sum.Phases[0].Result
	if r.Errors != 0 || r.Ops["cart_add"].Count == 0 || r.Ops["cart_get"].Count == 0 {
		t.Fatalf("errors %d, ops %+v", r.Errors, r.Ops)
	}
}
