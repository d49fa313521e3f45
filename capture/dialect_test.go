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
