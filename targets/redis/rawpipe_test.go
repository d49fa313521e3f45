package redis

import (
	"bufio"
	"io"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// TestRawBatchJudgesLikeGoRedis runs one batch of the raw pipeline's ops
// (hits, misses, writes, wrong-type errors) against a real redis-server
// and checks each op's outcome class is the one the go-redis path gives
// the same request (Do sends a single op through go-redis), and that
// the writes landed.
func TestRawBatchJudgesLikeGoRedis(t *testing.T) {
	s := startRedis(t)
	tg := openURL(t, s)
	rc := rawClient(t, s)
	ctx := ctxT(t)
	if err := rc.Set(ctx, "s1", "v1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	rc.HSet(ctx, "h1", "field0", "a", "field1", "b")
	rc.RPush(ctx, "l1", "x")
	field := func(v string) []targets.Field { return []targets.Field{{Name: "field1", Value: []byte(v)}} }
	reqs := []*targets.Request{
		{Op: scenarios.OpGet, Key: []byte("s1")},                      // hit
		{Op: scenarios.OpGet, Key: []byte("nokey")},                   // miss
		{Op: scenarios.OpGet, Key: []byte("l1")},                      // WRONGTYPE
		{Op: scenarios.OpSet, Key: []byte("s2"), Fields: field("v2")}, // write
		{Op: scenarios.OpRead, Key: []byte("h1")},                     // hit (array of 4)
		{Op: scenarios.OpRead, Key: []byte("nohash")},                 // not found
		{Op: scenarios.OpRead, Key: []byte("s1")},                     // WRONGTYPE
		{Op: scenarios.OpUpdate, Key: []byte("h2"), Fields: field("u")},
		{Op: scenarios.OpUpdate, Key: []byte("h3")}, // no fields: field0 = ""
		{Op: scenarios.OpGet, Key: []byte("s2")},    // sees the set before it
	}
	errs := make([]error, len(reqs))
	if !tg.rawBatch(ctx, reqs, errs) {
		t.Fatal("a standalone batch of get/set/read/update did not take the raw pipeline")
	}
	want := []string{targets.ClassOK, targets.ClassMiss, "", targets.ClassOK, targets.ClassOK, targets.ClassNotFound, "", targets.ClassOK, targets.ClassOK, targets.ClassOK}
	for i, r := range reqs {
		got := targets.Classify(tg, errs[i])
		if r.End.IsZero() {
			t.Errorf("op %d (%s %s): no completion time", i, r.Op, r.Key)
		}
		// The same request alone, through go-redis.
		one := *r
		ref := targets.Classify(tg, tg.Do(ctx, &one))
		if got != ref {
			t.Errorf("op %d (%s %s): raw pipeline class %q (%v), go-redis %q", i, r.Op, r.Key, got, errs[i], ref)
		}
		if want[i] != "" && got != want[i] {
			t.Errorf("op %d (%s %s): class %q, want %q", i, r.Op, r.Key, got, want[i])
		}
		if want[i] == "" && (errs[i] == nil || !strings.HasPrefix(errs[i].Error(), "WRONGTYPE")) {
			t.Errorf("op %d (%s %s): %v, want the server's WRONGTYPE reply", i, r.Op, r.Key, errs[i])
		}
	}
	if v := rc.Get(ctx, "s2").Val(); v != "v2" {
		t.Errorf("set s2 = %q, want v2", v)
	}
	if v := rc.HGet(ctx, "h2", "field1").Val(); v != "u" {
		t.Errorf("hset h2 field1 = %q, want u", v)
	}
	if n := rc.HLen(ctx, "h3").Val(); n != 1 {
		t.Errorf("hset h3 with no fields set %d fields, want 1 (field0)", n)
	}
	// Ops the raw pipeline does not take leave the batch to go-redis.
	mixed := []*targets.Request{{Op: scenarios.OpGet, Key: []byte("s1")}, {Op: scenarios.OpDel, Key: []byte("s1")}}
	if tg.rawBatch(ctx, mixed, make([]error, 2)) {
		t.Error("a batch with del took the raw pipeline")
	}
}

// TestRawBatchAllocs: a pipelined batch of 64 GETs allocates (almost)
// nothing per op; through go-redis's Pipeline it was ~5 objects per op.
func TestRawBatchAllocs(t *testing.T) {
	s := startRedis(t)
	tg := openURL(t, s)
	ctx := ctxT(t)
	rawClient(t, s).Set(ctx, "k", "v", 0)
	reqs := make([]*targets.Request, 64)
	for i := range reqs {
		reqs[i] = &targets.Request{Op: scenarios.OpGet, Key: []byte("k")}
	}
	errs := make([]error, len(reqs))
	allocs := testing.AllocsPerRun(50, func() {
		tg.DoBatch(ctx, reqs, errs)
		for i, err := range errs {
			if err != nil {
				t.Fatalf("get %d: %v", i, err)
			}
		}
	})
	if allocs > 4 {
		t.Fatalf("a batch of 64 GETs allocated %.0f objects, want at most 4 (none per op)", allocs)
	}
}

// TestRawBatchBrokenConnection: a server that closes the connection
// mid-reply fails every op without a reply with a connection error, and
// the next batch dials a fresh connection.
func TestRawBatchBrokenConnection(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var gets atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func(c net.Conn) {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					args, err := readCommand(r)
					if err != nil {
						return
					}
					switch strings.ToUpper(args[0]) {
					case "PING":
						c.Write([]byte("+PONG\r\n"))
					case "GET":
						c.Write([]byte("$1\r\nv\r\n"))
						if gets.Add(1) == 1 {
							return // the connection drops after the first reply
						}
					default:
						c.Write([]byte("-ERR unknown command\r\n"))
					}
				}
			}(c)
		}
	}()
	tg := openTarget(t, scenarios.Target{URL: "redis://" + ln.Addr().String()}, targets.Options{})
	ctx := ctxT(t)
	reqs := []*targets.Request{{Op: scenarios.OpGet, Key: []byte("a")}, {Op: scenarios.OpGet, Key: []byte("b")}, {Op: scenarios.OpGet, Key: []byte("c")}}
	errs := make([]error, len(reqs))
	tg.DoBatch(ctx, reqs, errs)
	if errs[0] != nil {
		t.Fatalf("op 0 got its reply, err %v", errs[0])
	}
	for i := 1; i < len(errs); i++ {
		if c := targets.Classify(tg, errs[i]); c != targets.ClassConnection {
			t.Errorf("op %d after the drop: class %q (%v), want %q", i, c, errs[i], targets.ClassConnection)
		}
	}
	tg.DoBatch(ctx, reqs, errs)
	for i, err := range errs {
		if err != nil {
			t.Errorf("op %d on a fresh connection: %v", i, err)
		}
	}
}

