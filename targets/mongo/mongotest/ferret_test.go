package mongotest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/FerretDB/FerretDB/ferretdb"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
	soakmongo "github.com/soakd/soakd/targets/mongo"
)

// ferret is one in-process FerretDB (SQLite backend).
type ferret struct {
	uri  string
	addr string
	stop func()
}

// startFerret runs FerretDB on addr ("127.0.0.1:0" for a free port) with
// its SQLite files in dir.
func startFerret(t *testing.T, addr, dir string) *ferret {
	t.Helper()
	f, err := ferretdb.New(&ferretdb.Config{
		Listener:  ferretdb.ListenerConfig{TCP: addr},
		Logger:    slog.New(slog.NewTextHandler(io.Discard, nil)),
		Handler:   "sqlite",
		SQLiteURL: "file:" + dir + "/",
	})
	if err != nil {
		t.Fatalf("ferretdb.New: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = f.Run(ctx)
	}()
	uri := f.MongoDBURI() // waits for the listener
	u := strings.TrimPrefix(strings.TrimSuffix(uri, "/"), "mongodb://")
	stopped := false
	fr := &ferret{uri: uri, addr: u, stop: func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		<-done
	}}
	t.Cleanup(fr.stop)
	return fr
}

func testURL(f *ferret) string {
	return "mongodb://" + f.addr + "/?serverSelectionTimeoutMS=1500&connectTimeoutMS=1000"
}

func open(t *testing.T, url string) targets.Target {
	t.Helper()
	tg, err := targets.Open(context.Background(), scenarios.Target{Kind: "mongo", URL: url,
		Client: scenarios.ClientOf(scenarios.ClientCommon{MaxBatch: 50}, soakmongo.ClientConfig{Database: "soakd", Collection: "usertable"})}, targets.Options{})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { _ = tg.Close() })
	return tg
}

func direct(t *testing.T, uri string) *mongo.Collection {
	t.Helper()
	cl, err := mongo.Connect(context.Background(), options.Client().ApplyURI(uri))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cl.Disconnect(context.Background()) })
	return cl.Database("soakd").Collection("usertable")
}

func key(n int64) []byte { return scenarios.AppendKey(nil, "user", n, true) }

func insertReq(n int64) *targets.Request {
	return &targets.Request{Op: scenarios.OpInsert, KeyNum: n, Key: key(n), Fields: []targets.Field{
		{Name: "field0", Value: []byte(fmt.Sprintf("value-%d-0", n))},
		{Name: "field1", Value: []byte(fmt.Sprintf("value-%d-1", n))},
	}}
}

func scenario(mix map[string]float64) *scenarios.Scenario {
	return &scenarios.Scenario{Record: scenarios.Record{Fields: 2, FieldBytes: 10},
		Phases: []scenarios.Phase{{Name: "run", Kind: scenarios.PhaseSteady, Mix: mix}}}
}

