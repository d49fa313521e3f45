package cql

import (
	"strings"
	"testing"

	"github.com/soakd/soakd/targets"
	_ "github.com/soakd/soakd/targets/elastic" // with mongo: the stores that take database
	_ "github.com/soakd/soakd/targets/mongo"
)

// TestClientConfigDecode: a cql target takes the shared client:
// options only (its own are the URL's); another store's key is refused
// with file:line: field, and so is each problem of the URL, for every
// kind the adapter registers.
func TestClientConfigDecode(t *testing.T) {
	for _, kind := range append([]string{"cql"}, Aliases...) {
		src := "name: c\ntarget:\n  kind: " + string(kind) + "\n  url: \"cql://127.0.0.1/ks?consistency=MOST\"\n  client:\n    pool_size: 2\n    database: d\n" +
			"phases:\n  - {name: a, kind: steady, rate: 10, duration: 1s, mix: {read: 100}}\n"
		_, err := targets.ParseScenario("bad.yaml", []byte(src))
		if err == nil {
			t.Fatalf("%s: accepted", kind)
		}
		for _, want := range []string{
			`bad.yaml:4: target.url: consistency "MOST": use one of`,
			`bad.yaml:7: target.client.database: only an elastic or mongo target takes database (this is a ` + string(kind) + ` target)`,
		} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: problems lack %q:\n%v", kind, want, err)
			}
		}
		if strings.Contains(err.Error(), "target.client.pool_size") {
			t.Errorf("%s: pool_size refused:\n%v", kind, err)
		}
	}
}
