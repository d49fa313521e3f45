package redis

import (
	"errors"
	"strings"
	"testing"

	goredis "github.com/redis/go-redis/v9"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

func TestYCSBOps(t *testing.T) {
	s := startRedis(t)
	tg := openURL(t, s)
	rc := rawClient(t, s)
	ctx := ctxT(t)
	for n := int64(0); n < 50; n++ {
		if err := tg.Do(ctx, insertReq(n)); err != nil {
			t.Fatalf("insert %d: %v", n, err)
		}
	}
	if got := rc.HGetAll(ctx, string(key(7))).Val(); len(got) != 3 || got["field1"] != "v7-1" {
		t.Fatalf("insert wrote %v", got)
	}
	if sc := rc.ZScore(ctx, IndexKey, string(key(7))).Val(); sc != 7 {
		t.Fatalf("index score %v, want 7", sc)
	}
	if err := tg.Do(ctx, &targets.Request{Op: scenarios.OpRead, KeyNum: 3, Key: key(3)}); err != nil {
		t.Fatalf("read: %v", err)
	}
	err := tg.Do(ctx, &targets.Request{Op: scenarios.OpRead, KeyNum: 999, Key: key(999)})
	if !errors.Is(err, targets.ErrNotFound) || targets.Classify(tg, err) != targets.ClassNotFound {
		t.Fatalf("read of missing record: %v", err)
	}
	up := &targets.Request{Op: scenarios.OpUpdate, KeyNum: 3, Key: key(3), Fields: []targets.Field{{Name: "field2", Value: []byte("new")}}}
	if err := tg.Do(ctx, up); err != nil {
		t.Fatal(err)
	}
	if got := rc.HGetAll(ctx, string(key(3))).Val(); got["field2"] != "new" || got["field0"] != "v3-0" {
		t.Fatalf("update: %v", got)
	}
	rmw := &targets.Request{Op: scenarios.OpRMW, KeyNum: 4, Key: key(4), Fields: []targets.Field{{Name: "field0", Value: []byte("rmw")}}}
	if err := tg.Do(ctx, rmw); err != nil {
		t.Fatal(err)
	}
	if got := rc.HGet(ctx, string(key(4)), "field0").Val(); got != "rmw" {
		t.Fatalf("rmw wrote %q", got)
	}
	// rmw of a missing record reads nothing and writes nothing.
	err = tg.Do(ctx, &targets.Request{Op: scenarios.OpRMW, KeyNum: 998, Key: key(998), Fields: rmw.Fields})
	if !errors.Is(err, targets.ErrNotFound) || rc.Exists(ctx, string(key(998))).Val() != 0 {
		t.Fatalf("rmw of missing record: %v", err)
	}
	if err := tg.Do(ctx, &targets.Request{Op: scenarios.OpScan, KeyNum: 45, Key: key(45), ScanLen: 10}); err != nil {
		t.Fatalf("scan: %v", err)
	}
	if err := tg.Do(ctx, &targets.Request{Op: scenarios.OpDelete, KeyNum: 5, Key: key(5)}); err != nil {
		t.Fatal(err)
	}
	if rc.Exists(ctx, string(key(5))).Val() != 0 || rc.ZScore(ctx, IndexKey, string(key(5))).Err() != goredis.Nil {
		t.Fatal("delete left the record or its index entry")
	}
}

// slowlogged returns the last command the server ran, as its args.
func lastCommands(t *testing.T, rc *goredis.Client, n int64) [][]string {
	t.Helper()
	ctx := ctxT(t)
	logs, err := rc.SlowLogGet(ctx, n).Result()
	if err != nil {
		t.Fatal(err)
	}
	out := make([][]string, len(logs))
	for i, l := range logs {
		out[len(logs)-1-i] = l.Args
	}
	return out
}

// TestScanSendsRangeThenReads checks scan's commands on the wire: the
// index range from the start record with the scan length, then HGETALL
// of each record found.
func TestScanSendsRangeThenReads(t *testing.T) {
	s := startRedis(t)
	tg := openURL(t, s)
	rc := rawClient(t, s)
	ctx := ctxT(t)
	for n := int64(0); n < 20; n++ {
		if err := tg.Do(ctx, insertReq(n)); err != nil {
			t.Fatal(err)
		}
	}
	rc.ConfigSet(ctx, "slowlog-log-slower-than", "0")
	rc.SlowLogReset(ctx)
	if err := tg.Do(ctx, &targets.Request{Op: scenarios.OpScan, KeyNum: 10, Key: key(10), ScanLen: 4}); err != nil {
		t.Fatal(err)
	}
	cmds := lastCommands(t, rc, 20)
	var got []string
	for _, c := range cmds {
		// HELLO is go-redis setting up a connection it had not opened
		// yet (the inserts ran on soakd's own connections).
		if strings.EqualFold(c[0], "slowlog") || strings.EqualFold(c[0], "hello") {
			continue
		}
		got = append(got, strings.Join(c, " "))
	}
	want := []string{"ZRANGEBYSCORE " + IndexKey + " 10 +inf LIMIT 0 4"}
	for n := int64(10); n < 14; n++ {
		want = append(want, "HGETALL "+string(key(n)))
	}
	if !strings.EqualFold(strings.Join(got, "\n"), strings.Join(want, "\n")) {
		t.Fatalf("scan sent\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestBatchMixedOps(t *testing.T) {
	s := startRedis(t)
	tg := openURL(t, s)
	rc := rawClient(t, s)
	ctx := ctxT(t)
	var reqs []*targets.Request
	for n := int64(0); n < 30; n++ {
		reqs = append(reqs, insertReq(n))
	}
	errs := make([]error, len(reqs))
	tg.DoBatch(ctx, reqs, errs)
	for i, err := range errs {
		if err != nil {
			t.Fatalf("insert %d: %v", i, err)
		}
	}
	if n := rc.ZCard(ctx, IndexKey).Val(); n != 30 {
		t.Fatalf("index holds %d, want 30", n)
	}
	reqs = []*targets.Request{
		{Op: scenarios.OpRead, KeyNum: 1, Key: key(1)},
		{Op: scenarios.OpRead, KeyNum: 500, Key: key(500)},
		{Op: scenarios.OpScan, KeyNum: 25, Key: key(25), ScanLen: 10},
		{Op: scenarios.OpRMW, KeyNum: 2, Key: key(2), Fields: []targets.Field{{Name: "field1", Value: []byte("B")}}},
		{Op: scenarios.OpUpdate, KeyNum: 3, Key: key(3), Fields: []targets.Field{{Name: "field1", Value: []byte("C")}}},
		{Op: scenarios.OpDelete, KeyNum: 4, Key: key(4)},
		{Op: scenarios.OpGet, KeyNum: 4, Key: []byte("key:4")},
	}
	errs = make([]error, len(reqs))
	tg.DoBatch(ctx, reqs, errs)
	for i, err := range errs {
		if i == 1 {
			if !errors.Is(err, targets.ErrNotFound) {
				t.Fatalf("read of missing in batch: %v", err)
			}
			continue
		}
		if i == 6 {
			// GET of an absent key is a cache miss, not an error class.
			if !errors.Is(err, targets.ErrMiss) || targets.Classify(tg, err) != targets.ClassMiss {
				t.Fatalf("get of absent key in batch: %v", err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("batch op %d (%s): %v", i, reqs[i].Op, err)
		}
	}
	if rc.HGet(ctx, string(key(2)), "field1").Val() != "B" || rc.HGet(ctx, string(key(3)), "field1").Val() != "C" || rc.Exists(ctx, string(key(4))).Val() != 0 {
		t.Fatal("batch writes not applied")
	}
}

func TestBenchmarkSuiteCommands(t *testing.T) {
	s := startRedis(t)
	tg := openURL(t, s)
	rc := rawClient(t, s)
	ctx := ctxT(t)
	sc := &scenarios.Scenario{Record: scenarios.Record{Fields: 1, FieldBytes: 3}, Phases: []scenarios.Phase{{Name: "l", Mix: map[string]float64{"lrange_500": 100}}}}
	if err := tg.Prepare(ctx, sc); err != nil {
		t.Fatal(err)
	}
	if n := rc.LLen(ctx, "mylist").Val(); n != LRangeFill {
		t.Fatalf("Prepare left mylist with %d elements, want %d", n, LRangeFill)
	}
	rc.ConfigSet(ctx, "slowlog-log-slower-than", "0")
	val := []targets.Field{{Name: "field0", Value: []byte("xyz")}}
	want := map[scenarios.Op]string{
		scenarios.OpPing:      "ping",
		scenarios.OpSet:       "set key:42 xyz",
		scenarios.OpGet:       "get key:42",
		scenarios.OpIncr:      "incr counter:42",
		scenarios.OpLPush:     "lpush mylist xyz",
		scenarios.OpRPush:     "rpush mylist xyz",
		scenarios.OpLPop:      "lpop mylist",
		scenarios.OpRPop:      "rpop mylist",
		scenarios.OpSAdd:      "sadd myset element:42",
		scenarios.OpHSet:      "hset myhash element:42 xyz",
		scenarios.OpSPop:      "spop myset",
		scenarios.OpLRange100: "lrange mylist 0 99",
		scenarios.OpLRange300: "lrange mylist 0 299",
		scenarios.OpLRange500: "lrange mylist 0 499",
		scenarios.OpLRange600: "lrange mylist 0 599",
		scenarios.OpDel:       "del key:42",
		// The slowlog does not say which protocol a command came in;
		// TestPingInlineSendsInline checks the bytes.
		scenarios.OpPingInline: "ping",
		scenarios.OpZAdd:       "zadd myzset 42 element:42",
		scenarios.OpZPopMin:    "zpopmin myzset",
	}
	for op := scenarios.OpPing; op < scenarios.OpCustomBase; op++ {
		if op == scenarios.OpMSet {
			continue
		}
		rc.SlowLogReset(ctx)
		if err := tg.Do(ctx, &targets.Request{Op: op, KeyNum: 42, Key: []byte("key:42"), Fields: val}); err != nil {
			t.Fatalf("%s: %v", op, err)
		}
		cmds := lastCommands(t, rc, 10)
		got := strings.ToLower(strings.Join(cmds[len(cmds)-1], " "))
		if got != want[op] {
			t.Errorf("%s sent %q, want %q", op, got, want[op])
		}
	}
	if err := tg.Do(ctx, &targets.Request{Op: scenarios.OpMSet, KeyNum: 42, Key: []byte("key:42"), Fields: val}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 10; i++ {
		if v := rc.Get(ctx, "key:42:"+string(rune('0'+i))).Val(); v != "xyz" {
			t.Fatalf("mset key %d = %q", i, v)
		}
	}
	if n := len(rc.LRange(ctx, "mylist", 0, 499).Val()); n != 500 {
		t.Fatalf("lrange_500 range returns %d", n)
	}
}
