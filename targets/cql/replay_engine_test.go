package cql_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/soakd/soakd/internal/storetest"
	"github.com/soakd/soakd/targets/cql/cqltest"
)

// An NDJSON op log replayed through engine.Run on the CQL test server:
// each statement is prepared and executed with its args (null as null),
// counted by verb; a SELECT of no row is a success; USE is skipped and
// listed; a server error is an error; TRUNCATE refuses the capture.
func TestReplayCQL(t *testing.T) {
	s, err := cqltest.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	dir := t.TempDir()
	var log storetest.OpLog
	add := log.Add
	add(`"op": "USE ycsb"`)
	for i := range 10 {
		add(`"op": "INSERT INTO ycsb.usertable (y_id, field0, field1) VALUES (?, ?, ?)", "args": ["u%d", "v%d", null]`, i, i)
	}
	for i := range 12 {
		add(`"op": "SELECT field0 FROM ycsb.usertable WHERE y_id = ?", "args": ["u%d"]`, i)
	}
	for i := range 3 {
		add(`"op": "UPDATE ycsb.usertable SET field0 = ? WHERE y_id = ?", "args": ["w", "u%d"]`, i)
	}
	add(`"op": "DELETE FROM ycsb.nosuchtable WHERE y_id = ?", "args": ["u1"]`)
	if err := os.WriteFile(filepath.Join(dir, "ops.ndjson"), []byte(strings.Join(log.Lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sc := storetest.Parse(t, filepath.Join(dir, "r.yaml"), `name: replay-cql
target: {kind: cql, url: "cql://`+s.Addr()+`/ycsb?replication=SimpleStrategy:1"}
record: {fields: 2}
phases:
  - {name: replay, kind: replay, source: ops.ndjson, format: ndjson, concurrency: 1}
`)
	ss := storetest.Open(t, sc)
	sum := ss.MustRun(sc)
	p := sum.Phases[0]
	for g, want := range map[string]int64{"INSERT": 10, "SELECT": 12, "UPDATE": 3, "DELETE": 1} {
		if n := p.Result.Ops[g].Count; n != want {
			t.Errorf("%s: %d ops, want %d (%+v)", g, n, want, p.Result.Ops)
		}
	}
	if p.Result.Errors != 1 || len(p.Result.Ops["DELETE"].Errors) == 0 {
		t.Errorf("errors %d (DELETE %v), want the one DELETE of a missing table", p.Result.Errors, p.Result.Ops["DELETE"].Errors)
	}
	if p.Result.Ops["SELECT"].Misses != 0 {
		t.Errorf("SELECT misses %d: replayed reads have no miss rule", p.Result.Ops["SELECT"].Misses)
	}
	if p.Replay.Skipped["USE"] != 1 {
		t.Errorf("skipped %v", p.Replay.Skipped)
	}
	if n := s.Rows("ycsb.usertable"); n != 10 {
		t.Errorf("%d rows, want 10", n)
	}
	if row := s.Row("ycsb.usertable", "u2"); row["field0"] != "w" {
		t.Errorf("row u2 %v, want field0 w (updated)", row)
	}
	seen := map[string]int{}
	for _, rq := range s.Requests() {
		if rq.Opcode == cqltest.OpExecute && strings.Contains(rq.Stmt, "usertable") {
			seen[strings.Fields(rq.Stmt)[0]]++
			if strings.HasPrefix(rq.Stmt, "INSERT") && rq.Values[2] != nil {
				t.Errorf("null arg sent as %q", rq.Values[2])
			}
		}
	}
	if seen["INSERT"] != 10 || seen["SELECT"] != 12 || seen["UPDATE"] != 3 {
		t.Errorf("server executed %v", seen)
	}

	os.WriteFile(filepath.Join(dir, "trunc.ndjson"), []byte(log.Lines[1]+"\n"+`{"ts": 200, "op": "TRUNCATE ycsb.usertable"}`+"\n"), 0o644)
	sc.Phases[0].Replay.Source = "trunc.ndjson"
	_, err = ss.Run(sc)
	if err == nil || !strings.Contains(err.Error(), "line 2: TRUNCATE destroys data") {
		t.Errorf("destructive capture: %v", err)
	}
}
