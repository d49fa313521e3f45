package cql

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/binary"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/soakd/soakd/engine"
	"github.com/soakd/soakd/internal/testutil"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
	"github.com/soakd/soakd/targets/cql/cqltest"
)

func startServer(t *testing.T) *cqltest.Server {
	t.Helper()
	s, err := cqltest.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func openT(t *testing.T, url string, st scenarios.Target, o targets.Options) *Target {
	t.Helper()
	st.URL = url
	if st.Kind == "" {
		st.Kind = "cql"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	tg, err := targets.Open(ctx, st, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close() })
	return tg.(*Target)
}

func prepareT(t *testing.T, tg *Target, fields int) {
	t.Helper()
	sc := &scenarios.Scenario{Record: scenarios.Record{Fields: fields}}
	if err := tg.Prepare(context.Background(), sc); err != nil {
		t.Fatal(err)
	}
}

func record(op scenarios.Op, key string, fields int) *targets.Request {
	r := &targets.Request{Op: op, Key: []byte(key)}
	for i := 0; i < fields; i++ {
		r.Fields = append(r.Fields, targets.Field{Name: scenarios.FieldName(i), Value: []byte(fmt.Sprintf("%s-v%d", key, i))})
	}
	return r
}

// requestsFor returns the QUERY/EXECUTE requests whose statement holds sub.
func requestsFor(s *cqltest.Server, sub string, ops ...byte) []cqltest.Request {
	var out []cqltest.Request
	for _, r := range s.Requests() {
		if !strings.Contains(r.Stmt, sub) {
			continue
		}
		for _, op := range ops {
			if r.Opcode == op {
				out = append(out, r)
			}
		}
	}
	return out
}

const (
	clOne    = 0x0001
	clQuorum = 0x0004
	clAll    = 0x0005
	clLQ     = 0x0006
)

func TestParseURL(t *testing.T) {
	c, err := ParseURL("cql://db1,db2:9043,[::1]/shop?consistency=LOCAL_QUORUM&read_consistency=one&page_size=50&timeout=2s&replication=NetworkTopologyStrategy:dc1=3,dc2=2&local_dc=dc1&table=t1")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"db1:9042", "db2:9043", "[::1]:9042"}; fmt.Sprint(c.Hosts) != fmt.Sprint(want) {
		t.Errorf("hosts %v, want %v", c.Hosts, want)
	}
	if c.Keyspace != "shop" || c.Table != "t1" || c.PageSize != 50 || c.Timeout != 2*time.Second || c.LocalDC != "dc1" {
		t.Errorf("config %+v", c)
	}
	if c.Read != gocql.One || c.Write != gocql.LocalQuorum {
		t.Errorf("consistency read %v write %v", c.Read, c.Write)
	}
	if got := c.Replication.CQL(); got != "{'class': 'NetworkTopologyStrategy', 'dc1': 3, 'dc2': 2}" {
		t.Errorf("replication %s", got)
	}
	d, err := ParseURL("cqls://h")
	if err != nil || !d.TLS || d.Keyspace != DefaultKeyspace || d.Read != gocql.Quorum || d.Replication.CQL() != "{'class': 'SimpleStrategy', 'replication_factor': 1}" {
		t.Errorf("defaults: %+v %v", d, err)
	}
	_, err = ParseURL("cql://u:pw@h/ks-x?consistency=MOST&page_size=0&bogus=1&replication=Foo:1")
	if err != nil && strings.Contains(err.Error(), "\n") {
		t.Errorf("a multi-line error: %v", err)
	}
	for _, want := range []string{"password", "keyspace", "consistency", "page_size", "bogus", "replication"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("bad URL: want a problem about %s in %v", want, err)
		}
	}
	if _, err := ParseURL("redis://h"); err == nil {
		t.Error("redis:// accepted")
	}
}

// TestValidateCQLURL: soakd validate reports a CQL URL's problems, each
// at target.url with its line, through the same parser the target uses.
func TestValidateCQLURL(t *testing.T) {
	_, err := targets.ParseScenario("bad.yaml", []byte("name: x\ntarget:\n  kind: scylla\n  url: \"cql://h/ks?consistancy=ONE&read_consistency=MOST&replication=SimpleStrategy:0\"\nphases: [{kind: steady, rate: 10, duration: 1s, mix: {read: 100}}]\n"))
	var ps scenarios.Problems
	if !errors.As(err, &ps) {
		t.Fatalf("not Problems: %v", err)
	}
	var msgs []string
	for _, p := range ps {
		msgs = append(msgs, p.Error())
	}
	all := strings.Join(msgs, "\n")
	for _, want := range []string{"bad.yaml:4", "consistancy", "MOST", "replication factor"} {
		if !strings.Contains(all, want) {
			t.Errorf("problems lack %q:\n%s", want, all)
		}
	}
	if len(ps) != 3 {
		t.Errorf("%d problems, want 3:\n%s", len(ps), all)
	}
}

