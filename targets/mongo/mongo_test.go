package mongo

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/readpref"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// TestCatalog loads every shipped mongo scenario and opens its target
// (the driver connects lazily, so no server is needed).
func TestCatalog(t *testing.T) {
	files, err := filepath.Glob("../../scenarios/mongo-*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"mongo-ycsb-a.yaml", "mongo-ycsb-b.yaml", "mongo-social-hotspot.yaml", "mongo-caching.yaml",
		"mongo-sensor.yaml", "mongo-weak-consistency.yaml", "mongo-search-mix.yaml", "mongo-search-mix-250.yaml", "mongo-search-mix-6000.yaml"}
	have := map[string]bool{}
	for _, f := range files {
		have[filepath.Base(f)] = true
	}
	for _, w := range want {
		if !have[w] {
			t.Errorf("scenarios/%s is missing", w)
		}
	}
	for _, f := range files {
		sc, err := scenarios.LoadFile(f)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if sc.Target.Kind != "mongo" {
			t.Errorf("%s: kind %q", f, sc.Target.Kind)
		}
		tg, err := targets.Open(context.Background(), sc.Target, targets.Options{})
		if err != nil {
			t.Errorf("%s: open: %v", f, err)
			continue
		}
		_ = tg.Close()
	}
	sc, err := scenarios.LoadFile("../../scenarios/mongo-weak-consistency.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if cc, err := clientSchema.Decode(sc.Target); err != nil || cc.ReadPreference != ReadSecondaryPreferred {
		t.Errorf("weak consistency read_preference = %q (%v)", cc.ReadPreference, err)
	}
	sc, err = scenarios.LoadFile("../../scenarios/mongo-sensor.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if sc.Keyspace.Distribution != "latest" {
		t.Errorf("sensor distribution = %q", sc.Keyspace.Distribution)
	}
}

func TestOpenRefusesBadInput(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		tg   scenarios.Target
		want string
	}{
		{scenarios.Target{Kind: "mongo", URL: "http://localhost:27017"}, "mongodb://"},
		{scenarios.Target{Kind: "mongo", URL: "mongodb://localhost:27017/?readPreference=sometimes"}, "bad MongoDB URL"},
		{scenarios.Target{Kind: "mongo", URL: "mongodb://localhost:27017", Client: scenarios.ClientOf(scenarios.ClientCommon{}, ClientConfig{ReadPreference: "nearestish"})}, "client.read_preference"},
		{scenarios.Target{Kind: "mongo", URL: "mongodb://localhost:27017", Client: scenarios.ClientOf(scenarios.ClientCommon{}, ClientConfig{WriteConcern: "most"})}, "client.write_concern"},
		{scenarios.Target{Kind: "mongo", URL: "mongodb://localhost:27017", Auth: scenarios.Auth{UsernameEnv: "SOAKD_TEST_NO_SUCH_USER"}}, "SOAKD_TEST_NO_SUCH_USER, which is empty"},
	} {
		_, err := targets.Open(ctx, tc.tg, targets.Options{Env: func(string) string { return "" }})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err = %v, want it to mention %q", tc.tg, err, tc.want)
		}
	}
}