func TestOps(t *testing.T) {
	f := startFerret(t, "127.0.0.1:0", t.TempDir())
	tg := open(t, testURL(f))
	coll := direct(t, f.uri)
	ctx := context.Background()

	if err := tg.(targets.Preparer).Prepare(ctx, scenario(map[string]float64{"read": 50, "update": 50})); err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	if d := tg.(targets.Describer).Describe(); !strings.HasPrefix(d, "MongoDB ") {
		t.Errorf("Describe = %q", d)
	}

	// insert one by one
	for n := int64(0); n < 10; n++ {
		if err := tg.Do(ctx, insertReq(n)); err != nil {
			t.Fatalf("insert %d: %v", n, err)
		}
	}
	var doc bson.M
	if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: string(key(3))}}).Decode(&doc); err != nil {
		t.Fatalf("inserted doc not found: %v", err)
	}
	if doc["field0"] != "value-3-0" || doc["field1"] != "value-3-1" || doc["num"] != int64(3) {
		t.Errorf("stored doc = %v", doc)
	}
	// duplicate insert is an error, not a silent success
	if err := tg.Do(ctx, insertReq(3)); err == nil || !mongo.IsDuplicateKeyError(err) {
		t.Errorf("duplicate insert: err = %v", err)
	} else if c := targets.Classify(tg, err); c != targets.ClassOther {
		t.Errorf("duplicate key classified %s", c)
	}

	// batch: inserts through InsertMany, one duplicate, and a read in between
	b := tg.(targets.Batcher)
	if b.MaxBatch() != 50 {
		t.Errorf("MaxBatch = %d", b.MaxBatch())
	}
	var reqs []*targets.Request
	for n := int64(10); n < 20; n++ {
		reqs = append(reqs, insertReq(n))
	}
	reqs = append(reqs, insertReq(5)) // duplicate
	reqs = append(reqs, &targets.Request{Op: scenarios.OpRead, Key: key(1)})
	reqs = append(reqs, insertReq(20))
	errs := make([]error, len(reqs))
	b.DoBatch(ctx, reqs, errs)
	for i, err := range errs {
		if i == 10 {
			if err == nil || !mongo.IsDuplicateKeyError(err) {
				t.Errorf("batch duplicate insert: err = %v", err)
			}
			continue
		}
		if err != nil {
			t.Errorf("batch slot %d (%s): %v", i, reqs[i].Op, err)
		}
	}
	if n, err := coll.CountDocuments(ctx, bson.D{}); err != nil || n != 21 {
		t.Errorf("count after batch = %d, %v; want 21", n, err)
	}

	// read
	if err := tg.Do(ctx, &targets.Request{Op: scenarios.OpRead, Key: key(15)}); err != nil {
		t.Errorf("read: %v", err)
	}
	err := tg.Do(ctx, &targets.Request{Op: scenarios.OpRead, Key: key(999)})
	if !errors.Is(err, targets.ErrNotFound) {
		t.Errorf("read missing: err = %v, want ErrNotFound", err)
	}
	if c := targets.Classify(tg, err); c != targets.ClassNotFound {
		t.Errorf("missing read classified %s", c)
	}

	// update sets one field, leaves the others
	up := &targets.Request{Op: scenarios.OpUpdate, Key: key(4), Fields: []targets.Field{{Name: "field1", Value: []byte("changed")}}}
	if err := tg.Do(ctx, up); err != nil {
		t.Fatalf("update: %v", err)
	}
	doc = nil
	if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: string(key(4))}}).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	if doc["field1"] != "changed" || doc["field0"] != "value-4-0" {
		t.Errorf("after update: %v", doc)
	}
	up.Key = key(998)
	if err := tg.Do(ctx, up); !errors.Is(err, targets.ErrNotFound) {
		t.Errorf("update missing: err = %v", err)
	}

	// rmw
	rmw := &targets.Request{Op: scenarios.OpRMW, Key: key(6), Fields: []targets.Field{{Name: "field0", Value: []byte("rmw")}}}
	if err := tg.Do(ctx, rmw); err != nil {
		t.Fatalf("rmw: %v", err)
	}
	doc = nil
	if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: string(key(6))}}).Decode(&doc); err != nil || doc["field0"] != "rmw" {
		t.Errorf("after rmw: %v %v", doc, err)
	}
	rmw.Key = key(997)
	if err := tg.Do(ctx, rmw); !errors.Is(err, targets.ErrNotFound) {
		t.Errorf("rmw missing: err = %v", err)
	}

	// scan
	if err := tg.Do(ctx, &targets.Request{Op: scenarios.OpScan, Key: key(5), ScanLen: 5}); err != nil {
		t.Errorf("scan: %v", err)
	}
	if err := tg.Do(ctx, &targets.Request{Op: scenarios.OpScan, Key: key(500), ScanLen: 5}); err != nil {
		t.Errorf("scan past the end: %v", err)
	}

	// delete
	if err := tg.Do(ctx, &targets.Request{Op: scenarios.OpDelete, Key: key(7)}); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if err := tg.Do(ctx, &targets.Request{Op: scenarios.OpRead, Key: key(7)}); !errors.Is(err, targets.ErrNotFound) {
		t.Errorf("read after delete: %v", err)
	}
	if err := tg.Do(ctx, &targets.Request{Op: scenarios.OpDelete, Key: key(7)}); !errors.Is(err, targets.ErrNotFound) {
		t.Errorf("second delete: %v", err)
	}

	// an op the adapter does not do
	if err := tg.Do(ctx, &targets.Request{Op: scenarios.OpLPush, Key: key(1)}); err == nil {
		t.Error("lpush accepted")
	}
}

