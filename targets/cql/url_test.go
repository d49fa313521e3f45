package cql

import (
	"strings"
	"testing"
	"time"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// TestURLPortsAndTimeouts: ports outside 1-65535, huge timeouts and
// unbounded counts in a cql:// URL are refused (port 99999 and
// connect_timeout=0s passed validation once).
func TestURLPortsAndTimeouts(t *testing.T) {
	for _, c := range []struct{ url, want string }{
		{"cql://node:99999/ks", `port "99999" is not a port`},
		{"cql://node:0/ks", `port "0" is not a port`},
		{"cql://a:9042,b:x/ks", `host "b": port "x" is not a port`},
		{"cql://:9042/ks", "names no host"},
		{"cql://node/ks?timeout=1h", `timeout 1h0m0s is longer than the 5m0s cap`},
		{"cql://node/ks?connect_timeout=2m", `connect_timeout 2m0s is longer than the 1m0s cap`},
		{"cql://node/ks?write_coalesce=1m", `write_coalesce "1m": at most 1s`},
		{"cql://node/ks?conns=100000", "conns 100000: at most 1000"},
		{"cql://node/ks?page_size=1000000000", "page_size 1000000000: at most 100000"},
		{"cql://node/ks?metrics_port=70000", "metrics_port 70000: at most 65535"},
	} {
		_, probs := ReadURL(c.url)
		if !strings.Contains(strings.Join(probs, "\n"), c.want) {
			t.Errorf("%s: problems %q, want %q", c.url, probs, c.want)
		}
	}
	for _, ok := range []string{"cql://node:9042,[::1]:19042,other/ks?timeout=2s&connect_timeout=500ms&write_coalesce=0s&conns=4", "cqls://node:65535"} {
		if _, probs := ReadURL(ok); len(probs) > 0 {
			t.Errorf("%s: %q", ok, probs)
		}
	}
	// Through a scenario file, with the line.
	_, err := targets.ParseScenario("s.yaml", []byte("target:\n  kind: scylla\n  url: cql://node:99999/ks\nphases: [{kind: load}]\n"))
	if err == nil || !strings.Contains(err.Error(), "s.yaml:3: target.url: host \"node\": port \"99999\" is not a port") {
		t.Errorf("port 99999: %v", err)
	}
}

// TestURLTimeoutZeroIsTheCap: timeout=0s and connect_timeout=0s (no
// timeout, to the driver: a connect that hangs for ever) become the
// caps; longer ones are refused.
func TestURLTimeoutZeroIsTheCap(t *testing.T) {
	c, bad := ReadURL("cql://127.0.0.1:9042/ks?timeout=0s&connect_timeout=0s")
	if len(bad) != 0 {
		t.Fatalf("refused: %v", bad)
	}
	if c.Timeout != scenarios.MaxClientTimeout || c.ConnectTimeout != MaxConnectTimeout {
		t.Errorf("timeout %s, connect_timeout %s; want the caps %s, %s", c.Timeout, c.ConnectTimeout, scenarios.MaxClientTimeout, MaxConnectTimeout)
	}
	_, bad = ReadURL("cql://127.0.0.1:9042/ks?timeout=1h&connect_timeout=2m")
	if got := strings.Join(bad, "; "); !strings.Contains(got, "timeout 1h0m0s is longer than the 5m0s cap") || !strings.Contains(got, "connect_timeout 2m0s is longer than the 1m0s cap") {
		t.Errorf("long timeouts: %q", got)
	}
	if c, bad := ReadURL("cql://127.0.0.1:9042/ks?timeout=2s"); len(bad) != 0 || c.Timeout != 2*time.Second {
		t.Errorf("timeout=2s: %v %v", c.Timeout, bad)
	}
}
