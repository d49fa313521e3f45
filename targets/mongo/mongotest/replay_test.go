package mongotest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/soakd/soakd/internal/storetest"
	"go.mongodb.org/mongo-driver/bson"
)

// An NDJSON op log of MongoDB commands (as the profiler prints them,
// session fields included) replayed through engine.Run on FerretDB:
// each command runs on the scenario's database in its collection under
// key_prefix, counted by command name; getMore is skipped and listed; a
// failed command is an error; dropDatabase refuses the capture.
func TestReplayMongo(t *testing.T) {
	f := startFerret(t, "127.0.0.1:0", t.TempDir())
	dir := t.TempDir()
	var log storetest.OpLog
	add := log.Add
	for i := range 10 {
		add(`"op": "insert", "args": [{"insert": "users", "documents": [{"_id": "u%d", "n": %d}], "lsid": {"id": {"$uuid": "00112233-4455-6677-8899-aabbccddeeff"}}, "$db": "prod"}]`, i, i)
	}
	for i := range 12 {
		add(`"op": "find", "args": [{"find": "users", "filter": {"_id": "u%d"}, "limit": 1}]`, i)
	}
	for i := range 4 {
		add(`"op": "update", "args": [{"update": "users", "updates": [{"q": {"_id": "u%d"}, "u": {"$set": {"n": 100}}}]}]`, i)
	}
	add(`"op": "delete", "args": [{"delete": "users", "deletes": [{"q": {"_id": "u9"}, "limit": 1}]}]`)
	add(`"op": "count", "args": [{"count": "users", "query": {"n": 100}}]`)
	add(`"op": "getMore", "args": [{"getMore": {"$numberLong": "123"}, "collection": "users"}]`)
	add(`"op": "find", "args": [{"find": "users", "filter": {"$nosuchop": 1}}]`)
	if err := os.WriteFile(filepath.Join(dir, "ops.ndjson"), []byte(strings.Join(log.Lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sc := storetest.Parse(t, filepath.Join(dir, "r.yaml"), `name: replay-mongo
target: {kind: mongo, url: "`+testURL(f)+`", client: {database: soakd, collection: usertable}}
phases:
  - {name: replay, kind: replay, source: ops.ndjson, format: ndjson, key_prefix: replay_, concurrency: 1}
slo: {latency: {FIND: {p99: 10s}}}
`)
	ss := storetest.Open(t, sc)
	sum := ss.MustRun(sc)
	p := sum.Phases[0]
	for g, want := range map[string]int64{"INSERT": 10, "FIND": 13, "UPDATE": 4, "DELETE": 1, "COUNT": 1} {
		if n := p.Result.Ops[g].Count; n != want {
			t.Errorf("%s: %d ops, want %d (%+v)", g, n, want, p.Result.Ops)
		}
	}
	if p.Result.Errors != 1 || len(p.Result.Ops["FIND"].Errors) == 0 {
		t.Errorf("errors %d (FIND %v), want the one bad find", p.Result.Errors, p.Result.Ops["FIND"].Errors)
	}
	if p.Replay.Skipped["GETMORE"] != 1 {
		t.Errorf("skipped %v", p.Replay.Skipped)
	}
	found := false
	for _, c := range p.SLO.Checks {
		found = found || c.Op == "FIND" && c.Percentile == 99
	}
	if !found {
		t.Errorf("no FIND p99 check in %+v", p.SLO)
	}
	// The server holds what the commands did, in the prefixed collection.
	db := direct(t, f.uri).Database()
	cur, err := db.Collection("replay_users").Find(ss.Ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	var docs []struct {
		ID string `bson:"_id"`
		N  int32  `bson:"n"`
	}
	if err := cur.All(ss.Ctx, &docs); err != nil {
		t.Fatal(err)
	}
	if len(docs) != 9 {
		t.Fatalf("%d documents, want 10 inserted less 1 deleted: %+v", len(docs), docs)
	}
	for _, d := range docs {
		want := int32(100)
		if d.ID >= "u4" {
			want = int32(d.ID[1] - '0')
		}
		if d.N != want || d.ID == "u9" {
			t.Errorf("document %+v, want n %d", d, want)
		}
	}
	if n, _ := db.Collection("users").CountDocuments(ss.Ctx, bson.D{}); n != 0 {
		t.Errorf("the unprefixed collection holds %d documents", n)
	}

	os.WriteFile(filepath.Join(dir, "drop.ndjson"), []byte(log.Lines[0]+"\n"+`{"ts": 200, "op": "dropDatabase", "args": [{"dropDatabase": 1}]}`+"\n"), 0o644)
	sc.Phases[0].Replay.Source = "drop.ndjson"
	_, err = ss.Run(sc)
	if err == nil || !strings.Contains(err.Error(), "line 2: dropDatabase destroys data") {
		t.Errorf("destructive capture: %v", err)
	}
}
