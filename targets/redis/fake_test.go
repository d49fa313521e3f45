package redis

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// fakeServer speaks just enough RESP2 to stand in for a server with
// RediSearch 2.x (and optionally RedisJSON), recording every command.
type fakeServer struct {
	ln      net.Listener
	modules [][2]any // name, version
	mu      sync.Mutex
	cmds    [][]string
	silent  bool // never reply (timeouts)
	// ftconf answers FT.CONFIG GET (RediSearch 2.x); nil: unknown command.
	ftconf map[string]string
	// ftconfMap answers it as RESP3 does: a map, not a list of pairs.
	ftconfMap bool
}

func startFake(t *testing.T, modules ...[2]any) *fakeServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeServer{ln: ln, modules: modules}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go f.serve(c)
		}
	}()
	return f
}

func (f *fakeServer) url() string { return "redis://" + f.ln.Addr().String() }

func (f *fakeServer) commands(prefix string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, c := range f.cmds {
		s := strings.Join(c, " ")
		if strings.HasPrefix(s, prefix) {
			out = append(out, s)
		}
	}
	return out
}

func (f *fakeServer) reset() {
	f.mu.Lock()
	f.cmds = nil
	f.mu.Unlock()
}

func (f *fakeServer) serve(c net.Conn) {
	defer c.Close()
	r := bufio.NewReader(c)
	w := bufio.NewWriter(c)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		if line[0] != '*' {
			// An inline command: recorded as INLINE <line>.
			f.mu.Lock()
			f.cmds = append(f.cmds, []string{"INLINE", strings.TrimRight(line, "\r\n")})
			f.mu.Unlock()
			w.WriteString("+PONG\r\n")
			w.Flush()
			continue
		}
		n, _ := strconv.Atoi(strings.TrimSpace(line[1:]))
		args := make([]string, n)
		for i := range args {
			l, err := r.ReadString('\n')
			if err != nil {
				return
			}
			size, _ := strconv.Atoi(strings.TrimSpace(l[1:]))
			buf := make([]byte, size+2)
			if _, err := io.ReadFull(r, buf); err != nil {
				return
			}
			args[i] = string(buf[:size])
		}
		f.mu.Lock()
		args[0] = strings.ToUpper(args[0])
		f.cmds = append(f.cmds, args)
		silent := f.silent
		f.mu.Unlock()
		if silent && strings.ToUpper(args[0]) != "PING" && strings.ToUpper(args[0]) != "INFO" {
			continue
		}
		switch strings.ToUpper(args[0]) {
		case "PING":
			w.WriteString("+PONG\r\n")
		case "HELLO":
			w.WriteString("-ERR unknown command 'HELLO'\r\n")
		case "INFO":
			info := "# Server\r\nredis_version:7.2.4\r\n"
			w.WriteString("$" + strconv.Itoa(len(info)) + "\r\n" + info + "\r\n")
		case "MODULE":
			w.WriteString("*" + strconv.Itoa(len(f.modules)) + "\r\n")
			for _, m := range f.modules {
				name := m[0].(string)
				w.WriteString("*4\r\n$4\r\nname\r\n$" + strconv.Itoa(len(name)) + "\r\n" + name + "\r\n$3\r\nver\r\n:" + strconv.Itoa(m[1].(int)) + "\r\n")
			}
		case "HSET", "ZADD", "ZREM", "DEL":
			w.WriteString(":1\r\n")
		case "FT.SEARCH":
			w.WriteString("*1\r\n:0\r\n")
		case "FT.CONFIG":
			f.mu.Lock()
			v, ok := f.ftconf[strings.ToUpper(args[len(args)-1])]
			known, asMap := f.ftconf != nil, f.ftconfMap
			f.mu.Unlock()
			switch {
			case !known:
				w.WriteString("-ERR unknown command 'FT.CONFIG'\r\n")
			case !ok:
				w.WriteString("*0\r\n")
			case asMap:
				name := strings.ToUpper(args[len(args)-1])
				w.WriteString("%1\r\n$" + strconv.Itoa(len(name)) + "\r\n" + name + "\r\n$" + strconv.Itoa(len(v)) + "\r\n" + v + "\r\n")
			default:
				name := strings.ToUpper(args[len(args)-1])
				w.WriteString("*1\r\n*2\r\n$" + strconv.Itoa(len(name)) + "\r\n" + name + "\r\n$" + strconv.Itoa(len(v)) + "\r\n" + v + "\r\n")
			}
		case "JSON.GET":
			w.WriteString("$2\r\n{}\r\n")
		case "HGETALL":
			w.WriteString("*2\r\n$1\r\na\r\n$1\r\nb\r\n")
		default:
			w.WriteString("+OK\r\n")
		}
		w.Flush()
	}
}

func searchScenarioPrefix(prefix string) *scenarios.Scenario {
	sc := searchScenario()
	sc.Keyspace.Prefix = prefix
	return sc
}

