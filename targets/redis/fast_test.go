package redis

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// protocols are the two paths every test here runs on.
var testProtocols = []Protocol{ProtocolFast, ProtocolGoRedis}

func openProto(t *testing.T, url string, p Protocol, c scenarios.ClientCommon) *Target {
	t.Helper()
	tg := openTarget(t, scenarios.Target{URL: url, Client: scenarios.ClientOf(c, ClientConfig{Protocol: p})}, targets.Options{})
	if tg.fast != (p == ProtocolFast) {
		t.Fatalf("protocol %s: fast path %v", p, tg.fast)
	}
	return tg
}

// fetch runs r over tg's own connections, encoded and parsed by the fast
// path's code, and returns the bulk payloads of its last reply.
func fetch(t *testing.T, tg *Target, r *targets.Request) [][]byte {
	t.Helper()
	ctx := ctxT(t)
	c, err := tg.own.get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c.out = appendOp(c.out[:0], r)
	if err := tg.own.send(ctx, c); err != nil {
		t.Fatal(err)
	}
	var srvErr error
	for k := 0; k < opCommands(r.Op) && err == nil && srvErr == nil; k++ {
		srvErr, err = c.next()
	}
	tg.own.put(c, err != nil)
	if err != nil || srvErr != nil {
		t.Fatalf("fetch %s: %v %v", r.Op, err, srvErr)
	}
	var out [][]byte
	start := 0
	for _, end := range c.ends {
		out = append(out, bytes.Clone(c.vals[start:end]))
		start = end
	}
	return out
}

// outcomeOf names an op's outcome for comparing the two paths.
func outcomeOf(tg targets.Target, err error) string {
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, targets.ErrMiss):
		return "miss"
	case errors.Is(err, targets.ErrNotFound):
		return "not_found"
	}
	return targets.Classify(tg, err) + ": " + err.Error()
}

// fastOpsSequence is every fast op, misses included, in an order whose
// result does not depend on chance (one member per set when it pops).
func fastOpsSequence(base int64) []*targets.Request {
	k := func(n int64) []byte { return key(base + n) }
	v := func(s string) []targets.Field { return []targets.Field{{Name: "field0", Value: []byte(s)}} }
	return []*targets.Request{
		{Op: scenarios.OpGet, KeyNum: base, Key: k(0)},                  // miss
		{Op: scenarios.OpRead, KeyNum: base, Key: k(0)},                 // not found
		{Op: scenarios.OpLPop, KeyNum: base},                            // miss
		{Op: scenarios.OpRPop, KeyNum: base},                            // miss
		{Op: scenarios.OpSPop, KeyNum: base},                            // miss
		{Op: scenarios.OpZPopMin, KeyNum: base},                         // miss
		{Op: scenarios.OpSet, KeyNum: base, Key: k(0), Fields: v("s0")}, // ok
		{Op: scenarios.OpGet, KeyNum: base, Key: k(0)},
		{Op: scenarios.OpInsert, KeyNum: base + 1, Key: k(1), Fields: record(base+1, 4)},
		{Op: scenarios.OpInsert, KeyNum: base + 2, Key: k(2), Fields: record(base+2, 4)},
		{Op: scenarios.OpInsert, KeyNum: base + 3, Key: k(3)}, // no fields: field0 = ""
		{Op: scenarios.OpRead, KeyNum: base + 1, Key: k(1)},
		{Op: scenarios.OpUpdate, KeyNum: base + 1, Key: k(1), Fields: []targets.Field{{Name: "field2", Value: []byte("upd\r\n$-1\r\n")}}},
		{Op: scenarios.OpDelete, KeyNum: base + 2, Key: k(2)},
		{Op: scenarios.OpRead, KeyNum: base + 2, Key: k(2)}, // not found
		{Op: scenarios.OpDel, KeyNum: base, Key: k(0)},
		{Op: scenarios.OpGet, KeyNum: base, Key: k(0)}, // miss
		{Op: scenarios.OpHSet, KeyNum: base + 4, Fields: v("h4")},
		{Op: scenarios.OpPing},
		{Op: scenarios.OpIncr, KeyNum: base + 5},
		{Op: scenarios.OpIncr, KeyNum: base + 5},
		{Op: scenarios.OpLPush, Fields: v("l1")},
		{Op: scenarios.OpRPush, Fields: v("r1")},
		{Op: scenarios.OpLPush, Fields: v("l2")},
		{Op: scenarios.OpLPop},
		{Op: scenarios.OpLRange100},
		{Op: scenarios.OpLRange600},
		{Op: scenarios.OpSAdd, KeyNum: base + 6},
		{Op: scenarios.OpSPop},
		{Op: scenarios.OpSAdd, KeyNum: base + 7},
		{Op: scenarios.OpZAdd, KeyNum: base + 8},
		{Op: scenarios.OpZAdd, KeyNum: base + 9},
		{Op: scenarios.OpZPopMin},
		{Op: scenarios.OpMSet, KeyNum: base + 10, Key: k(10), Fields: v("m10")},
	}
}

