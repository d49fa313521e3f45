package embedded

import (
	"context"
	"errors"
	"strconv"
	"testing"

	goredis "github.com/redis/go-redis/v9"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
	"github.com/soakd/soakd/targets/redis"
)

func TestEmbeddedRunsRedisAdapterOps(t *testing.T) {
	ctx := context.Background()
	tg, err := targets.Open(ctx, scenarios.Target{Kind: "embedded"}, targets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	key := func(n int64) []byte { return scenarios.AppendKey(nil, "user", n, false) }
	for n := int64(0); n < 300; n++ {
		r := &targets.Request{Op: scenarios.OpInsert, KeyNum: n, Key: key(n), Fields: []targets.Field{{Name: "field0", Value: []byte("v" + strconv.FormatInt(n, 10))}}}
		if err := tg.Do(ctx, r); err != nil {
			t.Fatalf("insert %d: %v", n, err)
		}
	}
	ops := []*targets.Request{
		{Op: scenarios.OpRead, KeyNum: 5, Key: key(5)},
		{Op: scenarios.OpUpdate, KeyNum: 5, Key: key(5), Fields: []targets.Field{{Name: "field0", Value: []byte("u")}}},
		{Op: scenarios.OpRMW, KeyNum: 6, Key: key(6), Fields: []targets.Field{{Name: "field0", Value: []byte("m")}}},
		{Op: scenarios.OpScan, KeyNum: 250, Key: key(250), ScanLen: 100},
		{Op: scenarios.OpDelete, KeyNum: 7, Key: key(7)},
	}
	for _, r := range ops {
		if err := tg.Do(ctx, r); err != nil {
			t.Fatalf("%s: %v", r.Op, err)
		}
	}
	if err := tg.Do(ctx, &targets.Request{Op: scenarios.OpRead, KeyNum: 7, Key: key(7)}); !errors.Is(err, targets.ErrNotFound) {
		t.Fatalf("read after delete: %v", err)
	}
	srv := tg.(*Target).Server()
	c := goredis.NewClient(&goredis.Options{Addr: srv.Addr(), Protocol: 2, DisableIdentity: true})
	defer c.Close()
	got, err := c.ZRangeByScore(ctx, redis.IndexKey, &goredis.ZRangeBy{Min: "250", Max: "+inf", Count: 100}).Result()
	if err != nil || len(got) != 50 || got[0] != string(key(250)) || got[49] != string(key(299)) {
		t.Fatalf("index range: %d %v", len(got), err)
	}
	if n := c.ZCard(ctx, redis.IndexKey).Val(); n != 299 {
		t.Fatalf("index holds %d after one delete, want 299", n)
	}
	got, _ = c.ZRangeByScore(ctx, redis.IndexKey, &goredis.ZRangeBy{Min: "(5", Max: "8"}).Result()
	if len(got) != 2 || got[0] != string(key(6)) || got[1] != string(key(8)) {
		t.Fatalf("exclusive range: %v", got)
	}
	if err := tg.(targets.Preparer).Prepare(ctx, &scenarios.Scenario{Phases: []scenarios.Phase{{Mix: map[string]float64{"lrange_600": 100}}}}); err != nil {
		t.Fatal(err)
	}
	for op := scenarios.OpPing; op < scenarios.OpCustomBase; op++ {
		if err := tg.Do(ctx, &targets.Request{Op: op, KeyNum: 1, Key: []byte("key:1"), Fields: []targets.Field{{Name: "f", Value: []byte("xyz")}}}); err != nil {
			t.Fatalf("%s: %v", op, err)
		}
	}
}

func TestZsetOrderUnderChurn(t *testing.T) {
	z := newZset()
	for i := 0; i < 5000; i++ {
		z.add("m"+strconv.Itoa(i), float64((i*7919)%5000))
	}
	for i := 0; i < 5000; i += 3 {
		z.remove("m" + strconv.Itoa(i))
	}
	z.add("m1", 1e9)
	prev := -1.0
	n := 0
	z.rangeByScore(-1, 2e9, false, false, 0, -1, func(e zentry) {
		if e.score < prev {
			t.Fatalf("out of order at %v", e)
		}
		prev = e.score
		n++
	})
	if n != z.n || n != len(z.scores) {
		t.Fatalf("range saw %d, n %d, map %d", n, z.n, len(z.scores))
	}
}
