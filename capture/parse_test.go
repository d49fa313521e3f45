package capture

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestParseMonitor(t *testing.T) {
	for _, tc := range []struct {
		line string
		ts   int64
		args []string
	}{
		{`1733350000.123456 [0 127.0.0.1:50000] "SET" "key" "va\"lue"`, 1733350000123456000, []string{"SET", "key", `va"lue`}},
		{`1.5 [3 unix:/tmp/redis.sock] "GET" "a b"`, 1500000000, []string{"GET", "a b"}},
		{`2 [0 lua] "HSET" "h" "f" "x\\y\n\r\t"`, 2000000000, []string{"HSET", "h", "f", "x\\y\n\r\t"}},
		{`0.000001 [0 127.0.0.1:1] "SET" "\x00\xff\xAb" ""`, 1000, []string{"SET", "\x00\xff\xab", ""}},
		{`5.25 [0 127.0.0.1:1] "PING"`, 5250000000, []string{"PING"}},
		{`5.25 [0 127.0.0.1:1] "SET" "k" "\a\b"` + "\r", 5250000000, []string{"SET", "k", "\a\b"}},
	} {
		p := NewParser(FormatMonitor)
		op, err := p.Parse([]byte(tc.line))
		if err != nil {
			t.Errorf("%s: %v", tc.line, err)
			continue
		}
		if op.TS != tc.ts {
			t.Errorf("%s: ts %d, want %d", tc.line, op.TS, tc.ts)
		}
		var got []string
		for _, a := range op.Args {
			got = append(got, string(a))
		}
		if strings.Join(got, "|") != strings.Join(tc.args, "|") || len(got) != len(tc.args) {
			t.Errorf("%s: args %q, want %q", tc.line, got, tc.args)
		}
	}
}

func TestParseMonitorMalformed(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{`garbage`, "not a MONITOR line"},
		{`abc [0 x] "GET"`, "timestamp"},
		{`1.5 0 x] "GET"`, `missing "[db client]"`},
		{`1.5 [0 x "GET"`, "unterminated"},
		{`1.5 [0 x]`, "no command"},
		{`1.5 [0 x] GET`, "argument 1: want a double-quoted string"},
		{`1.5 [0 x] "GET" "k`, "argument 2: unterminated quoted string"},
		{`1.5 [0 x] "GET" "k\q"`, `unknown escape \q`},
		{`1.5 [0 x] "GET" "k\xZZ"`, `\xZZ is not two hex digits`},
		{`1.5 [0 x] "GET" "k\x4"`, `two hex digits`},
		{`1.5 [0 x] "GET" "k\x`, `\x needs two hex digits`},
		{`1.5 [0 x] "GET""k"`, "text after its closing quote"},
	} {
		_, err := NewParser(FormatMonitor).Parse([]byte(tc.line))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one saying %q", tc.line, err, tc.want)
		}
	}
}