func TestErrorsHideSecrets(t *testing.T) {
	env := map[string]string{"U": "soak", "P": "s3cr3t-pw"}
	tg := scenarios.Target{Kind: "mongo", URL: "mongodb://127.0.0.1:1/?connectTimeoutMS=200&serverSelectionTimeoutMS=200",
		Auth: scenarios.Auth{UsernameEnv: "U", PasswordEnv: "P"}}
	tgt, err := targets.Open(context.Background(), tg, targets.Options{Env: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	defer tgt.Close()
	err = tgt.(targets.Preparer).Prepare(context.Background(), &scenarios.Scenario{})
	if err == nil {
		t.Fatal("Prepare against a closed port succeeded")
	}
	if strings.Contains(err.Error(), "s3cr3t-pw") {
		t.Fatalf("error leaks the password: %v", err)
	}
	if !strings.Contains(err.Error(), "not reachable") {
		t.Errorf("error %q does not say the server is unreachable", err)
	}
	m := tgt.(*Target)
	leaky := errors.New("auth failed for soak:s3cr3t-pw")
	if got := m.scrub(leaky); strings.Contains(got.Error(), "s3cr3t-pw") || !errors.Is(got, leaky) {
		t.Errorf("scrub = %v", got)
	}
	if c := targets.Classify(tgt, err); c != targets.ClassConnection {
		t.Errorf("unreachable server classified %q, want connection", c)
	}
}

func TestParseWriteConcern(t *testing.T) {
	for in, want := range map[string]string{"majority": "majority/<nil>", "1": "1/<nil>", "0,j": "0/true", "majority,j=false": "majority/false"} {
		wc, err := ParseWriteConcern(in)
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		j := "<nil>"
		if wc.Journal != nil {
			j = map[bool]string{true: "true", false: "false"}[*wc.Journal]
		}
		if got := fmt.Sprint(wc.W) + "/" + j; got != want {
			t.Errorf("%s: got %s, want %s", in, got, want)
		}
	}
	for _, bad := range []string{"", "all", "-1", "1,fsync"} {
		if _, err := ParseWriteConcern(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestDocument(t *testing.T) {
	r := &targets.Request{Op: scenarios.OpInsert, KeyNum: 42, Key: []byte("user42"),
		Fields: []targets.Field{{Name: "field0", Value: []byte("aa")}, {Name: "field1", Value: []byte("bb")}}}
	tg := &Target{}
	got := tg.document(r)
	want := bson.D{{Key: "_id", Value: "user42"}, {Key: "field0", Value: "aa"}, {Key: "field1", Value: "bb"}, {Key: "num", Value: int64(42)}}
	if !equalD(got, want) {
		t.Errorf("document = %v, want %v", got, want)
	}
	r.Fields = append(r.Fields, targets.Field{Name: "num", Value: []byte("7")})
	got = tg.document(r)
	if v := got[len(got)-1]; v.Key != "num" || v.Value != int64(7) || len(got) != 4 {
		t.Errorf("document with num field = %v", got)
	}
	// A scenario that searches stores the record's search text.
	tg.searchDocs = true
	got = tg.document(r)
	title, body := scenarios.DocText(42)
	if len(got) != 6 || got[4] != (bson.E{Key: "title", Value: title}) || got[5] != (bson.E{Key: "body", Value: body}) {
		t.Errorf("search document = %v, want title %q body %q", got, title, body)
	}
}

func equalD(a, b bson.D) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Key != b[i].Key || a[i].Value != b[i].Value {
			return false
		}
	}
	return true
}

func TestClassify(t *testing.T) {
	tg := &Target{}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{targets.ErrNotFound, targets.ClassNotFound},
		{context.DeadlineExceeded, targets.ClassTimeout},
		{mongo.WriteException{WriteConcernError: &mongo.WriteConcernError{Code: 64, Message: "waiting for replication timed out"}}, targets.ClassRejected},
		{mongo.CommandError{Code: 10107, Message: "not primary"}, targets.ClassRejected},
		{mongo.CommandError{Code: 50, Message: "operation exceeded time limit", Name: "MaxTimeMSExpired"}, targets.ClassTimeout},
		{mongo.WriteException{WriteErrors: mongo.WriteErrors{{Code: 11000, Message: "E11000 duplicate key"}}}, targets.ClassOther},
		{mongo.CommandError{Code: 1, Labels: []string{"NetworkError"}}, targets.ClassConnection},
		{mongo.ErrClientDisconnected, targets.ClassConnection},
	} {
		if got := targets.Classify(tg, tc.err); got != tc.want {
			t.Errorf("Classify(%v) = %s, want %s", tc.err, got, tc.want)
		}
	}
}

func TestPut(t *testing.T) {
	doc, err := bson.Marshal(bson.D{{Key: "a", Value: bson.D{{Key: "i32", Value: int32(3)}, {Key: "i64", Value: int64(4)}, {Key: "f", Value: 1.5}, {Key: "s", Value: "x"}}}})
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]float64{}
	put(m, "i32", doc, 1, "a", "i32")
	put(m, "i64", doc, 2, "a", "i64")
	put(m, "f", doc, 1, "a", "f")
	put(m, "s", doc, 1, "a", "s")
	put(m, "missing", doc, 1, "a", "nope")
	want := map[string]float64{"i32": 3, "i64": 8, "f": 1.5}
	if len(m) != len(want) {
		t.Fatalf("put = %v, want %v", m, want)
	}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("%s = %v, want %v", k, m[k], v)
		}
	}
}