// dump is a server's whole contents, one line per key, by type.
func dump(t *testing.T, rc *goredis.Client) string {
	t.Helper()
	ctx := ctxT(t)
	keys := rc.Keys(ctx, "*").Val()
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		typ := rc.Type(ctx, k).Val()
		var v any
		switch typ {
		case "string":
			v = rc.Get(ctx, k).Val()
		case "hash":
			m := rc.HGetAll(ctx, k).Val()
			var kv []string
			for f, x := range m {
				kv = append(kv, f+"="+strconv.Quote(x))
			}
			sort.Strings(kv)
			v = kv
		case "list":
			v = rc.LRange(ctx, k, 0, -1).Val()
		case "set":
			m := rc.SMembers(ctx, k).Val()
			sort.Strings(m)
			v = m
		case "zset":
			v = rc.ZRangeWithScores(ctx, k, 0, -1).Val()
		}
		fmt.Fprintf(&b, "%s %s %v\n", k, typ, v)
	}
	return b.String()
}

// TestFastMatchesGoRedis: every fast op, run one by one and as one
// pipelined batch, has the same outcome on both paths (misses, not
// found, ok) and leaves the server holding exactly the same data; the
// fast path's reply parser reads back what go-redis wrote byte for byte,
// and go-redis reads back what the fast path wrote.
func TestFastMatchesGoRedis(t *testing.T) {
	sf, sg := startRedis(t), startRedis(t)
	tf := openProto(t, sf.URL(), ProtocolFast, scenarios.ClientCommon{})
	tg := openProto(t, sg.URL(), ProtocolGoRedis, scenarios.ClientCommon{})
	ctx := ctxT(t)
	for _, r := range fastOpsSequence(0) {
		if !tf.fastOp(r.Op) {
			t.Fatalf("%s is not on the fast path", r.Op)
		}
		ef, eg := tf.Do(ctx, r), tg.Do(ctx, r)
		if of, og := outcomeOf(tf, ef), outcomeOf(tg, eg); of != og {
			t.Errorf("Do %s %s: fast %s, go-redis %s", r.Op, r.Key, of, og)
		}
	}
	seq := fastOpsSequence(100)
	errsF, errsG := make([]error, len(seq)), make([]error, len(seq))
	tf.DoBatch(ctx, seq, errsF)
	for _, r := range seq {
		r.End = time.Time{}
	}
	tg.DoBatch(ctx, seq, errsG)
	for i, r := range seq {
		if of, og := outcomeOf(tf, errsF[i]), outcomeOf(tg, errsG[i]); of != og {
			t.Errorf("DoBatch %d %s %s: fast %s, go-redis %s", i, r.Op, r.Key, of, og)
		}
	}
	rf, rg := rawClient(t, sf), rawClient(t, sg)
	df, dg := dump(t, rf), dump(t, rg)
	if df != dg {
		t.Fatalf("the paths left different data\nfast:\n%s\ngo-redis:\n%s", df, dg)
	}
	if !strings.Contains(df, `field2="upd\r\n$-1\r\n"`) || !strings.Contains(df, "counter:105 string 2") {
		t.Fatalf("the data misses the update or the counters:\n%s", df)
	}
	// Cross reads: the fast parser on go-redis's writes, go-redis on the
	// fast path's writes, each against what the ops sent.
	tfg := openProto(t, sg.URL(), ProtocolFast, scenarios.ClientCommon{})
	for _, n := range []int64{1, 101} {
		got := fetch(t, tfg, &targets.Request{Op: scenarios.OpRead, Key: key(n)})
		m := map[string]string{}
		for i := 0; i+1 < len(got); i += 2 {
			m[string(got[i])] = string(got[i+1])
		}
		want := map[string]string{}
		for _, f := range record(n, 4) {
			want[f.Name] = string(f.Value)
		}
		want["field2"] = "upd\r\n$-1\r\n"
		if fmt.Sprint(m) != fmt.Sprint(want) {
			t.Errorf("fast HGETALL of go-redis's %s: %v, want %v", key(n), m, want)
		}
		if h := rf.HGetAll(ctx, string(key(n))).Val(); fmt.Sprint(h) != fmt.Sprint(want) {
			t.Errorf("go-redis HGETALL of the fast path's %s: %v, want %v", key(n), h, want)
		}
	}
	if got := fetch(t, tfg, &targets.Request{Op: scenarios.OpGet, Key: []byte(string(key(110)) + ":3")}); len(got) != 1 || string(got[0]) != "m10" {
		t.Errorf("fast GET of go-redis's MSET key: %q", got)
	}
	if got := fetch(t, tfg, &targets.Request{Op: scenarios.OpLRange600}); fmt.Sprintf("%q", got) != `["l1" "r1"]` {
		t.Errorf("fast LRANGE of go-redis's list: %q", got)
	}
}

