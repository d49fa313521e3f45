package embedded

import (
	"bufio"
	"bytes"
	"flag"
	"os"
	"strings"
	"testing"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/exec.golden")

// execScript covers every command's reply, error, WRONGTYPE and arity path.
// Its replies are pinned in testdata/exec.golden (recorded from the switch
// the command table replaced), so the table keeps the switch's behaviour.
var execScript = []string{
	"PING", "PING hi", "ping x y", "ECHO", "ECHO e", "SELECT 0", "CLIENT SETNAME x", "READONLY", "AUTH p", "HELLO 3",
	"NOSUCH a", "EXPIRE k 1", "MULTI", "DBSIZE",
	"GET", "GET s", "SET s", "SET s v", "GET s", "MSET a", "MSET a 1 b", "MSET a 1 b 2", "MGET", "MGET a b zz",
	"EXISTS", "EXISTS a b zz", "DEL", "DEL a zz", "UNLINK b", "INCR", "INCR n", "INCR n", "INCR s",
	"HSET h f", "HSET h f v g", "HSET h f v", "HSET h f w", "HMSET h2 f v", "HMSET h2 f", "HSET s f v", "HGET h", "HGET h f", "HGET h zz",
	"HGET zz f", "HGET s f", "HGETALL", "HGETALL h", "HGETALL zz", "HGETALL s",
	"LPUSH l", "LPUSH l a b", "RPUSH l c d", "LPUSH s a", "LLEN", "LLEN l", "LLEN s", "LLEN zz",
	"LRANGE l 0", "LRANGE l x 1", "LRANGE l 0 -1", "LRANGE l -2 100", "LRANGE l 3 1", "LRANGE s 0 1", "LRANGE zz 0 1",
	"LPOP", "LPOP l", "RPOP l", "RPOP s", "LPOP zz", "LPOP l", "RPOP l", "LLEN l",
	"SADD q", "SADD q a", "SADD q a", "SADD s a", "SCARD", "SCARD q", "SCARD s", "SPOP", "SPOP q", "SPOP q", "SPOP s",
	"ZADD z 1", "ZADD z 1 a 2", "ZADD z x a", "ZADD z 1 a 2 b 3 c", "ZADD z 1.5 a", "ZADD s 1 a", "ZCARD", "ZCARD z", "ZCARD zz", "ZCARD s",
	"ZSCORE z", "ZSCORE z a", "ZSCORE z zz", "ZSCORE zz a", "ZRANGEBYSCORE z 0", "ZRANGEBYSCORE z x 1",
	"ZRANGEBYSCORE z -inf +inf", "ZRANGEBYSCORE z (1.5 3 WITHSCORES", "ZRANGEBYSCORE z 0 10 LIMIT 1 1", "ZRANGEBYSCORE z 0 10 LIMIT 1",
	"ZRANGEBYSCORE z 0 10 LIMIT x 1", "ZRANGEBYSCORE z 0 10 BOGUS", "ZRANGEBYSCORE zz 0 1", "ZRANGEBYSCORE s 0 1",
	"ZREM z", "ZREM z a zz", "ZREM s a", "ZPOPMIN", "ZPOPMIN z 1 2", "ZPOPMIN z x", "ZPOPMIN z -1", "ZPOPMIN z", "ZPOPMIN z 5", "ZPOPMIN zz", "ZPOPMIN s",
	"ZREM zz a", "DBSIZE", "FLUSHDB", "DBSIZE", "set k v", "FLUSHALL", "DBSIZE", "QUIT", "quit now",
}

func runScript(t *testing.T, cfg Config) string {
	t.Helper()
	s, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var out bytes.Buffer
	for _, line := range execScript {
		var args [][]byte
		for _, f := range strings.Fields(line) {
			args = append(args, []byte(f))
		}
		var buf bytes.Buffer
		w := bufio.NewWriter(&buf)
		quit := s.exec(w, args)
		w.Flush()
		out.WriteString("> " + line + "\n" + strings.ReplaceAll(buf.String(), "\r\n", "\\r\\n") + "\n")
		if quit {
			out.WriteString("(quit)\n")
		}
	}
	return out.String()
}

func TestExecGolden(t *testing.T) {
	got := runScript(t, Config{}) + "--- restricted\n" + runScript(t, Config{Restricted: true})
	if *updateGolden {
		if err := os.WriteFile("testdata/exec.golden", []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile("testdata/exec.golden")
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range gl {
			if i >= len(wl) || gl[i] != wl[i] {
				t.Fatalf("replies differ from testdata/exec.golden at line %d:\ngot  %q\nwant %q", i+1, gl[i], wl[min(i, len(wl)-1)])
			}
		}
		t.Fatal("replies differ from testdata/exec.golden (length)")
	}
}

// TestCommandTable: every command in the table has an arity of at least
// one (the name) and a handler, answers the arity error below it, and a
// name outside the table is an unknown command.
func TestCommandTable(t *testing.T) {
	s, err := Start(Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	reply := func(args ...string) string {
		var bs [][]byte
		for _, a := range args {
			bs = append(bs, []byte(a))
		}
		var buf bytes.Buffer
		w := bufio.NewWriter(&buf)
		s.exec(w, bs)
		w.Flush()
		return buf.String()
	}
	for name, c := range commands {
		if c.arity < 1 || c.handler == nil {
			t.Errorf("%s: arity %d, handler set %v", name, c.arity, c.handler != nil)
			continue
		}
		if name != strings.ToUpper(name) {
			t.Errorf("%s: table names are upper case", name)
		}
		if c.arity > 1 {
			args := []string{strings.ToLower(name)}
			for len(args) < c.arity-1 {
				args = append(args, "x")
			}
			want := "-ERR wrong number of arguments for '" + strings.ToLower(name) + "' command\r\n"
			if got := reply(args...); got != want {
				t.Errorf("%s with %d args: %q, want %q", name, len(args), got, want)
			}
		}
	}
	for _, name := range []string{"NOSUCH", "expire", "Multi"} {
		want := "-ERR unknown command '" + strings.ToLower(name) + "'\r\n"
		if got := reply(name, "k"); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
}
