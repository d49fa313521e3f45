package cql_test

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/soakd/soakd/internal/storetest"
	"github.com/soakd/soakd/targets/cql/cqltest"
)

// A custom op's args reach the server as the types of the statement's
// markers, which the server gave when it prepared it: an int column gets
// 4 bytes, a bigint 8, a float and a double IEEE floats, a boolean one
// byte, a uuid 16, a decimal a scale and a varint, a timestamp 8 bytes of
// milliseconds, text and blobs the rendered bytes. An int key found by a
// SELECT is the same 4 bytes the INSERT wrote. Text that is no value of
// its marker's type is an error of the op, and nothing is sent.
func TestCustomCQLTypedArgs(t *testing.T) {
	s, err := cqltest.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, stmt := range []string{
		"CREATE KEYSPACE IF NOT EXISTS shop WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE IF NOT EXISTS shop.typed (id int PRIMARY KEY, n int, big bigint, f float, d double, ok boolean, u uuid, b blob, t text, dec decimal, at timestamp)",
	} {
		if err := s.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	sc := storetest.Parse(t, "typed.yaml", `name: typed
target: {kind: cql, url: "cql://`+s.Addr()+`/ycsb?replication=SimpleStrategy:1"}
keyspace: {records: 100}
ops:
  put:
    cql:
      statement: "INSERT INTO shop.typed (id, n, big, f, d, ok, u, b, t, dec, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
      args: ["{int:0:9}", "{int:1:5}", "{seq}", "{float:1:2}", "{float:-5:5}", "{choice:true,false}", "{uuid}", "{bytes:16}", "{text:2}", "{float:0:100}", "{now_ms}"]
  look: {cql: {statement: "SELECT n FROM shop.typed WHERE id = ?", args: ["{int:0:9}"]}, miss_when: nil}
  bad: {cql: {statement: "INSERT INTO shop.typed (id, n) VALUES (?, ?)", args: ["{int:0:9}", "n{int:1:5}"]}}
phases:
  - {name: fill, kind: steady, requests: 100, concurrency: 2, mix: {put: 100}}
  - {name: read, kind: steady, requests: 100, concurrency: 2, mix: {look: 80, bad: 20}}
`)
	before := time.Now().UnixMilli()
	sum := storetest.Run(t, sc)
	after := time.Now().UnixMilli()
	if r := sum.Phases[0].Result; r.Errors != 0 || r.Ops["put"].Count != 100 {
		t.Fatalf("fill: %d errors, ops %+v", r.Errors, r.Ops)
	}
	ops := sum.Phases[1].Result.Ops
	if o := ops["look"]; o.Count == 0 || len(o.Errors) != 0 || o.Misses*2 > o.Count {
		t.Errorf("get by int key: %+v (the keys the puts wrote should be found)", o)
	}
	if o := ops["bad"]; o.Count == 0 || o.Errors["other"] != o.Count {
		t.Errorf("bad: %d ops, errors %v; text that is no int must fail the op", o.Count, o.Errors)
	}

	puts, bads := 0, 0
	for _, rq := range s.Requests() {
		if rq.Opcode != cqltest.OpExecute {
			continue
		}
		switch {
		case strings.HasPrefix(rq.Stmt, "INSERT INTO shop.typed (id, n) "):
			bads++
		case strings.HasPrefix(rq.Stmt, "INSERT INTO shop.typed (id, n, big"):
			puts++
			checkTypedPut(t, rq.Values, before, after)
		case strings.HasPrefix(rq.Stmt, "SELECT n FROM shop.typed"):
			if len(rq.Values) != 1 || len(rq.Values[0]) != 4 || int32(binary.BigEndian.Uint32(rq.Values[0])) > 9 {
				t.Errorf("select key %q: want a 4-byte int in 0..9", rq.Values)
			}
		}
	}
	if puts != 100 {
		t.Errorf("%d typed INSERTs executed, want 100", puts)
	}
	if bads != 0 {
		t.Errorf("%d INSERTs with an unparsable int reached the server", bads)
	}
}

// checkTypedPut checks one INSERT's wire values against the column
// types and the generators that rendered them.
func checkTypedPut(t *testing.T, v [][]byte, nowLo, nowHi int64) {
	t.Helper()
	if len(v) != 11 {
		t.Errorf("%d values, want 11", len(v))
		return
	}
	sizes := []int{4, 4, 8, 4, 8, 1, 16, 16, -1, -1, 8}
	for i, n := range sizes {
		if n >= 0 && len(v[i]) != n {
			t.Errorf("value %d is %d bytes, want %d: %q", i, len(v[i]), n, v[i])
			return
		}
	}
	i32 := func(b []byte) int32 { return int32(binary.BigEndian.Uint32(b)) }
	if id := i32(v[0]); id < 0 || id > 9 {
		t.Errorf("id %d not in 0..9", id)
	}
	if n := i32(v[1]); n < 1 || n > 5 {
		t.Errorf("n %d not in 1..5", n)
	}
	if seq := int64(binary.BigEndian.Uint64(v[2])); seq < 0 || seq >= 100 {
		t.Errorf("big (seq) %d not in 0..99", seq)
	}
	if f := math.Float32frombits(binary.BigEndian.Uint32(v[3])); f < 1 || f > 2 {
		t.Errorf("float %v not in [1, 2]", f)
	}
	if d := math.Float64frombits(binary.BigEndian.Uint64(v[4])); d < -5 || d >= 5 {
		t.Errorf("double %v not in [-5, 5)", d)
	}
	if v[5][0] > 1 {
		t.Errorf("boolean byte %d", v[5][0])
	}
	if v[6][6]>>4 != 4 {
		t.Errorf("uuid %x is not version 4", v[6])
	}
	if strings.Count(string(v[8]), " ") != 1 {
		t.Errorf("text %q is not two words", v[8])
	}
	dec := v[9]
	if len(dec) < 5 || i32(dec[:4]) != 6 {
		t.Errorf("decimal %x: want scale 6 (six decimals) and an unscaled value", dec)
	}
	if at := int64(binary.BigEndian.Uint64(v[10])); at < nowLo || at > nowHi {
		t.Errorf("timestamp %d ms not within the run [%d, %d]", at, nowLo, nowHi)
	}
}
