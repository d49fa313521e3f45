package scenarios

import (
	"strings"
	"testing"
)

// TestCQLURLPortsAndTimeouts: ports outside 1-65535, zero or huge
// timeouts (0s means the cap: timeouts_test.go) and unbounded counts in a cql:// URL are refused (port 99999
// and connect_timeout=0s passed validation).
func TestCQLURLPortsAndTimeouts(t *testing.T) {
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
		_, probs := ParseCQLURL(c.url)
		if !strings.Contains(strings.Join(probs, "\n"), c.want) {
			t.Errorf("%s: problems %q, want %q", c.url, probs, c.want)
		}
	}
	for _, ok := range []string{"cql://node:9042,[::1]:19042,other/ks?timeout=2s&connect_timeout=500ms&write_coalesce=0s&conns=4", "cqls://node:65535"} {
		if _, probs := ParseCQLURL(ok); len(probs) > 0 {
			t.Errorf("%s: %q", ok, probs)
		}
	}
	// Through a scenario file, with the line.
	ps := problemsOf(t, "target:\n  kind: scylla\n  url: cql://node:99999/ks\nphases: [{kind: load}]\n")
	if !hasProblem(ps, 3, "target.url", "is not a port") {
		t.Errorf("%v", ps)
	}
}
