package runpath

import (
	"errors"
	"strings"
	"testing"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
	"github.com/soakd/soakd/targets/cql"
)

func TestMergeTargetURL(t *testing.T) {
	for _, c := range []struct{ name, scenario, flag, want string }{
		{"cql keeps options", "cql://localhost:9042/ycsb?read_consistency=ONE&write_consistency=QUORUM&replication=SimpleStrategy:3&timeout=5s",
			"cql://node:9042/ycsb", "cql://node:9042/ycsb?read_consistency=ONE&write_consistency=QUORUM&replication=SimpleStrategy:3&timeout=5s"},
		{"cql flag option wins", "cql://localhost:9042/ycsb?consistency=QUORUM&timeout=5s",
			"cql://a:9042,b:9043/other?timeout=2s&conns=4", "cql://a:9042,b:9043/other?consistency=QUORUM&timeout=2s&conns=4"},
		{"cql flag without keyspace keeps the scenario's", "cql://localhost/ks1?consistency=ONE", "cqls://user@node", "cqls://user@node/ks1?consistency=ONE"},
		{"redis db and options", "redis://127.0.0.1:6379/2?protocol=3&pool_size=50", "redis://db:6380", "redis://db:6380/2?protocol=3&pool_size=50"},
		{"redis flag db", "redis://127.0.0.1:6379/2?protocol=3", "rediss://db:6380/5", "rediss://db:6380/5?protocol=3"},
		{"redis flag user replaces", "redis://alice@127.0.0.1:6379/0", "redis://bob@db:6379", "redis://bob@db:6379/0"},
		{"redis scenario user kept", "redis://alice@127.0.0.1:6379/0", "redis://db:6379", "redis://alice@db:6379/0"},
		{"mongo replica set kept", "mongodb://localhost:27017,localhost:27018,localhost:27019/?replicaSet=rs0",
			"mongodb://m1:27017,m2:27017/shop", "mongodb://m1:27017,m2:27017/shop?replicaSet=rs0"},
		{"mongo option removed", "mongodb://localhost:27017/?replicaSet=rs0&w=majority", "mongodb://m1:27017/?replicaSet=",
			"mongodb://m1:27017/?w=majority"},
		{"elastic", "http://localhost:9200/prefix?sniff=false", "https://es.example:9243", "https://es.example:9243/prefix?sniff=false"},
		{"mongo flag's / kept before its options", "mongodb://127.0.0.1:27017", "mongodb://127.0.0.1:41887/?serverSelectionTimeoutMS=1500",
			"mongodb://127.0.0.1:41887/?serverSelectionTimeoutMS=1500"},
		{"another kind replaces", "redis://127.0.0.1:6379/2?protocol=3", "mongodb://m1:27017/db", "mongodb://m1:27017/db"},
		{"no scenario url", "", "redis://db:6379", "redis://db:6379"},
		{"unix socket replaces", "unix:///tmp/redis.sock?db=1", "redis://db:6379", "redis://db:6379"},
		{"to a unix socket", "redis://127.0.0.1:6379/1?protocol=3", "unix:///run/redis.sock", "unix:///run/redis.sock"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := MergeTargetURL(targets.Stores(), c.scenario, c.flag); got != c.want {
				t.Errorf("MergeTargetURL(%q, %q)\n got %q\nwant %q", c.scenario, c.flag, got, c.want)
			}
		})
	}
}

// TestApplyTargetKeepsScenarioOptions: the shipped scenarios run with
// --target keep their URL options (scylla-weak-consistency.yaml lost
// read_consistency=ONE; scylla-caching.yaml its QUORUM, replication and
// timeout).
func TestApplyTargetKeepsScenarioOptions(t *testing.T) {
	for _, c := range []struct {
		file, target string
		want         []string
	}{
		{"scylla-weak-consistency.yaml", "cql://node:9042/ycsb", []string{"cql://node:9042/ycsb?", "read_consistency=ONE", "write_consistency=QUORUM", "replication=SimpleStrategy:3", "timeout=5s"}},
		{"scylla-caching.yaml", "cql://node:9042", []string{"cql://node:9042/ycsb?", "consistency=QUORUM", "replication=SimpleStrategy:3", "timeout=5s"}},
		{"mongo-weak-consistency.yaml", "mongodb://m1:27017", []string{"mongodb://m1:27017/?", "replicaSet=rs0"}},
	} {
		sc, err := scenarios.LoadFile("../../scenarios/" + c.file)
		if err != nil {
			t.Fatal(err)
		}
		fes, err := Apply(sc, Overrides{Target: c.target})
		if err != nil || len(fes) > 0 {
			t.Fatalf("%s: %v %v", c.file, err, fes)
		}
		for _, w := range c.want {
			if !strings.Contains(sc.Target.URL, w) {
				t.Errorf("%s --target %s: url %q lacks %q", c.file, c.target, sc.Target.URL, w)
			}
		}
		if c.file == "scylla-weak-consistency.yaml" {
			u, probs := cql.ReadURL(sc.Target.URL)
			if len(probs) > 0 || u.ReadConsistency != "ONE" || u.Hosts[0] != "node:9042" {
				t.Errorf("parsed %+v %v", u, probs)
			}
		}
	}
}

// TestApplyRateFloor: --rate below the floor is an error on the flag.
func TestApplyRateFloor(t *testing.T) {
	sc, err := scenarios.Parse("t.yaml", []byte(base))
	if err != nil {
		t.Fatal(err)
	}
	tiny := 1e-11
	_, err = Apply(sc, Overrides{Rate: &tiny})
	var oe *OverrideError
	if !errors.As(err, &oe) || oe.Name != "rate" || !strings.Contains(err.Error(), "below the floor") {
		t.Fatalf("err %v, want the rate flag refused", err)
	}
}
