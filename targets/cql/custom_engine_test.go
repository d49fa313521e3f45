package cql_test

import (
	"strings"
	"testing"
	"time"

	"github.com/soakd/soakd/internal/storetest"
	"github.com/soakd/soakd/scenarios"
	_ "github.com/soakd/soakd/targets/cql"
	"github.com/soakd/soakd/targets/cql/cqltest"
)

// Custom cql ops through engine.Run on the CQL test server: statements
// prepared once and executed with rendered args at each op's
// consistency; a SELECT of no row is a miss under miss_when, a server
// error an error.
func TestCustomCQLOps(t *testing.T) {
	s, err := cqltest.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sc := storetest.Parse(t, "custom.yaml", `name: custom-cql
target: {kind: cql, url: "cql://`+s.Addr()+`/ycsb?replication=SimpleStrategy:1"}
keyspace: {records: 100}
record: {fields: 2}
bindings:
  user: {key: uniform, records: 10, prefix: "u"}
ops:
  put: {cql: {statement: "INSERT INTO ycsb.usertable (y_id, field0) VALUES (?, ?)", args: ["{user}", "{text:2}"], consistency: ONE}}
  fetch: {cql: {statement: "SELECT field0 FROM ycsb.usertable WHERE y_id = ?", args: ["{user}"], consistency: LOCAL_QUORUM}, miss_when: nil}
  absent: {cql: {statement: "SELECT field0 FROM ycsb.usertable WHERE y_id = ?", args: ["nobody{seq}"]}, miss_when: empty}
  bad: {cql: {statement: "SELECT nosuch FROM ycsb.nosuchtable WHERE y_id = ?", args: ["{key}"]}}
phases:
  - {name: fill, kind: steady, requests: 50, concurrency: 2, mix: {put: 100}}
  - {name: mixed, kind: steady, requests: 300, concurrency: 2, mix: {put: 25, fetch: 25, absent: 25, bad: 25}}
`)
	sum := storetest.Run(t, sc)
	if r := sum.Phases[0].Result; r.Errors != 0 || r.Ops["put"].Count != 50 {
		t.Fatalf("fill: %+v", r.Ops)
	}
	ops := sum.Phases[1].Result.Ops
	errs := func(name string) int64 { return storetest.Errors(ops[name]) }
	if o := ops["put"]; o.Count == 0 || errs("put") != 0 || o.Misses != 0 {
		t.Errorf("put: %+v", o)
	}
	if o := ops["fetch"]; o.Count == 0 || errs("fetch") != 0 || o.Misses != 0 {
		t.Errorf("fetch (every user was put in fill): %+v", o)
	}
	if o := ops["absent"]; o.Count == 0 || o.Misses != o.Count {
		t.Errorf("absent: %d misses of %d", o.Misses, o.Count)
	}
	if o := ops["bad"]; o.Count == 0 || errs("bad") != o.Count {
		t.Errorf("bad: %d ops, errors %v", o.Count, o.Errors)
	}
	if n := s.Rows("ycsb.usertable"); n == 0 || n > 10 {
		t.Errorf("%d rows, want 1..10 (the user binding's keyspace)", n)
	}
	// Each op ran prepared (EXECUTE) at its own consistency.
	want := map[string]uint16{"INSERT": 0x0001, "SELECT field0": 0x0006}
	seen := map[string]bool{}
	for _, rq := range s.Requests() {
		if rq.Opcode != cqltest.OpExecute {
			continue
		}
		for prefix, c := range want {
			if strings.HasPrefix(rq.Stmt, prefix) && strings.Contains(rq.Stmt, "field0") && !strings.Contains(string(rq.Values[0]), "nobody") {
				seen[prefix] = true
				if rq.Consistency != c {
					t.Errorf("%s ran at consistency %#x, want %#x", rq.Stmt, rq.Consistency, c)
				}
			}
		}
	}
	if len(seen) != 2 {
		t.Errorf("prepared executions seen: %v", seen)
	}
}

// The shipped custom cql scenario runs, shortened, on the CQL test
// server: every op runs and none fails.
func TestCustomCQLShippedScenario(t *testing.T) {
	s, err := cqltest.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sc := storetest.Load(t, "../../scenarios/custom-profiles-cql.yaml")
	sc.Target.URL = "cql://" + s.Addr() + "/ycsb?replication=SimpleStrategy:1"
	p := &sc.Phases[0]
	p.Duration, p.Warmup, p.Rate, p.Concurrency = scenarios.Duration(time.Second), 0, 500, 4
	sum := storetest.Run(t, sc)
	r := sum.Phases[0].Result
	if r.Errors != 0 {
		t.Errorf("%d errors: %+v", r.Errors, r.Ops)
	}
	for name := range p.Mix {
		if r.Ops[name].Count == 0 {
			t.Errorf("op %s never ran", name)
		}
	}
}
