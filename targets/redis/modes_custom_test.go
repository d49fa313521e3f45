package redis

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/soakd/soakd/engine"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// clusterScenario parses src and points it at the cluster of nodes.
func clusterScenario(t *testing.T, nodes []*Server, src string) *scenarios.Scenario {
	t.Helper()
	sc, err := scenarios.Parse("cluster.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var addrs []string
	for _, n := range nodes {
		addrs = append(addrs, n.Addr())
	}
	sc.Target = scenarios.Target{Kind: "redis", URL: nodes[0].URL(), Client: scenarios.ClientOf(scenarios.ClientCommon{}, ClientConfig{Mode: "cluster", Addrs: addrs})}
	return sc
}

// Custom ops through engine.Run on a three-master cluster: a one-key
// command, multi-key commands, a Lua script and a MULTI whose keys share
// a hash tag run without an error, spread over the masters; ops whose
// keys can hash to different slots are refused before the run, naming
// the op and its line and saying how to tag the keys.
func TestClusterCustomOps(t *testing.T) {
	nodes := startCluster(t)
	sc := clusterScenario(t, nodes, `name: cluster-custom
keyspace: {records: 1000}
bindings:
  user: {key: uniform, records: 200}
ops:
  cart_add: {redis: [HINCRBY, "cart:{user}", "sku{int:1:5}", "1"]}
  pair_set: {redis: [MSET, "a:{{{key}}", "1", "b:{{{key}}", "2"]}
  pair_get: {redis: [MGET, "a:{{{key}}", "b:{{{key}}"], miss_when: empty}
  touch: {redis: {multi: [[SET, "s:{{{user}}", "v"], [EXPIRE, "s:{{{user}}", "600"], [INCR, "n:{{{user}}"]]}}
  swap:
    redis: {script: "redis.call('SET', KEYS[1], ARGV[1]); return redis.call('GET', KEYS[2])", keys: ["x:{{{user}}", "y:{{{user}}"], args: ["{int:1:9}"]}
phases:
  - {name: mixed, kind: steady, requests: 600, concurrency: 4, mix: {cart_add: 20, pair_set: 20, pair_get: 20, touch: 20, swap: 20}}
`)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tg := openTarget(t, sc.Target, targets.Options{})
	sum, err := engine.Run(ctx, engine.Options{Scenario: sc, Target: tg, TargetKind: sc.Target.Kind, OutDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	r := sum.Phases[0].Result
	if r.Errors != 0 {
		t.Fatalf("%d errors: %+v", r.Errors, r.Ops)
	}
	for _, name := range []string{"cart_add", "pair_set", "pair_get", "touch", "swap"} {
		if r.Ops[name].Count == 0 {
			t.Errorf("op %s never ran", name)
		}
	}
	// The keys spread over all three masters, and a pair is in one slot.
	for i, n := range nodes {
		c := goredis.NewClient(&goredis.Options{Addr: n.Addr(), Protocol: 2, DisableIdentity: true})
		k := c.DBSize(ctx).Val()
		c.Close()
		if k == 0 {
			t.Errorf("master %d holds no keys", i)
		}
	}
	cl := tg.Client()
	touched := r.Ops["touch"].Count
	var total int64
	for u := 0; u < 200; u++ {
		v, _ := cl.Get(ctx, "n:{"+strconv.Itoa(u)+"}").Int64()
		total += v
	}
	if total != touched {
		t.Errorf("the MULTIs' INCRs add to %d, want %d (one per touch op)", total, touched)
	}

	// A command whose keys move with its arguments and take no numkeys
	// (SORT ... STORE) is not judged at Prepare: the cluster answers
	// CROSSSLOT, and every one is an error of the class crossslot.
	mv := clusterScenario(t, nodes, `name: movable
keyspace: {records: 1000}
ops:
  so: {redis: [SORT, "src:{key}", STORE, "dst:{key}"]}
phases:
  - {name: s, kind: steady, requests: 20, concurrency: 2, mix: {so: 100}}
`)
	mtg := openTarget(t, mv.Target, targets.Options{})
	msum, err := engine.Run(ctx, engine.Options{Scenario: mv, Target: mtg, TargetKind: mv.Target.Kind, OutDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if o := msum.Phases[0].Result.Ops["so"]; o.Count != 20 || o.Errors[targets.ClassCrossSlot] != 20 {
		t.Errorf("cross-slot SORT STORE: %+v; want 20 ops, all crossslot errors", o)
	}

	// Keys that can land in two slots: refused at Prepare with the op's
	// line, for a command, a script and a multi.
	for _, c := range []struct{ op, line string }{
		{`bad: {redis: [MSET, "a:{key}", "1", "b:{key}", "2"]}`, "cluster.yaml:5"},
		{`bad: {redis: [ZUNIONSTORE, "dst:{key}", "2", "z1:{key}", "z2:{key}"]}`, "cluster.yaml:5"},
		{`bad: {redis: {script: "return 1", keys: ["x:{{{user}}", "y:{{{key}}"]}}`, "cluster.yaml:5"},
		{`bad: {redis: {multi: [[SET, "s:{{{user}}", "v"], [INCR, "n:{{{key}}"]]}}`, "cluster.yaml:5"},
	} {
		bad := clusterScenario(t, nodes, `name: cross
keyspace: {records: 1000}
bindings: {user: {key: uniform, records: 200}}
ops:
  `+c.op+`
phases:
  - {name: s, kind: steady, requests: 10, mix: {bad: 100}}
`)
		btg := openTarget(t, bad.Target, targets.Options{})
		_, err := engine.Run(ctx, engine.Options{Scenario: bad, Target: btg, TargetKind: bad.Target.Kind, OutDir: t.TempDir()})
		if err == nil || !strings.Contains(err.Error(), c.line) || !strings.Contains(err.Error(), "CROSSSLOT") || !strings.Contains(err.Error(), "op bad") {
			t.Errorf("%s: %v", c.op, err)
		} else if testing.Verbose() {
			t.Log(err)
		}
	}
}

// Custom ops through engine.Run on a master found through a sentinel
// (go-redis's failover client, off the fast path): a command, a script,
// a MULTI and a miss rule, every op on the master, none an error.
func TestSentinelCustomOps(t *testing.T) {
	master, addr := startSentinel(t)
	sc, err := scenarios.Parse("sentinel.yaml", []byte(`name: sentinel-custom
keyspace: {records: 100}
ops:
  put: {redis: [SET, "s:{key}", "{bytes:8}"]}
  look: {redis: [GET, "never:{key}"], miss_when: nil}
  bump: {redis: {script: "return redis.call('INCR', KEYS[1])", keys: ["c:{key}"]}}
  tx: {redis: {multi: [[INCR, "t:{key}"], [EXPIRE, "t:{key}", "600"]]}}
phases:
  - {name: s, kind: steady, requests: 200, concurrency: 2, mix: {put: 25, look: 25, bump: 25, tx: 25}}
`))
	if err != nil {
		t.Fatal(err)
	}
	sc.Target = scenarios.Target{Kind: "redis", URL: "redis://" + addr, Client: scenarios.ClientOf(scenarios.ClientCommon{}, ClientConfig{Mode: "sentinel", MasterName: "soakmaster", Addrs: []string{addr}})}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tg := openTarget(t, sc.Target, targets.Options{})
	sum, err := engine.Run(ctx, engine.Options{Scenario: sc, Target: tg, TargetKind: sc.Target.Kind, OutDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	r := sum.Phases[0].Result
	if r.Errors != 0 {
		t.Fatalf("%d errors: %+v", r.Errors, r.Ops)
	}
	if o := r.Ops["look"]; o.Count == 0 || o.Misses != o.Count {
		t.Errorf("look: %d misses of %d, want all", o.Misses, o.Count)
	}
	// What the ops wrote is on the master: the scripts' and the MULTIs'
	// INCRs add up to their op counts.
	raw := rawClient(t, master)
	sum2 := func(pattern string) int64 {
		keys, err := raw.Keys(ctx, pattern).Result()
		if err != nil {
			t.Fatal(err)
		}
		var n int64
		for _, k := range keys {
			v, _ := raw.Get(ctx, k).Int64()
			n += v
		}
		return n
	}
	if got := sum2("c:*"); got != r.Ops["bump"].Count {
		t.Errorf("script INCRs %d, bump ops %d", got, r.Ops["bump"].Count)
	}
	if got := sum2("t:*"); got != r.Ops["tx"].Count {
		t.Errorf("MULTI INCRs %d, tx ops %d", got, r.Ops["tx"].Count)
	}
	if n, _ := raw.Keys(ctx, "s:*").Result(); len(n) == 0 {
		t.Error("no SET key on the master")
	}
}