// TestSearchNeedsTextIndex: FerretDB has no text indexes, so a scenario
// that searches must fail at Prepare, saying why.
func TestSearchNeedsTextIndex(t *testing.T) {
	f := startFerret(t, "127.0.0.1:0", t.TempDir())
	tg := open(t, testURL(f))
	err := tg.(targets.Preparer).Prepare(context.Background(), scenario(map[string]float64{"search": 65, "read": 35}))
	if err == nil {
		t.Fatal("Prepare with search succeeded on a server without text indexes")
	}
	if !strings.Contains(err.Error(), "text index") {
		t.Errorf("Prepare error %q does not mention the text index", err)
	}
	t.Logf("Prepare: %v", err)
	// The op itself fails too, as an error the run counts.
	if err := tg.Do(context.Background(), insertReq(1)); err != nil {
		t.Fatal(err)
	}
	err = tg.Do(context.Background(), &targets.Request{Op: scenarios.OpSearch, Query: "alpha beta", PageSize: 10, Page: 1})
	if err == nil {
		t.Error("search succeeded without a text index")
	}
	t.Logf("search: %v", err)
}

var knownStats = map[string]bool{
	"opcounters_insert": true, "opcounters_query": true, "opcounters_update": true, "opcounters_delete": true,
	"opcounters_getmore": true, "opcounters_command": true, "connections_current": true,
	"wiredtiger_cache_bytes": true, "wiredtiger_cache_dirty_bytes": true, "wiredtiger_pages_read_into_cache": true,
	"mem_resident_bytes": true, "db_data_size_bytes": true, "db_storage_size_bytes": true, "db_objects": true,
}

func TestServerStats(t *testing.T) {
	f := startFerret(t, "127.0.0.1:0", t.TempDir())
	tg := open(t, testURL(f))
	ctx := context.Background()
	for n := int64(0); n < 25; n++ {
		if err := tg.Do(ctx, insertReq(n)); err != nil {
			t.Fatal(err)
		}
	}
	st, err := tg.(targets.StatsSource).ServerStats(ctx)
	if err != nil {
		t.Fatalf("ServerStats: %v", err)
	}
	t.Logf("FerretDB stats: %v", st)
	for k := range st {
		if !knownStats[k] {
			t.Errorf("unexpected stat %q", k)
		}
	}
	// FerretDB has no WiredTiger: those figures must be absent, not 0.
	for _, k := range []string{"wiredtiger_cache_bytes", "wiredtiger_cache_dirty_bytes", "wiredtiger_pages_read_into_cache"} {
		if v, ok := st[k]; ok {
			t.Errorf("%s = %v present; FerretDB has no WiredTiger, it must be absent", k, v)
		}
	}
	if v, ok := st["db_objects"]; !ok || v != 25 {
		t.Errorf("db_objects = %v (present %v), want 25", v, ok)
	}
	for k, v := range st {
		if v < 0 {
			t.Errorf("%s = %v is negative", k, v)
		}
	}
}

func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return addr
}