func TestKindsAndSchemes(t *testing.T) {
	if k := scenarios.KindOfURL(targets.Stores(), "cql://h/ks"); k != "cql" {
		t.Errorf("KindOfURL(cql://) = %q", k)
	}
	if k := scenarios.KindOfURL(targets.Stores(), "cqls://h/ks"); k != "cql" {
		t.Errorf("KindOfURL(cqls://) = %q", k)
	}
	kinds := strings.Join(targets.Kinds(), ",")
	for _, k := range []string{"cql", "scylla", "cassandra"} {
		if !strings.Contains(kinds, k) {
			t.Errorf("kind %s not registered (%s)", k, kinds)
		}
	}
	for _, kind := range []string{"cql", "scylla", "cassandra"} {
		sc, err := targets.ParseScenario("k.yaml", []byte("target: {kind: "+kind+", url: \"cql://127.0.0.1/ks\"}\nphases: [{kind: steady, rate: 10, duration: 1s, mix: {read: 100}}]\n"))
		if err != nil {
			t.Errorf("kind %s: %v", kind, err)
			continue
		}
		if string(sc.Target.Kind) != kind || sc.StoreKind() != "cql" {
			t.Errorf("kind %s became %s (store %s)", kind, sc.Target.Kind, sc.StoreKind())
		}
	}
	if _, err := targets.ParseScenario("k.yaml", []byte("target: {kind: mongo, url: \"cql://127.0.0.1/ks\"}\nphases: [{kind: steady, rate: 10, duration: 1s, mix: {read: 100}}]\n")); err == nil {
		t.Error("kind mongo with a cql:// URL accepted")
	}
}

// TestOpsSendExactRequests drives each op and checks the statements,
// the consistency of reads and writes, that statements are prepared once
// and executed by id, and what the in-memory table holds after.
func TestOpsSendExactRequests(t *testing.T) {
	s := startServer(t)
	tg := openT(t, "cql://"+s.Addr()+"/ycsb?read_consistency=ONE&write_consistency=ALL&replication=SimpleStrategy:3", scenarios.Target{}, targets.Options{Concurrency: 8})
	prepareT(t, tg, 3)
	if r, ok := s.Keyspace("ycsb"); !ok || r != "{'class': 'SimpleStrategy', 'replication_factor': 3}" {
		t.Fatalf("keyspace: %q %v", r, ok)
	}
	ctx := context.Background()
	for i := 0; i < 5; i++ {
		if err := tg.Do(ctx, record(scenarios.OpInsert, fmt.Sprintf("user%d", i), 3)); err != nil {
			t.Fatal(err)
		}
	}
	if n := s.Rows("ycsb.usertable"); n != 5 {
		t.Fatalf("rows %d, want 5", n)
	}
	if got := s.Row("ycsb.usertable", "user3"); got["field2"] != "user3-v2" || got["y_id"] != "user3" {
		t.Errorf("row user3: %v", got)
	}
	for i := 0; i < 3; i++ {
		if err := tg.Do(ctx, &targets.Request{Op: scenarios.OpRead, Key: []byte("user1")}); err != nil {
			t.Fatal(err)
		}
	}
	err := tg.Do(ctx, &targets.Request{Op: scenarios.OpRead, Key: []byte("nobody")})
	if !errors.Is(err, targets.ErrNotFound) || targets.Classify(tg, err) != targets.ClassNotFound {
		t.Errorf("read of a missing row: %v", err)
	}
	upd := &targets.Request{Op: scenarios.OpUpdate, Key: []byte("user2"), Fields: []targets.Field{{Name: "field1", Value: []byte("new")}}}
	if err := tg.Do(ctx, upd); err != nil {
		t.Fatal(err)
	}
	if got := s.Row("ycsb.usertable", "user2"); got["field1"] != "new" || got["field0"] != "user2-v0" {
		t.Errorf("after update: %v", got)
	}
	rmw := &targets.Request{Op: scenarios.OpRMW, Key: []byte("user4"), Fields: []targets.Field{{Name: "field0", Value: []byte("rmw")}}}
	if err := tg.Do(ctx, rmw); err != nil {
		t.Fatal(err)
	}
	if err := tg.Do(ctx, &targets.Request{Op: scenarios.OpDelete, Key: []byte("user0")}); err != nil {
		t.Fatal(err)
	}
	if s.Row("ycsb.usertable", "user0") != nil || s.Row("ycsb.usertable", "user4")["field0"] != "rmw" {
		t.Error("delete or rmw did not land")
	}

	// Reads at ONE, writes at ALL, every one an EXECUTE of a prepared id.
	checks := []struct {
		sub  string
		cl   uint16
		want int
	}{
		{"INSERT INTO ycsb.usertable (y_id, field0, field1, field2) VALUES (?, ?, ?, ?)", clAll, 5},
		{"SELECT y_id, field0, field1, field2 FROM ycsb.usertable WHERE y_id = ?", clOne, 5}, // 3 + missing + rmw
		{"UPDATE ycsb.usertable SET field1 = ? WHERE y_id = ?", clAll, 1},
		{"UPDATE ycsb.usertable SET field0 = ? WHERE y_id = ?", clAll, 1},
		{"DELETE FROM ycsb.usertable WHERE y_id = ?", clAll, 1},
	}
	for _, c := range checks {
		ex := requestsFor(s, c.sub, cqltest.OpExecute)
		if len(ex) != c.want {
			t.Errorf("%s: %d EXECUTEs, want %d", c.sub, len(ex), c.want)
		}
		for _, r := range ex {
			if r.Consistency != c.cl {
				t.Errorf("%s: consistency 0x%04x, want 0x%04x", c.sub, r.Consistency, c.cl)
			}
		}
		if q := requestsFor(s, c.sub, cqltest.OpQuery); len(q) != 0 {
			t.Errorf("%s: sent as %d unprepared QUERYs", c.sub, len(q))
		}
		prep := requestsFor(s, c.sub, cqltest.OpPrepare)
		if len(prep) != 1 {
			t.Errorf("%s: prepared %d times, want once (one host)", c.sub, len(prep))
		}
		if len(ex) > 1 && !bytes.Equal(ex[0].PreparedID, ex[len(ex)-1].PreparedID) {
			t.Errorf("%s: prepared id changed between executions", c.sub)
		}
	}
	// Values: the key is bound last in an update, first in an insert.
	ins := requestsFor(s, "INSERT INTO", cqltest.OpExecute)[0]
	if string(ins.Values[0]) != "user0" || string(ins.Values[3]) != "user0-v2" {
		t.Errorf("insert values %q", ins.Values)
	}
	// DDL went through as QUERYs.
	for _, sub := range []string{"CREATE KEYSPACE IF NOT EXISTS ycsb WITH replication", "CREATE TABLE IF NOT EXISTS ycsb.usertable (y_id text PRIMARY KEY, field0 text, field1 text, field2 text)", "CREATE TABLE IF NOT EXISTS ycsb.soakd_barriers (k text PRIMARY KEY, n counter)"} {
		if len(requestsFor(s, sub, cqltest.OpQuery)) != 1 {
			t.Errorf("no QUERY %q", sub)
		}
	}
	// The handshake: OPTIONS, STARTUP, and REGISTER on the control
	// connection for topology, status and schema events.
	seen := map[byte]int{}
	var events []string
	for _, r := range s.Requests() {
		seen[r.Opcode]++
		if r.Opcode == cqltest.OpRegister {
			events = r.Events
		}
	}
	// Two sessions: Open's, then Prepare's, bound to the keyspace.
	if seen[cqltest.OpOptions] == 0 || seen[cqltest.OpStartup] == 0 || seen[cqltest.OpRegister] != 2 {
		t.Errorf("handshake frames %v", seen)
	}
	// The keyspace-bound session: USE on its connections, and the
	// token-aware policy read the keyspace's replication to place replicas.
	if len(requestsFor(s, `USE "ycsb"`, cqltest.OpQuery)) == 0 {
		t.Error("no USE of the keyspace")
	}
	ksMeta := false
	for _, r := range requestsFor(s, "FROM system_schema.keyspaces", cqltest.OpQuery, cqltest.OpExecute) {
		if len(r.Values) == 1 && string(r.Values[0]) == "ycsb" {
			ksMeta = true
		}
	}
	if !ksMeta {
		t.Error("the driver never read ycsb's replication (token-aware replicas)")
	}
	// What the token-aware policy reads to place replicas.
	if km, err := tg.sess().KeyspaceMetadata("ycsb"); err != nil || km.StrategyClass != "SimpleStrategy" || fmt.Sprint(km.StrategyOptions["replication_factor"]) != "3" {
		t.Errorf("keyspace metadata: %+v %v", km, err)
	}
	if !strings.Contains(strings.Join(events, ","), "TOPOLOGY_CHANGE") {
		t.Errorf("REGISTER events %v", events)
	}
	if d := tg.Describe(); !strings.Contains(d, "CQL 3.0.8") || !strings.Contains(d, "soakd test cluster") {
		t.Errorf("Describe: %s", d)
	}
}

