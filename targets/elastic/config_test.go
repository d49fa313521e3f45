package elastic

import (
	"strings"
	"testing"

	"github.com/soakd/soakd/targets"
	_ "github.com/soakd/soakd/targets/mongo" // names the store that takes write_concern
)

func elasticScenario(client string) []byte {
	return []byte("name: c\ntarget:\n  kind: elastic\n  url: \"http://127.0.0.1:9200\"\n  client:\n" + client +
		"phases:\n  - {name: a, kind: steady, rate: 10, duration: 1s, mix: {read: 100}}\n")
}

// TestClientConfigDecode: the elastic client: options decode into
// ClientConfig, and each bad one is refused at validate with file:line:
// field (the index name too, which only the open refused before).
func TestClientConfigDecode(t *testing.T) {
	sc, err := targets.ParseScenario("ok.yaml", elasticScenario("    refresh: wait_for\n    database: soak\n    collection: search\n    index_shards: 3\n    index_replicas: 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	cc, err := clientSchema.Decode(sc.Target)
	if err != nil || cc.Refresh != RefreshWaitFor || cc.index() != "soak-search" || cc.IndexShards != 3 || cc.IndexReplicas == nil || *cc.IndexReplicas != 0 {
		t.Errorf("decoded %+v, %v", cc, err)
	}
	_, err = targets.ParseScenario("bad.yaml", elasticScenario("    refresh: sometimes\n    collection: Bad/Name\n    index_shards: three\n    write_concern: majority\n"))
	if err == nil {
		t.Fatal("accepted")
	}
	for _, want := range []string{
		`bad.yaml:6: target.client.refresh: must be false, true or wait_for`,
		`bad.yaml:7: target.client.collection: index name "Bad/Name" must be lower case`,
		`bad.yaml:8: target.client.index_shards: cannot unmarshal a string into int`,
		`bad.yaml:9: target.client.write_concern: only a mongo target takes write_concern (this is an elastic target)`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("problems lack %q:\n%v", want, err)
		}
	}
}
