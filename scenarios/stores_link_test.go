package scenarios_test

import (
	"testing"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
	"github.com/soakd/soakd/targets/cql"
	"github.com/soakd/soakd/targets/elastic"
	_ "github.com/soakd/soakd/targets/embedded" // the stores link their families (scenarios.Link)
	"github.com/soakd/soakd/targets/mongo"
	_ "github.com/soakd/soakd/targets/redis"
	"github.com/soakd/soakd/targets/resp"
)

// The tests of this package read custom ops and replays with the
// shipped stores' families, linked here as in soakd itself: scenarios
// names no store, the stores' own packages decode and check their forms.

// A custom op's ReadOnly asks the form of the family of the kind asked.
func TestCustomOpReadOnly(t *testing.T) {
	op := func(family string, f scenarios.CustomForm) *scenarios.CustomOp {
		return scenarios.CustomOp{}.WithForm(family, f).WithStores(targets.Stores())
	}
	for _, tc := range []struct {
		kind scenarios.TargetKind
		op   *scenarios.CustomOp
		read bool
	}{
		{scenarios.KindRedis, op("redis", &resp.Template{Command: []string{"zrevrange", "b", "0", "9"}}), true},
		{scenarios.KindRedis, op("redis", &resp.Template{Command: []string{"ZINCRBY", "b", "1", "m"}}), false},
		{scenarios.KindRedis, op("redis", &resp.Template{Multi: [][]string{{"GET", "k"}, {"EXPIRE", "k", "9"}}}), false},
		{scenarios.KindRedis, op("redis", &resp.Template{Script: "return redis.call('GET', KEYS[1])"}), false},
		{scenarios.KindEmbedded, op("redis", &resp.Template{Command: []string{"HGETALL", "k"}}), true},
		{scenarios.KindMongo, op("mongo", &mongo.MongoTemplate{Command: `{"count": "c", "query": {"n": {int:1:5}}}`}), true},
		{scenarios.KindMongo, op("mongo", &mongo.MongoTemplate{Command: `{"aggregate": "c", "pipeline": [{"$out": "x"}], "cursor": {}}`}), false},
		{scenarios.KindMongo, op("mongo", &mongo.MongoTemplate{Command: `{"update": "c", "updates": []}`}), false},
		{scenarios.KindElastic, op("elastic", &elastic.ElasticTemplate{Path: "/i/_doc/{key}"}), true},
		{scenarios.KindElastic, op("elastic", &elastic.ElasticTemplate{Method: "post", Path: "/i/_count", Body: "{}"}), true},
		{scenarios.KindElastic, op("elastic", &elastic.ElasticTemplate{Path: "/i/_doc/{key}", Body: "{}"}), false},
		{scenarios.KindCQL, op("cql", &cql.CQLTemplate{Statement: " select v from t"}), true},
		{scenarios.KindCQL, op("cql", &cql.CQLTemplate{Statement: "UPDATE t SET v = ? WHERE k = ?"}), false},
		{scenarios.KindCQL, op("redis", &resp.Template{Command: []string{"GET", "k"}}), false}, // no cql form
	} {
		if got := tc.op.ReadOnly(tc.kind); got != tc.read {
			t.Errorf("%s %v: ReadOnly %v, want %v", tc.kind, tc.op.Kinds(), got, tc.read)
		}
	}
}
