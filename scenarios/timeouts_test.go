package scenarios

import (
	"strings"
	"testing"
	"time"
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

// TestCQLTimeoutZeroIsTheCap: in a CQL URL, timeout=0s and
// connect_timeout=0s (no timeout, to the driver: a connect that hangs
// for ever) become the caps; longer ones are refused.
func TestCQLTimeoutZeroIsTheCap(t *testing.T) {
	c, bad := ParseCQLURL("cql://127.0.0.1:9042/ks?timeout=0s&connect_timeout=0s")
	if len(bad) != 0 {
		t.Fatalf("refused: %v", bad)
	}
	if c.Timeout != MaxClientTimeout || c.ConnectTimeout != MaxConnectTimeout {
		t.Errorf("timeout %s, connect_timeout %s; want the caps %s, %s", c.Timeout, c.ConnectTimeout, MaxClientTimeout, MaxConnectTimeout)
	}
	_, bad = ParseCQLURL("cql://127.0.0.1:9042/ks?timeout=1h&connect_timeout=2m")
	if got := strings.Join(bad, "; "); !strings.Contains(got, "timeout 1h0m0s is longer than the 5m0s cap") || !strings.Contains(got, "connect_timeout 2m0s is longer than the 1m0s cap") {
		t.Errorf("long timeouts: %q", got)
	}
	if c, bad := ParseCQLURL("cql://127.0.0.1:9042/ks?timeout=2s"); len(bad) != 0 || c.Timeout != 2*time.Second {
		t.Errorf("timeout=2s: %v %v", c.Timeout, bad)
	}
}