// TestScanPages scans with a small page size: the first EXECUTE has no
// paging state, the next ones carry the state the server returned, and
// every row up to the limit arrives.
func TestScanPages(t *testing.T) {
	s := startServer(t)
	tg := openT(t, "cql://"+s.Addr()+"/ycsb?page_size=10&consistency=LOCAL_QUORUM", scenarios.Target{}, targets.Options{})
	prepareT(t, tg, 2)
	ctx := context.Background()
	for i := 0; i < 40; i++ {
		if err := tg.Do(ctx, record(scenarios.OpInsert, fmt.Sprintf("user%03d", i), 2)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tg.Do(ctx, &targets.Request{Op: scenarios.OpScan, Key: []byte("user005"), ScanLen: 25}); err != nil {
		t.Fatal(err)
	}
	ex := requestsFor(s, "WHERE token(y_id) >= token(?) LIMIT ?", cqltest.OpExecute)
	if len(ex) != 3 {
		t.Fatalf("%d scan pages, want 3 (25 rows, 10 per page)", len(ex))
	}
	for i, r := range ex {
		if r.PageSize != 10 || r.Consistency != clLQ {
			t.Errorf("page %d: page size %d consistency 0x%04x", i, r.PageSize, r.Consistency)
		}
		if string(r.Values[0]) != "user005" || binary.BigEndian.Uint32(r.Values[1]) != 25 {
			t.Errorf("page %d: values %q", i, r.Values)
		}
		wantState := []byte(nil)
		if i > 0 {
			wantState = binary.BigEndian.AppendUint32(nil, uint32(10*i))
		}
		if !bytes.Equal(r.PagingState, wantState) {
			t.Errorf("page %d: paging state %x, want %x", i, r.PagingState, wantState)
		}
	}
}

func TestBatchInserts(t *testing.T) {
	s := startServer(t)
	plain := openT(t, "cql://"+s.Addr()+"/ycsb", scenarios.Target{}, targets.Options{})
	if plain.MaxBatch() != 1 || plain.Batchable(scenarios.OpInsert) {
		t.Error("inserts are batched without batch=unlogged")
	}
	tg := openT(t, "cql://"+s.Addr()+"/ycsb?batch=unlogged&write_consistency=ONE", scenarios.Target{}, targets.Options{})
	prepareT(t, tg, 2)
	if tg.MaxBatch() != DefaultMaxBatch || !tg.Batchable(scenarios.OpInsert) || tg.Batchable(scenarios.OpRead) {
		t.Error("batch=unlogged: inserts only")
	}
	reqs := []*targets.Request{record(scenarios.OpInsert, "a", 2), record(scenarios.OpInsert, "b", 2), record(scenarios.OpInsert, "c", 2)}
	errs := make([]error, len(reqs))
	tg.DoBatch(context.Background(), reqs, errs)
	for i, err := range errs {
		if err != nil {
			t.Errorf("insert %d: %v", i, err)
		}
	}
	if s.Rows("ycsb.usertable") != 3 {
		t.Errorf("rows %d", s.Rows("ycsb.usertable"))
	}
	var batches []cqltest.Request
	for _, r := range s.Requests() {
		if r.Opcode == cqltest.OpBatch {
			batches = append(batches, r)
		}
	}
	if len(batches) != 1 || batches[0].BatchType != 1 || len(batches[0].Batch) != 3 || batches[0].Consistency != clOne {
		t.Fatalf("batches: %+v", batches)
	}
	if b := batches[0].Batch[1]; b.PreparedID == nil || string(b.Values[0]) != "b" {
		t.Errorf("batch statement: %+v", b)
	}
	for i, r := range reqs {
		if r.End.IsZero() {
			t.Errorf("insert %d: no End", i)
		}
	}
	// One node owns every token: the policy names it for any key.
	if h := tg.replicaOf([]byte("anything")); h != "5e1f2a3b-4c5d-4e6f-8091-a2b3c4d5e6f7" {
		t.Errorf("replicaOf: %q", h)
	}
}

func TestGroupBy(t *testing.T) {
	owner := map[int]string{0: "a", 1: "b", 2: "a", 3: "c", 4: "b", 5: "a"}
	got := groupBy([]int{0, 1, 2, 3, 4, 5}, func(i int) string { return owner[i] })
	if fmt.Sprint(got) != "[[0 2 5] [1 4] [3]]" {
		t.Errorf("groups %v", got)
	}
}

func TestErrorsClassified(t *testing.T) {
	s := startServer(t)
	var code atomic.Int32
	s.SetFail(func(r *cqltest.Request) *cqltest.Error {
		if c := code.Load(); c != 0 && r.Opcode == cqltest.OpExecute {
			return &cqltest.Error{Code: int(c), Msg: "injected", Consistency: r.Consistency}
		}
		return nil
	})
	tg := openT(t, "cql://"+s.Addr()+"/ycsb", scenarios.Target{}, targets.Options{})
	prepareT(t, tg, 1)
	cases := []struct {
		code  int
		class string
		kind  string
	}{
		{cqltest.ErrUnavailable, targets.ClassRejected, "unavailable"},
		{cqltest.ErrOverloaded, targets.ClassRejected, "overloaded"},
		{cqltest.ErrWriteTimeout, targets.ClassTimeout, "write_timeout"},
		{cqltest.ErrReadTimeout, targets.ClassTimeout, "read_timeout"},
		{cqltest.ErrWriteFailure, targets.ClassRejected, "write_failure"},
		{cqltest.ErrInvalid, targets.ClassOther, "other"},
	}
	for _, c := range cases {
		code.Store(int32(c.code))
		err := tg.Do(context.Background(), record(scenarios.OpInsert, "k", 1))
		if err == nil {
			t.Errorf("code 0x%04x: no error", c.code)
			continue
		}
		if got := targets.Classify(tg, err); got != c.class {
			t.Errorf("code 0x%04x: class %s, want %s (%v)", c.code, got, c.class, err)
		}
	}
	code.Store(0)
	st, err := tg.ServerStats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if st["cql_errors_"+c.kind+"_total"] != 1 {
			t.Errorf("cql_errors_%s_total = %v", c.kind, st["cql_errors_"+c.kind+"_total"])
		}
	}
	if st["cql_hosts_up"] != 1 || st["cql_hosts_known"] != 1 || st["cql_local_tokens"] != 1 || st["cql_peers"] != 0 {
		t.Errorf("stats %v", st)
	}
	// The server going away is a connection error, never a hang.
	s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = tg.Do(ctx, &targets.Request{Op: scenarios.OpRead, Key: []byte("k")})
	if got := targets.Classify(tg, err); got != targets.ClassConnection {
		t.Errorf("server closed: class %s (%v)", got, err)
	}
}

func TestAuthFromEnv(t *testing.T) {
	s := startServer(t)
	s.SetAuth("soak", "s3cret-pw")
	env := map[string]string{"CQL_USER": "soak", "CQL_PASS": "s3cret-pw", "WRONG": "nope-nope"}
	o := targets.Options{Env: func(k string) string { return env[k] }}
	tg := openT(t, "cql://"+s.Addr()+"/ycsb", scenarios.Target{Auth: scenarios.Auth{UsernameEnv: "CQL_USER", PasswordEnv: "CQL_PASS"}}, o)
	prepareT(t, tg, 1)
	var got map[string]string
	for _, r := range s.Requests() {
		if r.Opcode == cqltest.OpStartup {
			got = r.Options
		}
	}
	if got["CQL_VERSION"] == "" {
		t.Errorf("STARTUP options %v", got)
	}
	_, err := targets.Open(context.Background(), scenarios.Target{Kind: "cql", URL: "cql://soak@" + s.Addr() + "/ycsb", Auth: scenarios.Auth{PasswordEnv: "WRONG"}}, o)
	if err == nil {
		t.Fatal("wrong password accepted")
	}
	if strings.Contains(err.Error(), "nope-nope") {
		t.Errorf("error shows the password: %v", err)
	}
	if _, err := targets.Open(context.Background(), scenarios.Target{Kind: "cql", URL: "cql://" + s.Addr(), Auth: scenarios.Auth{PasswordEnv: "UNSET"}}, o); err == nil || !strings.Contains(err.Error(), "UNSET") {
		t.Errorf("empty password variable: %v", err)
	}
}

func TestBarrier(t *testing.T) {
	s := startServer(t)
	a := openT(t, "cql://"+s.Addr()+"/ycsb?consistency=ONE", scenarios.Target{}, targets.Options{})
	b := openT(t, "cql://"+s.Addr()+"/ycsb?consistency=ONE", scenarios.Target{}, targets.Options{})
	prepareT(t, a, 1)
	prepareT(t, b, 1)
	ctx := context.Background()
	if n, err := a.Arrived(ctx, "run1/p0"); err != nil || n != 0 {
		t.Fatalf("before: %d %v", n, err)
	}
	c := openT(t, "cql://"+s.Addr()+"/ycsb?consistency=ONE", scenarios.Target{}, targets.Options{})
	prepareT(t, c, 1)
	shards := []targets.Barrier{a, b, c}
	next := 0
	testutil.StaggeredBarrier(t, ctx, func() targets.Barrier { next++; return shards[next-1] }, "run1/p0", 3, 100*time.Millisecond, 10*time.Second)
	for _, r := range requestsFor(s, "soakd_barriers", cqltest.OpExecute) {
		if r.Consistency != clQuorum {
			t.Errorf("barrier %q at consistency 0x%04x, want QUORUM", r.Stmt, r.Consistency)
		}
	}
	// A fourth arrival is a reused key: an error, not a pass.
	if err := targets.WaitBarrier(ctx, a, "run1/p0", targets.BarrierWait{N: 3, Timeout: time.Second}); err == nil {
		t.Error("fourth arrival passed")
	}
}

// TestThroughEngine loads records and runs a 50/50 read/update mix
// through engine.Run: every op succeeds, the table holds the records,
// and the requests the engine's ops produced are reads at the read
// consistency and updates at the write consistency.
func TestThroughEngine(t *testing.T) {
	s := startServer(t)
	url := "cql://" + s.Addr() + "/ycsb?read_consistency=ONE&write_consistency=QUORUM"
	sc, err := targets.ParseScenario("cql.yaml", []byte(`
target: {kind: scylla, url: "`+url+`"}
record: {fields: 4, field_bytes: 20}
keyspace: {records: 300}
phases:
  - {name: load, kind: load, concurrency: 4}
  - {name: run, kind: steady, rate: 400, duration: 1s, concurrency: 4, mix: {read: 50, update: 50}}
`))
	if err != nil {
		t.Fatal(err)
	}
	tg := openT(t, url, sc.Target, targets.Options{Concurrency: sc.MaxConcurrency()})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	sum, err := engine.Run(ctx, engine.Options{Scenario: sc, Target: tg, TargetKind: sc.Target.Kind, TargetURL: url, OutDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if n := s.Rows("ycsb.usertable"); n != 300 {
		t.Errorf("rows %d, want 300", n)
	}
	var ops = map[string]int64{}
	for _, p := range sum.Phases {
		for name, o := range p.Ops {
			ops[p.Name+"/"+name] += o.Count
			for class, n := range o.Errors {
				if n != 0 {
					t.Errorf("phase %s op %s: %d %s errors", p.Name, name, n, class)
				}
			}
		}
	}
	if ops["load/insert"] != 300 {
		t.Errorf("load inserts %d, want 300", ops["load/insert"])
	}
	if ops["run/read"] == 0 || ops["run/update"] == 0 || ops["run/read"]+ops["run/update"] < 300 {
		t.Errorf("steady ops %v", ops)
	}
	reads := requestsFor(s, "SELECT y_id, field0, field1, field2, field3 FROM ycsb.usertable WHERE y_id = ?", cqltest.OpExecute)
	if int64(len(reads)) != ops["run/read"] {
		t.Errorf("%d read EXECUTEs, engine counted %d reads", len(reads), ops["run/read"])
	}
	for _, r := range reads {
		if r.Consistency != clOne {
			t.Fatalf("read at 0x%04x", r.Consistency)
		}
	}
	var updates int64
	for _, r := range s.Requests() {
		if r.Opcode == cqltest.OpExecute && strings.HasPrefix(r.Stmt, "UPDATE ycsb.usertable SET field") {
			updates++
			if r.Consistency != clQuorum {
				t.Fatalf("update at 0x%04x", r.Consistency)
			}
		}
	}
	if updates != ops["run/update"] {
		t.Errorf("%d update EXECUTEs, engine counted %d", updates, ops["run/update"])
	}
}

// TestCatalog checks the shipped scylla-*.yaml scenarios: each loads,
// names the scylla kind and a cql:// URL this adapter accepts, and the
// variants say what their names promise.
func TestCatalog(t *testing.T) {
	files, err := filepath.Glob("../../scenarios/scylla-*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]*scenarios.Scenario{}
	for _, f := range files {
		sc, err := targets.LoadScenario(f)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if sc.Target.Kind != "scylla" {
			t.Errorf("%s: kind %q", f, sc.Target.Kind)
		}
		if _, err := ParseURL(sc.Target.URL); err != nil {
			t.Errorf("%s: url: %v", f, err)
		}
		have[filepath.Base(f)] = sc
	}
	for _, w := range []string{"scylla-caching.yaml", "scylla-social.yaml", "scylla-sensor.yaml", "scylla-caching-500k-12h.yaml", "scylla-weak-consistency.yaml"} {
		if have[w] == nil {
			t.Errorf("scenarios/%s is missing", w)
		}
	}
	if sc := have["scylla-weak-consistency.yaml"]; sc != nil {
		c, _ := ParseURL(sc.Target.URL)
		if c.Read != gocql.One || c.Write != gocql.Quorum {
			t.Errorf("weak consistency: read %v write %v", c.Read, c.Write)
		}
	}
	if sc := have["scylla-caching-500k-12h.yaml"]; sc != nil {
		run := sc.Phases[len(sc.Phases)-1]
		if run.Rate != 500000 || run.Duration.D() != 12*time.Hour || run.Mix["read"] != 50 || run.Mix["update"] != 50 {
			t.Errorf("500k-12h: %+v", run)
		}
	}
}

// TestTokenAwareAcrossNodes runs against three nodes (127.0.0.1-3 on one
// port, the ring split in three, replication factor 1) that each keep
// only the rows sent to them. Every read of every inserted key finds
// its row only if reads and inserts of a key go to the same node, the
// token's owner; with round robin two reads in three would miss. Batched
// inserts (batch=unlogged) are grouped per owner: each node gets its own
// batch and every key is read back from its owner.
func TestTokenAwareAcrossNodes(t *testing.T) {
	nodes, err := cqltest.StartCluster(3)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		t.Cleanup(n.Close)
	}
	tg := openT(t, "cql://"+nodes[0].Addr()+"/ycsb?batch=unlogged&consistency=ONE", scenarios.Target{}, targets.Options{})
	prepareT(t, tg, 1)
	// Wait for the driver to know all three hosts up.
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, up := tg.hosts.Load().counts(); up == 3 {
			break
		}
		if time.Now().After(deadline) {
			known, up := tg.hosts.Load().counts()
			t.Fatalf("hosts known %d up %d, want 3", known, up)
		}
		time.Sleep(10 * time.Millisecond)
	}
	ctx := context.Background()
	const n = 150
	for i := 0; i < n; i++ {
		if err := tg.Do(ctx, record(scenarios.OpInsert, fmt.Sprintf("user%d", i), 1)); err != nil {
			t.Fatal(err)
		}
	}
	total := 0
	for i, nd := range nodes {
		rows := nd.Rows("ycsb.usertable")
		if rows == 0 {
			t.Errorf("node %d holds no rows: inserts did not spread over the ring", i)
		}
		total += rows
	}
	if total != n {
		t.Errorf("%d rows over the nodes, want %d", total, n)
	}
	for i := 0; i < n; i++ {
		if err := tg.Do(ctx, &targets.Request{Op: scenarios.OpRead, Key: []byte(fmt.Sprintf("user%d", i))}); err != nil {
			t.Fatalf("read user%d: %v (not sent to the node that took its insert)", i, err)
		}
	}
	var reqs []*targets.Request
	for i := 0; i < DefaultMaxBatch; i++ {
		reqs = append(reqs, record(scenarios.OpInsert, fmt.Sprintf("batch%d", i), 1))
	}
	errs := make([]error, len(reqs))
	tg.DoBatch(ctx, reqs, errs)
	for i, err := range errs {
		if err != nil {
			t.Fatalf("batched insert %d: %v", i, err)
		}
	}
	batches := 0
	for i, nd := range nodes {
		for _, r := range nd.Requests() {
			if r.Opcode == cqltest.OpBatch {
				batches++
				if len(r.Batch) < 1 {
					t.Errorf("node %d: empty batch", i)
				}
			}
		}
	}
	if batches < 2 || batches > 3 {
		t.Errorf("%d batches for %d keys over 3 nodes, want one per owner", batches, len(reqs))
	}
	for _, r := range reqs {
		if err := tg.Do(ctx, &targets.Request{Op: scenarios.OpRead, Key: r.Key}); err != nil {
			t.Errorf("read %s: %v (its batch went to a node that does not own it)", r.Key, err)
		}
	}
	st, err := tg.ServerStats(ctx)
	if err != nil || st["cql_peers"] != 2 || st["cql_hosts_up"] != 3 || st["cql_hosts_serving"] != 3 {
		t.Errorf("stats %v %v", st, err)
	}
	if lo, hi := st["cql_host_mean_request_seconds_min"], st["cql_host_mean_request_seconds_max"]; lo <= 0 || hi < lo {
		t.Errorf("per-host means: min %v max %v", lo, hi)
	}
}

func BenchmarkInsertArgsAndStatements(b *testing.B) {
	tg := &Target{table: "ycsb.usertable", inserts: map[int]string{}}
	r := record(scenarios.OpInsert, "user12345", 10)
	u := []targets.Field{{Name: "field3", Value: []byte("v")}}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_ = tg.insertStmt(r.Fields)
		_ = insertArgs(r)
		_ = tg.updateStmt(u)
	}
}

// scyllaExposition is a cut of what a ScyllaDB node's :9180/metrics
// serves: per-shard series with labels, HELP/TYPE comments.
const scyllaExposition = `# HELP scylla_cache_bytes_used current bytes used by the cache out of the total size of memory
# TYPE scylla_cache_bytes_used gauge
scylla_cache_bytes_used{shard="0"} 1000
scylla_cache_bytes_used{shard="1"} 2000
# HELP scylla_reactor_utilization CPU utilization
# TYPE scylla_reactor_utilization gauge
scylla_reactor_utilization{shard="0"} 40
scylla_reactor_utilization{shard="1"} 60
# TYPE scylla_storage_proxy_coordinator_write_timeouts counter
scylla_storage_proxy_coordinator_write_timeouts{scheduling_group_name="statement",shard="0"} 3
scylla_storage_proxy_coordinator_write_timeouts{scheduling_group_name="statement",shard="1"} 4
# TYPE scylla_transport_requests_served counter
scylla_transport_requests_served_total{shard="0"} 7e+06
scylla_something_else{shard="0"} 99
`

func TestScyllaMetrics(t *testing.T) {
	s := startServer(t)
	hits := atomic.Int32{}
	prom := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path != "/metrics" {
			http.NotFound(w, r)
			return
		}
		io.WriteString(w, scyllaExposition)
	}))
	defer prom.Close()
	port := prom.Listener.Addr().(*net.TCPAddr).Port
	tg := openT(t, fmt.Sprintf("cql://%s/ycsb?metrics_port=%d", s.Addr(), port), scenarios.Target{}, targets.Options{})
	prepareT(t, tg, 1)
	st, err := tg.ServerStats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{
		"scylla_cache_bytes_used":                 3000,
		"scylla_reactor_utilization_percent":      50,
		"scylla_coordinator_write_timeouts_total": 7,
		"scylla_cql_requests_served_total":        7e6,
		"cql_metrics_scrape_errors_total":         0,
	}
	for k, v := range want {
		if got, ok := st[k]; !ok || got != v {
			t.Errorf("%s = %v (present %v), want %v", k, got, ok, v)
		}
	}
	if _, ok := st["scylla_cache_bytes_total"]; ok {
		t.Error("a figure the node does not serve is present")
	}
	if hits.Load() != 1 {
		t.Errorf("%d scrapes of one node", hits.Load())
	}
	prom.Close()
	st, err = tg.ServerStats(context.Background())
	if err != nil || st["cql_metrics_scrape_errors_total"] != 1 || st["cql_hosts_up"] != 1 {
		t.Errorf("node metrics down: %v %v", st, err)
	}
}

