package resp

import (
	"strings"
	"testing"
)

// checkScript on scripts it must pass and ones it must refuse, with the
// line within the script.
func TestCheckScript(t *testing.T) {
	for _, tc := range []struct {
		src  string
		line int
		want string // "" = passes
	}{
		{"return redis.call('GET', KEYS[1])", 0, ""},
		{"return redis.call \"PING\"", 0, ""},
		{"local t = {redis = 1}\nreturn t.redis", 0, ""},
		{"return redis.call('config', 'get', ARGV[1])", 0, ""},
		{"-- a comment: redis.call(ARGV[1])\nreturn 1", 0, ""},
		{"--[==[ redis.call(ARGV[1])\n]==]\nreturn [[\nredis.call(x)]]", 0, ""},
		{"return redis.call('FLUSHALL')", 1, "calls FLUSHALL"},
		{"return redis.call [[FLUSHDB]]", 1, "calls FLUSHDB"},
		{"\n\nreturn redis.pcall(KEYS[1])", 3, "not a string literal"},
		{"return redis.call{'GET', 'k'}", 1, "not a string literal"},
		{"return redis.call('FLUSH' .. 'ALL')", 1, "not a string literal"},
		{"return redis.call('\\70LUSHALL')", 1, "not a string literal"},
		{"return redis:call('GET')", 1, "other than as redis.call"},
		{"local r = redis\nreturn r.call('GET')", 1, "other than as redis.call"},
		{"return redis.breakpoint and redis.set_repl(redis.REPL_ALL) and redis.xcall('FLUSHALL')", 1, "redis.xcall"},
		{"return redis.call('SCRIPT', ARGV[1])", 1, "subcommand"},
		{"return redis.call('FUNCTION', 'FLUSH')", 1, "calls FUNCTION FLUSH"},
		{"return getfenv(0).redis", 1, "uses getfenv"},
		{"return 'unterminated", 1, "unterminated string"},
		{"x = [[never closed", 1, "unterminated long string"},
		{"--[[ never closed", 1, "unterminated long comment"},
		{"return 'a\\", 1, "unterminated string"},
	} {
		p := checkScript(tc.src)
		switch {
		case tc.want == "" && p != nil:
			t.Errorf("%q refused: line %d: %s", tc.src, p.Line, p.Msg)
		case tc.want != "" && (p == nil || p.Line != tc.line || !strings.Contains(p.Msg, tc.want)):
			t.Errorf("%q: %+v, want line %d %q", tc.src, p, tc.line, tc.want)
		}
	}
}

// FuzzCheckScript: no Lua source makes the check panic, and a source
// that passes names no destructive command as a redis.call literal.
func FuzzCheckScript(f *testing.F) {
	for _, s := range []string{"return redis.call('GET', KEYS[1])", "--[[", "[==[ ]==]", "redis.call('CONFIG', 'SET')", "'\\", "redis", "redis.", "redis.call(", "redis.call('x',"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if checkScript(src) == nil && strings.Contains(src, "redis.call('FLUSHALL')") {
			t.Errorf("%q passed", src)
		}
	})
}
