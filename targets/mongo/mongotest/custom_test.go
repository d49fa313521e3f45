package mongotest

import (
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"

	"github.com/soakd/soakd/internal/storetest"
	"github.com/soakd/soakd/scenarios"
)

// Custom mongo ops through engine.Run on FerretDB: an upsert, a find and
// a count by a named binding, a delete; misses by miss_when; a write
// error (a duplicate _id insert) and a failed command are errors.
func TestCustomMongoOps(t *testing.T) {
	f := startFerret(t, "127.0.0.1:0", t.TempDir())
	sc := storetest.Parse(t, "custom.yaml", `name: custom-mongo
target: {kind: mongo, url: "`+testURL(f)+`", client: {database: soakd, collection: usertable}}
keyspace: {records: 50}
bindings:
  user: {key: uniform, records: 20, prefix: "u"}
ops:
  bump: {mongo: {command: '{"update": "carts", "updates": [{"q": {"_id": "{user}"}, "u": {"$inc": {"n": {int:1:1}}}, "upsert": true}]}'}}
  fetch: {mongo: {command: '{"find": "carts", "filter": {"_id": "{user}"}}'}, miss_when: nil}
  count: {mongo: {command: '{"count": "carts", "query": {"_id": "{user}"}}'}, miss_when: zero}
  absent: {mongo: {command: '{"find": "carts", "filter": {"_id": "nobody{seq}"}}'}, miss_when: empty}
  dup: {mongo: {command: '{"insert": "fixed", "documents": [{"_id": "same"}]}'}}
  bad: {mongo: {command: '{"find": "carts", "filter": {"$nosuchop": 1}}'}}
phases:
  - {name: fill, kind: steady, requests: 100, concurrency: 1, mix: {bump: 100}}
  - {name: mixed, kind: steady, requests: 600, concurrency: 1, mix: {bump: 20, fetch: 20, count: 20, absent: 20, dup: 10, bad: 10}}
`)
	ss := storetest.Open(t, sc)
	sum := ss.MustRun(sc)
	fill, mixed := sum.Phases[0].Result, sum.Phases[1].Result
	if fill.Errors != 0 || fill.Ops["bump"].Count != 100 {
		t.Fatalf("fill: %+v", fill.Ops)
	}
	errs := func(name string) int64 { return storetest.Errors(mixed.Ops[name]) }
	for _, name := range []string{"bump", "fetch", "count"} {
		if o := mixed.Ops[name]; o.Count == 0 || errs(name) != 0 {
			t.Errorf("%s: %d ops, errors %v", name, o.Count, o.Errors)
		}
	}
	if o := mixed.Ops["absent"]; o.Count == 0 || o.Misses != o.Count {
		t.Errorf("absent: %d misses of %d", o.Misses, o.Count)
	}
	// The first dup insert may succeed; every later one is a write error.
	if o := mixed.Ops["dup"]; o.Count < 2 || errs("dup") < o.Count-1 {
		t.Errorf("dup: %d ops, errors %v", o.Count, o.Errors)
	}
	if o := mixed.Ops["bad"]; o.Count == 0 || errs("bad") != o.Count {
		t.Errorf("bad: %d ops, errors %v", o.Count, o.Errors)
	}
	// Every bump landed: the counters add up to the bumps (one worker:
	// FerretDB on SQLite loses concurrent $inc upserts of one document).
	cl := direct(t, f.uri).Database().Collection("carts")
	cur, err := cl.Find(ss.Ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	var docs []struct {
		N int64 `bson:"n"`
	}
	if err := cur.All(ss.Ctx, &docs); err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, d := range docs {
		total += d.N
	}
	if want := fill.Ops["bump"].Count + mixed.Ops["bump"].Count; total != want || len(docs) > 20 {
		t.Errorf("counters hold %d in %d docs, want %d in at most 20", total, len(docs), want)
	}
}

// The shipped custom mongo scenario runs on FerretDB, shortened, with
// every op running and none failing.
func TestCustomMongoShippedScenario(t *testing.T) {
	f := startFerret(t, "127.0.0.1:0", t.TempDir())
	sc := storetest.Load(t, "../../../scenarios/custom-carts-mongo.yaml")
	sc.Target.URL = testURL(f)
	for i := range sc.Phases {
		p := &sc.Phases[i]
		p.Duration, p.Warmup, p.Rate, p.Concurrency = scenarios.Duration(time.Second), 0, 300, 1
	}
	sum := storetest.Run(t, sc)
	r := sum.Phases[0].Result
	if r.Errors != 0 {
		t.Errorf("%d errors: %+v", r.Errors, r.Ops)
	}
	for name := range sc.Phases[0].Mix {
		if r.Ops[name].Count == 0 {
			t.Errorf("op %s never ran", name)
		}
	}
}