func TestParseNDJSON(t *testing.T) {
	p := NewParser(FormatNDJSON)
	op, err := p.Parse([]byte(`{"ts": 1.25, "op": "HSET", "args": ["h", "f", "v\n"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if op.TS != 1250000000 || len(op.Args) != 4 || string(op.Args[0]) != "HSET" || string(op.Args[3]) != "v\n" {
		t.Fatalf("got %d %q", op.TS, op.Args)
	}
	for _, tc := range []struct{ line, want string }{
		{`{"op": "GET", "args": ["k"]}`, `missing "ts"`},
		{`{"ts": 1, "args": ["k"]}`, `missing "op"`},
		{`{"ts": -1, "op": "GET"}`, "not negative"},
		{`{"ts": 1, "op": "GET", "argz": []}`, "not a JSON op"},
		{`not json`, "not a JSON op"},
	} {
		if _, err := p.Parse([]byte(tc.line)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one saying %q", tc.line, err, tc.want)
		}
	}
}

// A malformed line is an error naming its line number; MONITOR's first
// "OK" and blank lines are not ops; skipped commands are counted.
func TestBuildLineNumbers(t *testing.T) {
	good := "OK\n" +
		`1.0 [0 a:1] "SET" "k" "v"` + "\n\n" +
		`1.5 [0 a:1] "SUBSCRIBE" "ch"` + "\n" +
		`2.0 [0 a:1] "GET" "k"` + "\n"
	skip := func(c string) bool { return c == "SUBSCRIBE" }
	ix, err := Build(strings.NewReader(good), int64(len(good)), Options{Format: FormatMonitor, Skip: skip})
	if err != nil {
		t.Fatal(err)
	}
	if len(ix.Entries) != 2 || ix.Skipped["SUBSCRIBE"] != 1 || ix.Span() != 1e9 || ix.Lines != 5 {
		t.Fatalf("entries %+v skipped %v lines %d", ix.Entries, ix.Skipped, ix.Lines)
	}
	bad := good + `2.5 [0 a:1] "GET" "k` + "\n"
	_, err = Build(strings.NewReader(bad), int64(len(bad)), Options{Format: FormatMonitor})
	if err == nil || !strings.HasPrefix(err.Error(), "line 6: ") {
		t.Fatalf("error %v, want one naming line 6", err)
	}
	ok2 := good + "OK\n"
	if _, err := Build(strings.NewReader(ok2), int64(len(ok2)), Options{Format: FormatMonitor}); err == nil || !strings.Contains(err.Error(), "line 6") {
		t.Fatalf("a second OK: %v", err)
	}
	only := "OK\n" + `1.5 [0 a:1] "SUBSCRIBE" "ch"` + "\n"
	if _, err := Build(strings.NewReader(only), int64(len(only)), Options{Format: FormatMonitor, Skip: skip}); err == nil || !strings.Contains(err.Error(), "no op to replay") || !strings.Contains(err.Error(), "SUBSCRIBE x1") {
		t.Fatalf("no usable ops: %v", err)
	}
	refuse := func(a []string) string {
		if a[0] == "GET" {
			return "GET refused"
		}
		return ""
	}
	if _, err := Build(strings.NewReader(good), int64(len(good)), Options{Format: FormatMonitor, Refuse: refuse}); err == nil || err.Error() != "line 5: GET refused" {
		t.Fatalf("refused: %v", err)
	}
}

// Only the indexed size is read: bytes appended later are not replayed,
// and a line rewritten under the run is an error, not a wrong command.
func TestBuildSizeAndReader(t *testing.T) {
	data := []byte(`1 [0 a:1] "SET" "k1" "v"` + "\n" + `2 [0 a:1] "SET" "k2" "v"` + "\n")
	size := int64(len(data))
	data = append(data, []byte(`3 [0 a:1] "SET" "k3" "v"`+"\n")...)
	ix, err := Build(bytes.NewReader(data), size, Options{Format: FormatMonitor})
	if err != nil {
		t.Fatal(err)
	}
	if len(ix.Entries) != 2 {
		t.Fatalf("%d entries; want the 2 within the original size", len(ix.Entries))
	}
	rd := NewReader(bytes.NewReader(data), ix, FormatMonitor)
	op, err := rd.Read(ix.Entries[1])
	if err != nil || string(op.Args[1]) != "k2" {
		t.Fatalf("read %q %v", op.Args, err)
	}
	copy(data, "xxxxxx")
	if _, err := rd.Read(ix.Entries[0]); err == nil {
		t.Fatal("a rewritten line read back without error")
	}
}

func TestGroupsFold(t *testing.T) {
	var b strings.Builder
	cmds := []string{"GET", "GET", "GET", "SET", "SET", "HSET", "LPUSH", "SADD"}
	for i, c := range cmds {
		b.WriteString(`{"ts": ` + string(rune('0'+i)) + `, "op": "` + c + `", "args": ["k"]}` + "\n")
	}
	s := b.String()
	ix, err := Build(strings.NewReader(s), int64(len(s)), Options{Format: FormatNDJSON, MaxGroups: 3})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(ix.Groups, ",") != "GET,SET,other" || strings.Join(ix.Folded, ",") != "HSET,LPUSH,SADD" {
		t.Fatalf("groups %v folded %v", ix.Groups, ix.Folded)
	}
	if _, err := Build(strings.NewReader(s), int64(len(s)), Options{Format: FormatNDJSON, MaxGroups: 3, ByLine: true}); err == nil {
		t.Fatal("group: line over the cap accepted")
	}
}

func TestRemap(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"GET k", "GET p:k"},
		{"SET k v", "SET p:k v"},
		{"MSET a 1 b 2", "MSET p:a 1 p:b 2"},
		{"DEL a b c", "DEL p:a p:b p:c"},
		{"RENAME a b", "RENAME p:a p:b"},
		{"EVALSHA abc 2 x y arg", "EVALSHA abc 2 p:x p:y arg"},
		{"PING", "PING"},
		{"INFO memory", "INFO memory"},
		{"hset h f v", "hset p:h f v"},
	} {
		var args [][]byte
		for _, f := range strings.Fields(tc.in) {
			args = append(args, []byte(f))
		}
		_, parts := Remap(args, "p:", nil, nil)
		var got []string
		for _, p := range parts {
			got = append(got, string(p))
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("%s: %q, want %s", tc.in, got, tc.want)
		}
	}
}