func writeCert(t *testing.T, dir, name string, tmpl, parent *x509.Certificate, parentKey *ecdsa.PrivateKey) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if parent == nil {
		parent, parentKey = tmpl, k
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &k.PublicKey, parentKey)
	if err != nil {
		t.Fatal(err)
	}
	kb, _ := x509.MarshalECPrivateKey(k)
	if err := os.WriteFile(filepath.Join(dir, name+".crt"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".key"), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		t.Fatal(err)
	}
	c, _ := x509.ParseCertificate(der)
	return c, k
}

// TestTLS: cqls:// with tls.ca_file verifies the node's certificate
// against the address dialled (127.0.0.1); without the CA, or with a
// server_name the certificate does not hold, the connection is refused.
func TestTLS(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	ca, caKey := writeCert(t, dir, "ca", &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "soakd test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}, nil, nil)
	writeCert(t, dir, "node", &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "node1"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour), KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}, ca, caKey)
	cert, err := tls.LoadX509KeyPair(filepath.Join(dir, "node.crt"), filepath.Join(dir, "node.key"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := cqltest.StartTLS(&tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	tg := openT(t, "cqls://"+s.Addr()+"/ycsb", scenarios.Target{TLS: scenarios.TLS{CAFile: filepath.Join(dir, "ca.crt")}}, targets.Options{})
	prepareT(t, tg, 1)
	if err := tg.Do(context.Background(), record(scenarios.OpInsert, "k", 1)); err != nil {
		t.Fatal(err)
	}
	for name, st := range map[string]scenarios.Target{
		"no CA":      {Kind: "cql", URL: "cqls://" + s.Addr() + "/ycsb"},
		"wrong name": {Kind: "cql", URL: "cqls://" + s.Addr() + "/ycsb", TLS: scenarios.TLS{CAFile: filepath.Join(dir, "ca.crt"), ServerName: "other.test"}},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		tg, err := targets.Open(ctx, st, targets.Options{})
		cancel()
		if err == nil {
			tg.Close()
			t.Errorf("%s: connected", name)
		}
	}
}

// TestBatchedLoadThroughEngine loads through engine.Run with
// batch=unlogged at 20000 inserts/s (the pacer wakes at most every
// ~100 us, so each wake has several inserts due): the engine hands the
// adapter bursts of due inserts, they arrive as UNLOGGED BATCH frames of
// more than one insert, and every record lands, without errors.
func TestBatchedLoadThroughEngine(t *testing.T) {
	s := startServer(t)
	url := "cql://" + s.Addr() + "/ycsb?batch=unlogged&write_consistency=ONE"
	sc, err := targets.ParseScenario("cql.yaml", []byte(`
target: {kind: cql, url: "`+url+`"}
record: {fields: 2, field_bytes: 20}
keyspace: {records: 2000}
phases:
  - {name: load, kind: load, concurrency: 2, rate: 20000, max_lag: 60s}
`))
	if err != nil {
		t.Fatal(err)
	}
	tg := openT(t, url, sc.Target, targets.Options{Concurrency: sc.MaxConcurrency()})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	sum, err := engine.Run(ctx, engine.Options{Scenario: sc, Target: tg, TargetKind: sc.Target.Kind, TargetURL: url, OutDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if n := s.Rows("ycsb.usertable"); n != 2000 {
		t.Errorf("rows %d, want 2000", n)
	}
	ins := sum.Phases[0].Ops["insert"]
	if ins.Count != 2000 || ins.Dropped != 0 {
		t.Errorf("inserts: count %d dropped %d", ins.Count, ins.Dropped)
	}
	for class, n := range ins.Errors {
		if n != 0 {
			t.Errorf("%d %s errors", n, class)
		}
	}
	var batched, statements int
	for _, r := range s.Requests() {
		if r.Opcode == cqltest.OpBatch {
			batched++
			statements += len(r.Batch)
			if r.BatchType != 1 || r.Consistency != clOne {
				t.Fatalf("batch type %d consistency 0x%04x", r.BatchType, r.Consistency)
			}
		}
	}
	if batched == 0 || statements <= batched {
		t.Errorf("%d batches holding %d inserts: the engine's bursts were not batched", batched, statements)
	}
	t.Logf("%d batches, %d inserts in them", batched, statements)
}

// viewAttempts counts the requests (PREPARE, QUERY, EXECUTE) naming a
// system_views table.
func viewAttempts(s *cqltest.Server, table string) int {
	n := 0
	for _, r := range s.Requests() {
		if strings.Contains(r.Stmt, "system_views."+table) {
			n++
		}
	}
	return n
}

func TestSystemViews(t *testing.T) {
	s := startServer(t)
	s.SetViews(&cqltest.Views{
		ThreadPools: []cqltest.ThreadPool{
			{Name: "ReadStage", Active: 3, ActiveLimit: 32, Pending: 5, Blocked: 0, Completed: 1000},
			{Name: "MutationStage", Active: 2, ActiveLimit: 32, Pending: 7, Completed: 2000},
			{Name: "Native-Transport-Requests", Active: 4, ActiveLimit: 128, Pending: 1, Blocked: 2, BlockedAllTime: 9, Completed: 3000},
			{Name: "CompactionExecutor", Active: 1, ActiveLimit: 2, Pending: 6},
			{Name: "GossipStage", Active: 1, Pending: 10, Blocked: 1},
		},
		Clients: 3,
	})
	tg := openT(t, "cql://"+s.Addr()+"/ycsb", scenarios.Target{}, targets.Options{})
	prepareT(t, tg, 1)
	st, err := tg.ServerStats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{
		"cql_thread_pool_active_tasks":                            11,
		"cql_thread_pool_pending_tasks":                           29,
		"cql_thread_pool_blocked_tasks":                           3,
		"cql_thread_pool_read_stage_active_tasks":                 3,
		"cql_thread_pool_read_stage_pending_tasks":                5,
		"cql_thread_pool_mutation_stage_pending_tasks":            7,
		"cql_thread_pool_native_transport_requests_active_tasks":  4,
		"cql_thread_pool_native_transport_requests_pending_tasks": 1,
		"cql_thread_pool_compaction_executor_pending_tasks":       6,
		"cql_native_clients":                                      3,
	}
	for k, v := range want {
		if got, ok := st[k]; !ok || got != v {
			t.Errorf("%s = %v (present %v), want %v", k, got, ok, v)
		}
	}
	for k := range st {
		if strings.Contains(strings.ToLower(k), "gossip") {
			t.Errorf("pool outside the fixed set reported: %s", k)
		}
	}
	// Still read on every call while the server has them.
	if _, err := tg.ServerStats(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := viewAttempts(s, "thread_pools"); n < 2 {
		t.Errorf("thread_pools read %d times over two stats calls", n)
	}
}

func TestSystemViewsAbsent(t *testing.T) {
	// The default server, like Cassandra 3 and ScyllaDB, has no
	// system_views keyspace: stats succeed without the figures and the
	// tables are asked for once, not at every call.
	s := startServer(t)
	tg := openT(t, "cql://"+s.Addr()+"/ycsb", scenarios.Target{}, targets.Options{})
	prepareT(t, tg, 1)
	var first [2]int
	for i := 0; i < 4; i++ {
		st, err := tg.ServerStats(context.Background())
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if i == 0 {
			// One attempt may be two PREPAREs: the token-aware policy
			// prepares for the routing key, then the query prepares.
			first = [2]int{viewAttempts(s, "thread_pools"), viewAttempts(s, "clients")}
		}
		if st["cql_hosts_up"] != 1 || st["cql_local_tokens"] != 1 {
			t.Errorf("call %d: stats %v", i, st)
		}
		for k := range st {
			if strings.HasPrefix(k, "cql_thread_pool_") || k == "cql_native_clients" {
				t.Errorf("call %d: %s present without system_views", i, k)
			}
		}
	}
	for i, tb := range []string{"thread_pools", "clients"} {
		if n := viewAttempts(s, tb); first[i] == 0 || n != first[i] {
			t.Errorf("system_views.%s: %d requests in the first stats call, %d after 4 calls, want the first call's only", tb, first[i], n)
		}
	}
	// A transient failure (not the server saying the table is missing)
	// does not switch the query off.
	s2 := startServer(t)
	s2.SetViews(&cqltest.Views{Clients: 2})
	tg2 := openT(t, "cql://"+s2.Addr()+"/ycsb", scenarios.Target{}, targets.Options{})
	prepareT(t, tg2, 1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tg2.readViews(ctx, map[string]float64{})
	if tg2.viewClients.off.Load() || tg2.viewPools.off.Load() {
		t.Error("a cancelled context switched system_views off")
	}
	st, err := tg2.ServerStats(context.Background())
	if err != nil || st["cql_native_clients"] != 2 || st["cql_thread_pool_pending_tasks"] != 0 {
		t.Errorf("stats %v %v", st, err)
	}
}