// TestFastErrorClasses: a full noeviction server (OOM), a stopped server
// (connection) and a stalled one (timeout) give the same classes on
// both paths, and a connection that timed out is not reused (the next
// op reads its own reply, not the stale one).
func TestFastErrorClasses(t *testing.T) {
	for _, p := range testProtocols {
		t.Run(string(p), func(t *testing.T) {
			ctx := ctxT(t)
			s := startRedis(t, "--maxmemory", "1mb", "--maxmemory-policy", "noeviction", "--enable-debug-command", "yes")
			tg := openProto(t, s.URL(), p, scenarios.ClientCommon{ReadTimeout: scenarios.Duration(300 * time.Millisecond)})
			big := bytes.Repeat([]byte("x"), 4096)
			var err error
			for n := int64(0); n < 2000 && err == nil; n++ {
				err = tg.Do(ctx, &targets.Request{Op: scenarios.OpSet, KeyNum: n, Key: key(n), Fields: []targets.Field{{Value: big}}})
			}
			if c := targets.Classify(tg, err); c != targets.ClassOOM || !strings.HasPrefix(err.Error(), "OOM ") {
				t.Fatalf("filling a 1mb noeviction server: class %s for %v", c, err)
			}
			// The error reply left the connection usable: reads work.
			if err := tg.Do(ctx, &targets.Request{Op: scenarios.OpGet, Key: key(0)}); err != nil && !errors.Is(err, targets.ErrMiss) {
				t.Fatalf("get on a full server: %v", err)
			}
			rc := rawClient(t, s)
			rc.ConfigSet(ctx, "maxmemory", "0")
			rc.Set(ctx, "a", "A", 0)
			rc.Set(ctx, "b", "B", 0)
			// Stall the server past the read timeout.
			var wg sync.WaitGroup
			wg.Add(1)
			go func() { defer wg.Done(); rc.Do(context.Background(), "DEBUG", "SLEEP", "1") }()
			waitStalled(t, s)
			err = tg.Do(ctx, &targets.Request{Op: scenarios.OpGet, Key: []byte("a")})
			if c := targets.Classify(tg, err); c != targets.ClassTimeout {
				t.Fatalf("get from a stalled server: class %s for %v", c, err)
			}
			wg.Wait()
			if p == ProtocolFast {
				for i := 0; i < 3; i++ {
					if got := fetch(t, tg, &targets.Request{Op: scenarios.OpGet, Key: []byte("b")}); len(got) != 1 || string(got[0]) != "B" {
						t.Fatalf("GET b after a timeout read %q (a stale reply?)", got)
					}
				}
			}
			if err := tg.Do(ctx, &targets.Request{Op: scenarios.OpGet, Key: []byte("b")}); err != nil {
				t.Fatalf("get after the stall: %v", err)
			}
			s.Stop()
			for i := 0; i < 5; i++ {
				err := tg.Do(ctx, &targets.Request{Op: scenarios.OpGet, Key: []byte("b")})
				if c := targets.Classify(tg, err); c != targets.ClassConnection {
					t.Fatalf("get %d from a stopped server: class %s for %v", i, c, err)
				}
			}
			errs := make([]error, 3)
			tg.DoBatch(ctx, []*targets.Request{{Op: scenarios.OpGet, Key: []byte("a")}, {Op: scenarios.OpSet, Key: []byte("a")}, {Op: scenarios.OpRead, Key: []byte("a")}}, errs)
			for i, err := range errs {
				if c := targets.Classify(tg, err); c != targets.ClassConnection {
					t.Fatalf("batch op %d on a stopped server: class %s for %v", i, c, err)
				}
			}
		})
	}
}

