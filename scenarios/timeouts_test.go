package scenarios

import (
	"strings"
	"testing"
)

// TestClientTimeoutsBounded: a client timeout past MaxClientTimeout (a
// store that never answers would hold each worker that long) is refused
// with file:line and the field; negative ones too.
func TestClientTimeoutsBounded(t *testing.T) {
	src := "name: t\ntarget:\n  kind: redis\n  url: redis://127.0.0.1:6379\n  client:\n    read_timeout: 1h\n    write_timeout: -1s\n    dial_timeout: 5m\nkeyspace: {records: 10}\nphases: [{name: s, kind: steady, rate: 10, duration: 1s, mix: {get: 100}}]\n"
	_, err := Parse("t.yaml", []byte(src))
	if err == nil {
		t.Fatal("read_timeout: 1h accepted")
	}
	msg := err.Error()
	for _, want := range []string{"t.yaml:6", "target.client.read_timeout", "longer than the 5m0s cap", "t.yaml:7", "target.client.write_timeout", "must not be negative"} {
		if !strings.Contains(msg, want) {
			t.Errorf("problems lack %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "dial_timeout") {
		t.Errorf("dial_timeout 5m (the cap itself) refused:\n%s", msg)
	}
}