// MONITOR's lines a script issued ("[db lua]") are counted, not indexed:
// the EVAL that ran the script is replayed, and sending both would run
// every scripted command twice. A client named like "lua" elsewhere in
// the field ("[0 lua:1]") is not one of them.
func TestBuildSkipsScriptLines(t *testing.T) {
	src := "OK\n" +
		`1.0 [0 127.0.0.1:5000] "EVAL" "return redis.call('INCR', KEYS[1])" "1" "n"` + "\n" +
		`1.0 [0 lua] "INCR" "n"` + "\n" +
		`1.1 [3 127.0.0.1:5000] "EVALSHA" "abc" "1" "n"` + "\n" +
		`1.1 [3 lua] "incr" "n"` + "\n" +
		`1.2 [0 lua:1] "GET" "n"` + "\n"
	var refused [][]string
	ix, err := Build(strings.NewReader(src), int64(len(src)), Options{Format: FormatMonitor, Refuse: func(a []string) string {
		refused = append(refused, a)
		return ""
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(ix.Entries) != 3 || ix.ScriptLines != 2 || len(ix.Skipped) != 0 || len(refused) != 3 || refused[0][0] != "EVAL" || refused[2][0] != "GET" {
		t.Fatalf("entries %d script lines %d skipped %v refuse saw %q", len(ix.Entries), ix.ScriptLines, ix.Skipped, refused)
	}
	only := "OK\n" + `1.0 [0 lua] "INCR" "n"` + "\n"
	if _, err := Build(strings.NewReader(only), int64(len(only)), Options{Format: FormatMonitor}); err == nil || !strings.Contains(err.Error(), "1 lines a script issued") {
		t.Fatalf("only script lines: %v", err)
	}
}

// A command name with a space or comma cannot name a latency group: Build
// refuses it at its line (the run would have sent the whole capture and
// then failed to write its latencies).
func TestBuildRefusesBadGroupNames(t *testing.T) {
	for _, tc := range []struct{ capture, want string }{
		{"OK\n1.0 [0 a:1] \"GET\" \"k\"\n1.1 [0 a:1] \"MY CMD\" \"k\"\n", `line 3: command name "MY CMD" holds a space`},
		{"1.0 [0 a:1] \"A,B\"\n", `line 1: command name "A,B" holds a comma`},
		{"1.0 [0 a:1] \"X\\xffY\"\n", `holds the byte 0xef (not printable ASCII)`},
	} {
		_, err := Build(strings.NewReader(tc.capture), int64(len(tc.capture)), Options{Format: FormatMonitor, Skip: func(string) bool { return false }})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.capture, err, tc.want)
		}
	}
}

// Every byte value written by AppendNDJSON reads back as it was: alone,
// all 256 in one argument, and beside plain text arguments; a line
// without "b64" reads as before, and a bad "b64" is refused.
func TestNDJSONCarriesRawBytes(t *testing.T) {
	var args [][]byte
	all := make([]byte, 256)
	for i := range 256 {
		args = append(args, []byte{byte(i)})
		all[i] = byte(i)
	}
	args = append(args, all, []byte("plain text"), []byte("caf\u00e9"), nil)
	line := AppendNDJSON(nil, NDJSONOp{TS: 1.5, DB: 3, Op: "RPUSH", Args: args})
	p := NewParser(FormatNDJSON)
	op, err := p.Parse(bytes.TrimSuffix(line, []byte("\n")))
	if err != nil {
		t.Fatalf("%v\n%s", err, line)
	}
	if op.DB != 3 || op.TS != 1_500_000_000 || string(op.Args[0]) != "RPUSH" || len(op.Args) != len(args)+1 {
		t.Fatalf("op %+v", op)
	}
	for i, a := range args {
		if !bytes.Equal(op.Args[i+1], a) {
			t.Errorf("args[%d]: %x, want %x", i, op.Args[i+1], a)
		}
	}
	if !bytes.Contains(line, []byte(`"plain text"`)) || !bytes.Contains(line, []byte("\"caf\u00e9\"")) {
		t.Errorf("text arguments not written as strings: %s", line)
	}
	for _, tc := range []struct{ line, want string }{
		{`{"ts": 1, "op": "SET", "args": ["k", "v"], "b64": [2]}`, `"b64"[0]: 2 is no index of args`},
		{`{"ts": 1, "op": "SET", "args": ["k", "!!"], "b64": [1]}`, `args[1]: listed in "b64", but not base64`},
		{`{"ts": 1, "op": "SET", "args": ["k", 5], "b64": [1]}`, `args[1]: listed in "b64", but not a string`},
		{"{\"ts\": 1, \"op\": \"SET\", \"args\": [\"k\", \"\xff\"]}", `invalid UTF-8`},
	} {
		if _, err := p.Parse([]byte(tc.line)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.line, err, tc.want)
		}
	}
}

