package embedded

import (
	"strings"
	"testing"

	"github.com/soakd/soakd/targets"
	_ "github.com/soakd/soakd/targets/redis" // names the store that takes mode
)

// TestClientConfigDecode: the embedded target takes the shared client:
// options only; a store's own key is refused with file:line: field.
func TestClientConfigDecode(t *testing.T) {
	src := "name: c\ntarget:\n  kind: embedded\n  client:\n    max_batch: 8\n    mode: cluster\n    nope: 1\nphases:\n  - {name: a, kind: steady, rate: 10, duration: 1s, mix: {get: 100}}\n"
	_, err := targets.ParseScenario("bad.yaml", []byte(src))
	if err == nil {
		t.Fatal("accepted")
	}
	for _, want := range []string{
		`bad.yaml:6: target.client.mode: only a redis target takes mode (this is an embedded target)`,
		`bad.yaml:7: target.client.nope: unknown key "nope" (an embedded target's client takes pool_size, dial_timeout, read_timeout, write_timeout, max_batch)`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("problems lack %q:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "target.client.max_batch") {
		t.Errorf("max_batch refused:\n%v", err)
	}
}