// TestFastAuthSelect: the password and database of the URL are used by
// the fast path's connections (keys land in db 3 of a requirepass
// server), and when the password stops being accepted the error class
// is the same on both paths and never shows the password.
func TestFastAuthSelect(t *testing.T) {
	const pw = "fast-s3cret-77"
	for _, p := range testProtocols {
		t.Run(string(p), func(t *testing.T) {
			ctx := ctxT(t)
			s := startRedis(t)
			if err := rawClient(t, s).ConfigSet(ctx, "requirepass", pw).Err(); err != nil {
				t.Fatal(err)
			}
			tg := openProto(t, "redis://:"+pw+"@"+s.Addr()+"/3", p, scenarios.ClientCommon{})
			if err := tg.Do(ctx, insertReq(7)); err != nil {
				t.Fatal(err)
			}
			if err := tg.Do(ctx, &targets.Request{Op: scenarios.OpRead, Key: key(7)}); err != nil {
				t.Fatal(err)
			}
			rc := goredis.NewClient(&goredis.Options{Addr: s.Addr(), Password: pw, DB: 3, Protocol: 2, DisableIdentity: true})
			defer rc.Close()
			if got := rc.HGet(ctx, string(key(7)), "field1").Val(); got != "v7-1" {
				t.Fatalf("db 3 holds field1=%q", got)
			}
			// A new password, and every client connection dropped: the
			// next op dials again with the old one.
			rc.ConfigSet(ctx, "requirepass", pw+"-new")
			rc.Do(ctx, "CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes")
			var err error
			// The first op may find its pooled connection killed
			// (a connection error); the ones after it dial again.
			for i := 0; i < 5; i++ {
				err = tg.Do(ctx, &targets.Request{Op: scenarios.OpGet, Key: key(7)})
				if err != nil && targets.Classify(tg, err) != targets.ClassConnection {
					break
				}
			}
			if err == nil || strings.Contains(err.Error(), pw) {
				t.Fatalf("op with a refused password: %v", err)
			}
			if c := targets.Classify(tg, err); c != targets.ClassOther {
				t.Fatalf("refused password: class %s for %v", c, err)
			}
			t.Logf("%s: %v", p, err)
		})
	}
}