// A read that stops mid-line (a cancelled run: regfile.Reader fails
// with the cancel's cause) ends Build with that error, not with a
// parse error about the torn line.
func TestBuildStopsOnReadError(t *testing.T) {
	data := "OK\n1.0 [0 a:1] \"SET\" \"k\" \"v\"\n1.1 [0 a:1] \"SET\" \"k2\" \"v2\"\n"
	cause := errors.New("interrupted (SIGINT)")
	r := io.MultiReader(strings.NewReader(data[:40]), iotest.ErrReader(cause))
	if _, err := Build(r, int64(len(data)), Options{Format: FormatMonitor}); !errors.Is(err, cause) {
		t.Fatalf("Build: %v, want the read's error", err)
	}
}

// The index stops at Options.MaxIndexBytes, at the op that passes it.
func TestBuildIndexBound(t *testing.T) {
	data := strings.Repeat("1.0 [0 a:1] \"GET\" \"k\"\n", 100)
	o := Options{Format: FormatMonitor, MaxIndexBytes: IndexBytes(50)}
	if _, err := Build(strings.NewReader(data), int64(len(data)), o); err == nil || !strings.Contains(err.Error(), "line 51: op 51: the capture's index would pass") {
		t.Fatalf("Build: %v", err)
	}
	o.MaxIndexBytes = IndexBytes(100)
	if ix, err := Build(strings.NewReader(data), int64(len(data)), o); err != nil || len(ix.Entries) != 100 {
		t.Fatalf("Build at the bound: %v", err)
	}
}