func TestBadURLAndUnreachable(t *testing.T) {
	ctx := context.Background()
	_, err := targets.Open(ctx, scenarios.Target{Kind: "mongo", URL: "mongodb://soak:pw123@[::1/?w=2"}, targets.Options{})
	if err == nil {
		t.Fatal("malformed URL accepted")
	}
	if strings.Contains(err.Error(), "pw123") {
		t.Errorf("error leaks the password: %v", err)
	}
	if !strings.Contains(err.Error(), "bad MongoDB URL") {
		t.Errorf("error %q is not clear about the URL", err)
	}
	t.Logf("malformed: %v", err)

	_, err = targets.Open(ctx, scenarios.Target{Kind: "mongo", URL: "mongodb+srv://no-such-host.invalid/"}, targets.Options{})
	if err == nil {
		t.Error("mongodb+srv:// with a host that does not resolve accepted")
	} else {
		t.Logf("srv: %v", err)
	}

	tg := open(t, "mongodb://"+freePort(t)+"/?serverSelectionTimeoutMS=500")
	start := time.Now()
	err = tg.(targets.Preparer).Prepare(ctx, scenario(map[string]float64{"read": 100}))
	if err == nil || !strings.Contains(err.Error(), "not reachable") {
		t.Fatalf("Prepare against nothing: err = %v", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("Prepare took %v to give up", time.Since(start))
	}
	if c := targets.Classify(tg, err); c != targets.ClassConnection {
		t.Errorf("unreachable classified %s, want connection", c)
	}
}

// TestReconnect stops FerretDB under a connected target, checks ops fail
// as connection errors, restarts it on the same port and data directory
// and checks the target recovers by itself.
func TestReconnect(t *testing.T) {
	dir := t.TempDir()
	f := startFerret(t, "127.0.0.1:0", dir)
	tg := open(t, testURL(f))
	ctx := context.Background()
	if err := tg.(targets.Preparer).Prepare(ctx, scenario(map[string]float64{"read": 100})); err != nil {
		t.Fatal(err)
	}
	if err := tg.Do(ctx, insertReq(1)); err != nil {
		t.Fatal(err)
	}
	f.stop()

	read := &targets.Request{Op: scenarios.OpRead, Key: key(1)}
	var err error
	for i := 0; i < 3; i++ {
		if err = tg.Do(ctx, read); err != nil {
			break
		}
	}
	if err == nil {
		t.Fatal("reads succeed with the server stopped")
	}
	if c := targets.Classify(tg, err); c != targets.ClassConnection {
		t.Errorf("read with server down: classified %s (%v), want connection", c, err)
	}

	startFerret(t, f.addr, dir)
	deadline := time.Now().Add(20 * time.Second)
	for {
		err = tg.Do(ctx, read)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no recovery 20s after restart: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := tg.Do(ctx, insertReq(2)); err != nil {
		t.Errorf("insert after restart: %v", err)
	}
}

// TestURIAndClientOptions runs ops with URI options passed through and
// with the scenario's read preference / write concern overriding them.
func TestURIAndClientOptions(t *testing.T) {
	f := startFerret(t, "127.0.0.1:0", t.TempDir())
	ctx := context.Background()
	for i, tc := range []scenarios.Target{
		{Kind: "mongo", URL: testURL(f) + "&w=majority&journal=true&readPreference=secondaryPreferred&retryWrites=false&compressors=zlib,snappy"},
		{Kind: "mongo", URL: testURL(f) + "&w=majority&readPreference=secondaryPreferred",
			Client: scenarios.ClientOf(scenarios.ClientCommon{PoolSize: 4, ReadTimeout: scenarios.Duration(5 * time.Second), WriteTimeout: scenarios.Duration(5 * time.Second)}, soakmongo.ClientConfig{ReadPreference: "nearest", WriteConcern: "1, j", Collection: "other"})},
	} {
		tg, err := targets.Open(ctx, tc, targets.Options{})
		if err != nil {
			t.Fatalf("%d: open: %v", i, err)
		}
		defer tg.Close()
		if err := tg.(targets.Preparer).Prepare(ctx, scenario(map[string]float64{"read": 100})); err != nil {
			t.Fatalf("%d: Prepare: %v", i, err)
		}
		if err := tg.Do(ctx, insertReq(int64(i))); err != nil {
			t.Errorf("%d: insert: %v", i, err)
		}
		if err := tg.Do(ctx, &targets.Request{Op: scenarios.OpRead, Key: key(int64(i))}); err != nil {
			t.Errorf("%d: read: %v", i, err)
		}
	}
	cl, err := mongo.Connect(ctx, options.Client().ApplyURI(f.uri))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Disconnect(ctx)
	if n, err := cl.Database("soakd").Collection("other").CountDocuments(ctx, bson.D{}); err != nil || n != 1 {
		t.Errorf("client.collection ignored: %d docs in soakd.other, %v", n, err)
	}
}