func TestClientOptions(t *testing.T) {
	uri := "mongodb://h1:27017,h2:27017/?replicaSet=rs0&w=majority&journal=true&readPreference=secondaryPreferred" +
		"&retryWrites=false&compressors=zstd,snappy&tls=true&serverSelectionTimeoutMS=1234"
	co, _, err := clientOptions(scenarios.Target{Kind: "mongo", URL: uri}, targets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m := co.ReadPreference.Mode(); m != readpref.SecondaryPreferredMode {
		t.Errorf("read preference from the URI = %v", m)
	}
	if co.WriteConcern == nil || co.WriteConcern.W != "majority" || co.WriteConcern.Journal == nil || !*co.WriteConcern.Journal {
		t.Errorf("write concern from the URI = %+v", co.WriteConcern)
	}
	if co.RetryWrites == nil || *co.RetryWrites {
		t.Errorf("retryWrites = %v", co.RetryWrites)
	}
	if strings.Join(co.Compressors, ",") != "zstd,snappy" {
		t.Errorf("compressors = %v", co.Compressors)
	}
	if co.ReplicaSet == nil || *co.ReplicaSet != "rs0" {
		t.Errorf("replicaSet = %v", co.ReplicaSet)
	}
	if co.TLSConfig == nil {
		t.Error("tls=true ignored")
	}
	if co.ServerSelectionTimeout == nil || *co.ServerSelectionTimeout != 1234*time.Millisecond {
		t.Errorf("serverSelectionTimeoutMS from the URI = %v, want it to override soakd's default", co.ServerSelectionTimeout)
	}
	if strings.Join(co.Hosts, ",") != "h1:27017,h2:27017" {
		t.Errorf("hosts = %v", co.Hosts)
	}

	// The scenario's client block overrides the URI.
	env := map[string]string{"MU": "soak", "MP": "pw"}
	co, secrets, err := clientOptions(scenarios.Target{Kind: "mongo", URL: uri,
		Client: scenarios.ClientOf(scenarios.ClientCommon{PoolSize: 7}, ClientConfig{ReadPreference: "primary", WriteConcern: "1"}),
		Auth:   scenarios.Auth{UsernameEnv: "MU", PasswordEnv: "MP"}},
		targets.Options{Env: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	if m := co.ReadPreference.Mode(); m != readpref.PrimaryMode {
		t.Errorf("client.read_preference did not override: %v", m)
	}
	if co.WriteConcern.W != 1 || co.WriteConcern.Journal != nil {
		t.Errorf("client.write_concern did not override: %+v", co.WriteConcern)
	}
	if co.MaxPoolSize == nil || *co.MaxPoolSize != 7 {
		t.Errorf("pool size = %v", co.MaxPoolSize)
	}
	if co.Auth == nil || co.Auth.Username != "soak" || co.Auth.Password != "pw" {
		t.Errorf("auth = %+v", co.Auth)
	}
	if len(secrets) != 1 || secrets[0] != "pw" {
		t.Errorf("secrets = %v", secrets)
	}

	// Defaults when the URI is silent; dial_timeout bounds server selection.
	co, _, err = clientOptions(scenarios.Target{Kind: "mongo", URL: "mongodb://h1",
		Client: scenarios.ClientOf(scenarios.ClientCommon{DialTimeout: scenarios.Duration(2 * time.Second)}, nil)}, targets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if *co.ServerSelectionTimeout != 2*time.Second || *co.ConnectTimeout != 2*time.Second {
		t.Errorf("dial_timeout: selection %v connect %v", *co.ServerSelectionTimeout, *co.ConnectTimeout)
	}
}

func TestSearchQuery(t *testing.T) {
	filter, opts, err := searchQuery(&targets.Request{Op: scenarios.OpSearch, Query: "alpha beta", Page: 3, PageSize: 20})
	if err != nil {
		t.Fatal(err)
	}
	want := bson.D{{Key: "$text", Value: bson.D{{Key: "$search", Value: `"alpha" "beta"`}}}}
	if fmt.Sprint(filter) != fmt.Sprint(want) {
		t.Errorf("filter = %v", filter)
	}
	if *opts.Skip != 60 || *opts.Limit != 20 || fmt.Sprint(opts.Sort) != fmt.Sprint(bson.D{{Key: "num", Value: 1}}) {
		t.Errorf("skip %d limit %d sort %v", *opts.Skip, *opts.Limit, opts.Sort)
	}
	_, opts, _ = searchQuery(&targets.Request{Op: scenarios.OpSearch, Query: "a b"})
	if *opts.Skip != 0 || *opts.Limit != DefaultPageSize {
		t.Errorf("default page: skip %d limit %d", *opts.Skip, *opts.Limit)
	}
	if _, _, err := searchQuery(&targets.Request{Op: scenarios.OpSearch, KeyNum: 3}); err == nil {
		t.Error("a search without a query built a filter")
	}
}