// stallProxy forwards TCP between clients and a server, and holds the
// server's bytes back for pause after every occurrence of marker, so a
// pipeline's replies arrive one by one.
func stallProxy(t *testing.T, server string, marker []byte, pause time.Duration) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", server)
			if err != nil {
				c.Close()
				continue
			}
			t.Cleanup(func() { c.Close(); s.Close() })
			go io.Copy(s, c)
			go func() {
				var pending []byte
				buf := make([]byte, 64<<10)
				for {
					n, err := s.Read(buf)
					if err != nil {
						return
					}
					pending = append(pending, buf[:n]...)
					for {
						i := bytes.Index(pending, marker)
						if i < 0 {
							break
						}
						if _, err := c.Write(pending[:i+len(marker)]); err != nil {
							return
						}
						pending = pending[i+len(marker):]
						time.Sleep(pause)
					}
					// Hold back only a tail that may be the start of a
					// marker split across reads.
					keep := len(pending)
					for k := min(len(marker)-1, len(pending)); k > 0; k-- {
						if bytes.HasPrefix(marker, pending[len(pending)-k:]) {
							keep = len(pending) - k
							break
						}
					}
					if _, err := c.Write(pending[:keep]); err != nil {
						return
					}
					pending = slices.Clone(pending[keep:])
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// TestFastBatchStampsEachOp: in a pipelined batch on the fast path each
// op's End is when its own reply arrived. A proxy holds each GET reply
// back 40 ms, so the stamps must be in order and at least that far
// apart (a lower bound the proxy makes, whatever the host's load), the
// last no later than DoBatch's return. The go-redis path stamps the
// batch's end on every op.
func TestFastBatchStampsEachOp(t *testing.T) {
	s := startRedis(t)
	rc := rawClient(t, s)
	ctx := ctxT(t)
	const pause = 40 * time.Millisecond
	marker := []byte("stamp-marker-value")
	for i := 0; i < 4; i++ {
		rc.Set(ctx, "k"+strconv.Itoa(i), marker, 0)
	}
	addr := stallProxy(t, s.Addr(), marker, pause)
	for _, p := range testProtocols {
		tg := openProto(t, "redis://"+addr, p, scenarios.ClientCommon{})
		reqs := make([]*targets.Request, 4)
		for i := range reqs {
			reqs[i] = &targets.Request{Op: scenarios.OpGet, Key: []byte("k" + strconv.Itoa(i))}
		}
		errs := make([]error, len(reqs))
		start := time.Now()
		tg.DoBatch(ctx, reqs, errs)
		done := time.Now()
		for i, r := range reqs {
			if errs[i] != nil {
				t.Fatalf("%s: op %d: %v", p, i, errs[i])
			}
			if p == ProtocolGoRedis {
				if !r.End.Equal(reqs[0].End) {
					t.Errorf("go-redis: op %d stamped %v, op 0 %v (one stamp per batch)", i, r.End.Sub(start), reqs[0].End.Sub(start))
				}
				continue
			}
			if r.End.IsZero() || r.End.Before(start) || r.End.After(done) {
				t.Fatalf("fast: op %d End %v outside the call (%v)", i, r.End.Sub(start), done.Sub(start))
			}
			if i > 0 && r.End.Sub(reqs[i-1].End) < pause*3/4 {
				t.Errorf("fast: op %d ended %v after op %d, want >= %v: not stamped per reply", i, r.End.Sub(reqs[i-1].End), i-1, pause*3/4)
			}
		}
	}
}

// TestFastPathDoesNotAllocate: once its connections are open, the fast
// path runs get, set, read, update, insert and a pipelined batch
// against a real redis-server without one allocation per op.
func TestFastPathDoesNotAllocate(t *testing.T) {
	s := startRedis(t)
	tg := openProto(t, s.URL(), ProtocolFast, scenarios.ClientCommon{})
	ctx := context.Background()
	fs := record(1, 10)
	batch := make([]*targets.Request, 16)
	for i := range batch {
		batch[i] = &targets.Request{Op: scenarios.OpGet, Key: key(1)}
	}
	errs := make([]error, len(batch))
	for _, r := range []*targets.Request{
		{Op: scenarios.OpSet, KeyNum: 1, Key: key(1), Fields: fs[:1]},
		{Op: scenarios.OpGet, KeyNum: 1, Key: key(1)},
		{Op: scenarios.OpInsert, KeyNum: 2, Key: key(2), Fields: fs},
		{Op: scenarios.OpRead, KeyNum: 2, Key: key(2)},
		{Op: scenarios.OpUpdate, KeyNum: 2, Key: key(2), Fields: fs[3:4]},
	} {
		var err error
		if n := testing.AllocsPerRun(200, func() { err = tg.Do(ctx, r) }); n != 0 || err != nil {
			t.Errorf("%s: %v allocs per op (err %v)", r.Op, n, err)
		}
	}
	if n := testing.AllocsPerRun(100, func() { tg.DoBatch(ctx, batch, errs) }); n != 0 || errs[0] != nil {
		t.Errorf("batch of 16 GETs: %v allocs (err %v)", n, errs[0])
	}
}

// TestOwnPoolStopsDialingADeadServer: once pool_size dials in a row have
// failed, soakd's own pool answers from the last dial error and lets one
// dial through per second (as go-redis does): 200 ops against a stopped
// server cost at most pool_size dials plus one per second they took, and
// every one is a connection error.
func TestOwnPoolStopsDialingADeadServer(t *testing.T) {
	s := startRedis(t)
	tg := openProto(t, s.URL(), ProtocolFast, scenarios.ClientCommon{PoolSize: 4})
	ctx := ctxT(t)
	var dials int
	dial := tg.own.dial
	tg.own.dial = func(ctx context.Context) (net.Conn, error) { dials++; return dial(ctx) }
	if err := tg.Do(ctx, &targets.Request{Op: scenarios.OpPing}); err != nil {
		t.Fatal(err)
	}
	s.Stop()
	start := time.Now()
	for i := 0; i < 200; i++ {
		err := tg.Do(ctx, &targets.Request{Op: scenarios.OpGet, Key: []byte("k")})
		if c := targets.Classify(tg, err); c != targets.ClassConnection {
			t.Fatalf("op %d on a stopped server: class %s for %v", i, c, err)
		}
	}
	limit := 1 + 4 + int(time.Since(start)/time.Second) + 1
	if dials > limit {
		t.Fatalf("%d dials for 200 ops in %v, want at most %d", dials, time.Since(start), limit)
	}
	t.Logf("%d dials for 200 ops in %v", dials, time.Since(start))
}

// waitStalled waits until s no longer answers a PING within 200 ms: a
// DEBUG SLEEP sent to it is under way.
func waitStalled(t *testing.T, s *Server) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		probe := goredis.NewClient(&goredis.Options{Addr: s.Addr(), Protocol: 2, DisableIdentity: true,
			ReadTimeout: 200 * time.Millisecond, MaxRetries: -1})
		err := probe.Ping(context.Background()).Err()
		probe.Close()
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server never stalled (last PING: %v)", err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
