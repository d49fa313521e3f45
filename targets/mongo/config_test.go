package mongo

import (
	"strings"
	"testing"

	"github.com/soakd/soakd/targets"
	_ "github.com/soakd/soakd/targets/redis" // names the store that takes search
)

func mongoScenario(client string) []byte {
	return []byte("name: c\ntarget:\n  kind: mongo\n  url: \"mongodb://127.0.0.1:27017\"\n  client:\n" + client +
		"phases:\n  - {name: a, kind: steady, rate: 10, duration: 1s, mix: {read: 100}}\n")
}

// TestClientConfigDecode: the mongo client: options decode into
// ClientConfig (a read preference in any case, spelt as its constant),
// and each bad one is refused at validate with file:line: field.
func TestClientConfigDecode(t *testing.T) {
	sc, err := targets.ParseScenario("ok.yaml", mongoScenario("    read_preference: NEAREST\n    write_concern: majority,j\n    database: d\n    collection: c\n    max_batch: 10\n"))
	if err != nil {
		t.Fatal(err)
	}
	cc, err := clientSchema.Decode(sc.Target)
	if err != nil || cc.ReadPreference != ReadNearest || cc.WriteConcern != "majority,j" || cc.Database != "d" || cc.Collection != "c" || sc.Target.Client.MaxBatch != 10 {
		t.Errorf("decoded %+v, %v", cc, err)
	}
	_, err = targets.ParseScenario("bad.yaml", mongoScenario("    read_preference: nearestish\n    write_concern: most\n    database: [a]\n    search: auto\n"))
	if err == nil {
		t.Fatal("accepted")
	}
	for _, want := range []string{
		`bad.yaml:6: target.client.read_preference: unknown read preference nearestish`,
		`bad.yaml:7: target.client.write_concern: want majority or a node count, optionally followed by ,j`,
		`bad.yaml:8: target.client.database: cannot unmarshal a list into string`,
		`bad.yaml:9: target.client.search: only a redis target takes search (this is a mongo target)`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("problems lack %q:\n%v", want, err)
		}
	}
}