func TestSearchRediSearch2Hash(t *testing.T) {
	f := startFake(t, [2]any{"search", 20804})
	tg := openTarget(t, scenarios.Target{URL: f.url()}, targets.Options{})
	ctx := ctxT(t)
	if err := tg.Prepare(ctx, searchScenarioPrefix("doc:")); err != nil {
		t.Fatal(err)
	}
	want := "FT.CREATE soakd:search ON HASH PREFIX 1 doc: SCHEMA title TEXT body TEXT num NUMERIC SORTABLE"
	if got := f.commands("FT.CREATE"); len(got) != 1 || got[0] != want {
		t.Fatalf("sent %q", got)
	}
	k := []byte("doc:5")
	title, body := scenarios.DocText(5)
	if err := tg.Do(ctx, &targets.Request{Op: scenarios.OpInsert, KeyNum: 5, Key: k, Fields: []targets.Field{{Name: "field0", Value: []byte("v")}}}); err != nil {
		t.Fatal(err)
	}
	if got := f.commands("HSET"); len(got) != 1 || got[0] != "HSET doc:5 title "+title+" body "+body+" num 5 field0 v" {
		t.Fatalf("insert sent %q", got)
	}
	if got := f.commands("ZADD"); len(got) != 1 || got[0] != "ZADD soakd:index 5 doc:5" {
		t.Fatalf("insert sent %q", got)
	}
	f.reset()
	if err := tg.Do(ctx, &targets.Request{Op: scenarios.OpSearch, KeyNum: 5, Query: "alpha bravo", Page: 2, PageSize: 10}); err != nil {
		t.Fatal(err)
	}
	if got := f.commands("FT.SEARCH"); len(got) != 1 || got[0] != "FT.SEARCH soakd:search alpha bravo SORTBY num LIMIT 20 10" {
		t.Fatalf("search sent %q", got)
	}
	if !strings.Contains(tg.Describe(), "RediSearch 2.8.4") {
		t.Errorf("describe %q", tg.Describe())
	}
}

func TestSearchRediSearch2JSON(t *testing.T) {
	f := startFake(t, [2]any{"search", 20804}, [2]any{"ReJSON", 20606})
	tg := openTarget(t, scenarios.Target{URL: f.url()}, targets.Options{})
	ctx := ctxT(t)
	if err := tg.Prepare(ctx, searchScenarioPrefix("doc:")); err != nil {
		t.Fatal(err)
	}
	want := "FT.CREATE soakd:search ON JSON PREFIX 1 doc: SCHEMA $.title AS title TEXT $.body AS body TEXT $.num AS num NUMERIC SORTABLE"
	if got := f.commands("FT.CREATE"); len(got) != 1 || got[0] != want {
		t.Fatalf("sent %q", got)
	}
	if err := tg.Do(ctx, &targets.Request{Op: scenarios.OpInsert, KeyNum: 5, Key: []byte("doc:5"), Fields: []targets.Field{{Name: "field0", Value: []byte(`q"v`)}}}); err != nil {
		t.Fatal(err)
	}
	got := f.commands("JSON.SET")
	if len(got) != 1 || !strings.HasPrefix(got[0], "JSON.SET doc:5 $ ") {
		t.Fatalf("insert sent %q", got)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(strings.TrimPrefix(got[0], "JSON.SET doc:5 $ ")), &doc); err != nil {
		t.Fatal(err)
	}
	title, _ := scenarios.DocText(5)
	if doc["title"] != title || doc["num"] != 5.0 || doc["field0"] != `q"v` {
		t.Fatalf("document %v", doc)
	}
	f.reset()
	for _, r := range []*targets.Request{
		{Op: scenarios.OpUpdate, KeyNum: 5, Key: []byte("doc:5"), Fields: []targets.Field{{Name: "field1", Value: []byte("x")}}},
		{Op: scenarios.OpRead, KeyNum: 5, Key: []byte("doc:5")},
	} {
		if err := tg.Do(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	if got := f.commands("JSON."); len(got) != 2 || got[0] != `JSON.SET doc:5 $.field1 "x" XX` || got[1] != "JSON.GET doc:5" {
		t.Fatalf("update/read sent %q", got)
	}
	// client.search: hash keeps hashes even with RedisJSON loaded.
	tg2 := openTarget(t, scenarios.Target{URL: f.url(), Client: scenarios.ClientOf(scenarios.ClientCommon{}, ClientConfig{Search: "hash"})}, targets.Options{})
	if err := tg2.Prepare(ctx, searchScenarioPrefix("doc:")); err != nil || tg2.search.mode != searchHash {
		t.Fatalf("mode %d: %v", tg2.search.mode, err)
	}
}

func TestTimeoutAndOtherClasses(t *testing.T) {
	f := startFake(t)
	tg := openTarget(t, scenarios.Target{URL: f.url(), Client: scenarios.ClientOf(scenarios.ClientCommon{ReadTimeout: scenarios.Duration(100 * time.Millisecond)}, nil)}, targets.Options{})
	f.mu.Lock()
	f.silent = true
	f.mu.Unlock()
	start := time.Now()
	err := tg.Do(ctxT(t), &targets.Request{Op: scenarios.OpGet, Key: []byte("k")})
	if el := time.Since(start); el > time.Second {
		t.Fatalf("timeout took %s", el)
	}
	if c := targets.Classify(tg, err); c != targets.ClassTimeout {
		t.Fatalf("class %s for %v", c, err)
	}
	s := startRedis(t)
	real := openURL(t, s)
	ctx := ctxT(t)
	real.Do(ctx, &targets.Request{Op: scenarios.OpSet, Key: []byte("str"), Fields: []targets.Field{{Value: []byte("x")}}})
	err = real.Do(ctx, &targets.Request{Op: scenarios.OpRead, Key: []byte("str")})
	if c := targets.Classify(real, err); c != targets.ClassOther {
		t.Fatalf("WRONGTYPE class %s for %v", c, err)
	}
}
