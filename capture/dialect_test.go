package capture

import (
	"strings"
	"testing"
)

// parseLine parses one NDJSON op line.
func parseLine(t *testing.T, line string) Op {
	t.Helper()
	op, err := NewParser(FormatNDJSON).Parse([]byte(line))
	if err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	return op
}

func render(d Dialect, op Op, prefix string) []string {
	_, parts := d.Render(op, prefix, nil, nil)
	out := make([]string, len(parts))
	for i, p := range parts {
		if p == nil {
			out[i] = "<nil>"
		} else {
			out[i] = string(p)
		}
	}
	return out
}

func dialect(t *testing.T, kind string) Dialect {
	t.Helper()
	d, err := NewDialect(kind, nil)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestNDJSONArgTypes(t *testing.T) {
	op := parseLine(t, `{"ts": 1, "op": "X", "args": ["s", 5, {"a": [1, 2]}, null, true], "db": 3}`)
	want := []string{"X", "s", "5", `{"a": [1, 2]}`, "null", "true"}
	for i, w := range want {
		if string(op.Args[i]) != w {
			t.Errorf("arg %d: %q, want %q", i, op.Args[i], w)
		}
	}
	if op.IsJSON(1) || !op.IsJSON(2) || !op.IsJSON(3) || !op.IsNull(4) || op.IsNull(1) || op.DB != 3 {
		t.Errorf("json flags %v null(4) %v db %d", op.JSON, op.IsNull(4), op.DB)
	}
	if _, err := NewParser(FormatNDJSON).Parse([]byte(`{"ts": 1, "op": "X", "db": -1}`)); err == nil || !strings.Contains(err.Error(), `"db" -1`) {
		t.Errorf("negative db: %v", err)
	}
}

func TestMonitorDB(t *testing.T) {
	op, err := NewParser(FormatMonitor).Parse([]byte(`1.5 [7 127.0.0.1:1] "GET" "k"`))
	if err != nil || op.DB != 7 {
		t.Fatalf("db %d %v", op.DB, err)
	}
	if _, err := NewParser(FormatMonitor).Parse([]byte(`1.5 [x 127.0.0.1:1] "GET" "k"`)); err == nil || !strings.Contains(err.Error(), `db "x"`) {
		t.Errorf("bad db: %v", err)
	}
}

func TestMongoDialect(t *testing.T) {
	d := dialect(t, KindMongo)
	op := parseLine(t, `{"ts": 1, "op": "find", "args": [{"find": "users", "filter": {"_id": "u\"1"}}]}`)
	g, skip, err := d.Check(op, "replay_")
	if err != nil || skip || g != "FIND" {
		t.Fatalf("check: %q %v %v", g, skip, err)
	}
	if got := render(d, op, "replay_"); len(got) != 1 || got[0] != `{"find": "replay_users", "filter": {"_id": "u\"1"}}` {
		t.Errorf("render %q", got)
	}
	if got := render(d, op, ""); got[0] != `{"find": "users", "filter": {"_id": "u\"1"}}` {
		t.Errorf("render without prefix %q", got)
	}
	// A document given as a string, a db-level command (its value 1).
	op = parseLine(t, `{"ts": 1, "op": "ping", "args": ["{\"ping\": 1}"]}`)
	if g, _, err := d.Check(op, "p_"); err != nil || g != "PING" {
		t.Fatalf("ping: %q %v", g, err)
	}
	if got := render(d, op, "p_"); got[0] != `{"ping": 1}` {
		t.Errorf("ping render %q", got)
	}
	if _, skip, _ := d.Check(parseLine(t, `{"ts": 1, "op": "getMore", "args": [{"getMore": 5, "collection": "u"}]}`), ""); !skip {
		t.Error("getMore not skipped")
	}
	for line, want := range map[string]string{
		`{"ts": 1, "op": "find", "args": []}`:                                                     "want \"args\": [the command document]",
		`{"ts": 1, "op": "find", "args": [{"count": "u"}]}`:                                       `runs "count"`,
		`{"ts": 1, "op": "find", "args": ["not json"]}`:                                           "not a command document",
		`{"ts": 1, "op": "aggregate", "args": [{"aggregate": "u", "pipeline": [{"$out": "x"}]}]}`: "$out names another collection",
	} {
		if _, _, err := d.Check(parseLine(t, line), "p_"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", line, err, want)
		}
	}
}

func TestElasticDialect(t *testing.T) {
	d := dialect(t, KindElastic)
	op := parseLine(t, `{"ts": 1, "op": "post", "args": ["/products,-old/_search?size=2", {"query": {"match_all": {}}}]}`)
	g, _, err := d.Check(op, "r-")
	if err != nil || g != "POST_SEARCH" {
		t.Fatalf("check %q %v", g, err)
	}
	if got := render(d, op, "r-"); strings.Join(got, "|") != `POST|/r-products,-r-old/_search?size=2|{"query": {"match_all": {}}}` {
		t.Errorf("render %q", got)
	}
	bulk := parseLine(t, `{"ts": 1, "op": "POST", "args": ["/p/_bulk", [{"index": {"_id": "1"}}, {"t": "x"}]]}`)
	if got := render(d, bulk, ""); got[2] != "{\"index\": {\"_id\": \"1\"}}\n{\"t\": \"x\"}\n" || got[1] != "/p/_bulk" {
		t.Errorf("bulk render %q", got)
	}
	get := parseLine(t, `{"ts": 1, "op": "GET", "args": ["/p/_doc/1"]}`)
	if g, _, _ := d.Check(get, ""); g != "GET_DOC" {
		t.Errorf("group %q", g)
	}
	if got := render(d, get, ""); len(got) != 3 || got[2] != "" {
		t.Errorf("get render %q", got)
	}
	if _, skip, _ := d.Check(parseLine(t, `{"ts": 1, "op": "POST", "args": ["/_search/scroll", {"scroll_id": "x"}]}`), ""); !skip {
		t.Error("scroll not skipped")
	}
	for line, want := range map[string]string{
		`{"ts": 1, "op": "PATCH", "args": ["/p"]}`:                                       "want a method",
		`{"ts": 1, "op": "GET", "args": ["p"]}`:                                          "must be a string starting with /",
		`{"ts": 1, "op": "GET", "args": ["/_search"]}`:                                   "names no index",
		`{"ts": 1, "op": "POST", "args": ["/p/_bulk", [{"index": {"_index": "prod"}}]]}`: `names an "_index"`,
	} {
		if _, _, err := d.Check(parseLine(t, line), "r-"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", line, err, want)
		}
	}
}

func TestCQLDialect(t *testing.T) {
	d := dialect(t, KindCQL)
	op := parseLine(t, `{"ts": 1, "op": "INSERT INTO t (k, n, s) VALUES (?, ?, ?)", "args": ["k1", 5, null]}`)
	g, _, err := d.Check(op, "")
	if err != nil || g != "INSERT" {
		t.Fatalf("check %q %v", g, err)
	}
	if got := render(d, op, ""); strings.Join(got, "|") != "INSERT INTO t (k, n, s) VALUES (?, ?, ?)|k1|5|<nil>" {
		t.Errorf("render %q", got)
	}
	if g, _, _ := d.Check(parseLine(t, `{"ts": 1, "op": "BEGIN BATCH INSERT INTO t (k) VALUES ('?'); APPLY BATCH", "args": []}`), ""); g != "BATCH" {
		t.Errorf("batch group %q", g)
	}
	if _, skip, _ := d.Check(parseLine(t, `{"ts": 1, "op": "USE ks"}`), ""); !skip {
		t.Error("USE not skipped")
	}
	if _, _, err := d.Check(parseLine(t, `{"ts": 1, "op": "SELECT * FROM t WHERE k = ?", "args": []}`), ""); err == nil || !strings.Contains(err.Error(), "1 ? markers, args give 0") {
		t.Errorf("marker count: %v", err)
	}
	if _, _, err := d.Check(parseLine(t, `{"ts": 1, "op": "SELECT * FROM t WHERE k = ?", "args": [{"a": 1}]}`), ""); err == nil || !strings.Contains(err.Error(), "JSON object") {
		t.Errorf("object arg: %v", err)
	}
}

// A capture over several dbs keeps each op's db; Build lists them.
func TestBuildDBs(t *testing.T) {
	data := "1.0 [0 c] \"SET\" \"a\" \"1\"\n1.1 [2 c] \"SET\" \"a\" \"2\"\n1.2 [0 c] \"GET\" \"a\"\n"
	ix, err := Build(strings.NewReader(data), int64(len(data)), Options{Format: FormatMonitor})
	if err != nil {
		t.Fatal(err)
	}
	if len(ix.DBs) != 2 || ix.DBs[0] != 0 || ix.DBs[1] != 2 || ix.Entries[1].DB != 2 || ix.Entries[2].DB != 0 {
		t.Errorf("dbs %v entries %+v", ix.DBs, ix.Entries)
	}
}

// A dialect's error names the line.
func TestBuildDialectError(t *testing.T) {
	data := `{"ts": 1, "op": "find", "args": [{"find": "u"}]}` + "\n" + `{"ts": 2, "op": "find", "args": [{"count": "u"}]}` + "\n"
	_, err := Build(strings.NewReader(data), int64(len(data)), Options{Format: FormatNDJSON, Dialect: dialect(t, KindMongo)})
	if err == nil || !strings.HasPrefix(err.Error(), "line 2: mongo op find") {
		t.Errorf("error %v", err)
	}
}