// readCommand reads one RESP array command.
func readCommand(r *bufio.Reader) ([]string, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	n, err := strconv.Atoi(strings.TrimSpace(line[1:]))
	if err != nil || line[0] != '*' || n < 1 {
		return nil, io.ErrUnexpectedEOF
	}
	args := make([]string, n)
	for i := range args {
		l, err := r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		size, _ := strconv.Atoi(strings.TrimSpace(l[1:]))
		buf := make([]byte, size+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, err
		}
		args[i] = string(buf[:size])
	}
	return args, nil
}

// TestRawBatchReconnectsAfterRestart: kill -9 the server; raw batches
// fail as connection errors (at once: a failed dial is not retried for
// a second), and succeed again after it restarts on the same port.
func TestRawBatchReconnectsAfterRestart(t *testing.T) {
	dir := t.TempDir()
	s := startRedisOn(t, 0, dir)
	tg := openTarget(t, scenarios.Target{URL: s.URL(), Client: scenarios.ClientOptions{PoolSize: 4}}, targets.Options{})
	ctx := ctxT(t)
	reqs := []*targets.Request{{Op: scenarios.OpSet, Key: []byte("k"), Fields: []targets.Field{{Name: "f", Value: []byte("v")}}}, {Op: scenarios.OpGet, Key: []byte("k")}}
	errs := make([]error, len(reqs))
	tg.DoBatch(ctx, reqs, errs)
	if errs[0] != nil || errs[1] != nil {
		t.Fatalf("before the kill: %v", errs)
	}
	s.Kill()
	for i := 0; i < 20; i++ {
		tg.DoBatch(ctx, reqs, errs)
		for j, err := range errs {
			if c := targets.Classify(tg, err); c != targets.ClassConnection {
				t.Fatalf("batch %d op %d against a killed server: class %q (%v)", i, j, c, err)
			}
		}
	}
	startRedisOn(t, s.Port, dir)
	up := time.Now()
	for {
		tg.DoBatch(ctx, reqs, errs)
		if errs[0] == nil && errs[1] == nil {
			break
		}
		if time.Since(up) > 5*time.Second {
			t.Fatalf("no success %s after restart: %v", time.Since(up), errs)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
