package scenarios

import (
	"strings"
	"testing"
)

func TestEnumsParse(t *testing.T) {
	for _, k := range PhaseKinds() {
		if got, err := ParsePhaseKind(string(k)); err != nil || got != k {
			t.Errorf("ParsePhaseKind(%q) = %q, %v", k, got, err)
		}
	}
	for _, d := range Distributions() {
		if got, err := ParseDistribution(string(d)); err != nil || got != d {
			t.Errorf("ParseDistribution(%q) = %q, %v", d, got, err)
		}
	}
	if _, err := ParsePhaseKind("Steady"); err == nil || err.Error() != `unknown phase kind "Steady" (use load, steady, ramp, capacity, growth, sweep or replay)` {
		t.Errorf("ParsePhaseKind(Steady): %v", err)
	}
	if _, err := ParseDistribution(""); err == nil {
		t.Error("ParseDistribution(\"\") accepted")
	}
	if PhaseKind("").Valid() || Distribution("zipf").Valid() {
		t.Error("Valid accepts a value outside the enum")
	}
}

func TestEnumsInValidate(t *testing.T) {
	_, err := Parse("bad.yaml", []byte(`
name: bad
keyspace: {records: 10, distribution: zipf}
phases:
  - {name: a, kind: soak, rate: 10, duration: 1s, mix: {read: 100}}
`))
	if err == nil {
		t.Fatal("accepted")
	}
	for _, want := range []string{
		`unknown distribution "zipf" (use uniform, zipfian, hotspot or latest)`,
		`unknown phase kind "soak" (use load, steady, ramp, capacity, growth, sweep or replay)`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

func TestClientEnumsParse(t *testing.T) {
	for _, m := range RedisModes() {
		if got, err := ParseRedisMode(string(m)); err != nil || got != m {
			t.Errorf("ParseRedisMode(%q) = %q, %v", m, got, err)
		}
	}
	for _, r := range Refreshes() {
		if got, err := ParseRefresh(string(r)); err != nil || got != r {
			t.Errorf("ParseRefresh(%q) = %q, %v", r, got, err)
		}
	}
	for _, f := range SearchFormats() {
		if got, err := ParseSearchFormat(string(f)); err != nil || got != f {
			t.Errorf("ParseSearchFormat(%q) = %q, %v", f, got, err)
		}
	}
	for _, p := range ReadPreferences() {
		if got, err := ParseReadPreference(strings.ToUpper(string(p))); err != nil || got != p {
			t.Errorf("ParseReadPreference(%q) = %q, %v", strings.ToUpper(string(p)), got, err)
		}
	}
	for _, c := range []struct {
		err  error
		want string
	}{
		{func() error { _, err := ParseRedisMode("Cluster"); return err }(), `unknown client.mode "Cluster" (use standalone, cluster or sentinel)`},
		{func() error { _, err := ParseRefresh("sometimes"); return err }(), `client.refresh "sometimes": use false, wait_for or true`},
		{func() error { _, err := ParseSearchFormat("xml"); return err }(), `unknown client.search "xml" (use auto, json or hash)`},
		{func() error { _, err := ParseReadPreference("closest"); return err }(), `unknown read preference closest`},
	} {
		if c.err == nil || c.err.Error() != c.want {
			t.Errorf("error %v, want %q", c.err, c.want)
		}
	}
	if RedisMode("").Valid() || Refresh("").Valid() || SearchFormat("").Valid() || ReadPreference("").Valid() {
		t.Error("Valid accepts the empty value")
	}
}

func TestRefreshInValidate(t *testing.T) {
	_, err := Parse("bad.yaml", []byte(`
name: bad
target: {kind: elastic, url: "http://localhost:9200", client: {refresh: sometimes}}
phases:
  - {name: a, kind: steady, rate: 10, duration: 1s, mix: {read: 100}}
`))
	if err == nil || !strings.Contains(err.Error(), "target.client.refresh") || !strings.Contains(err.Error(), "must be false, true or wait_for") {
		t.Errorf("refresh sometimes: %v", err)
	}
}

func TestTargetKindParse(t *testing.T) {
	for _, k := range TargetKinds() {
		if got, err := ParseTargetKind(string(k)); err != nil || got != k {
			t.Errorf("ParseTargetKind(%q) = %q, %v", k, got, err)
		}
	}
	if _, err := ParseTargetKind("postgres"); err == nil || err.Error() != `unknown target kind "postgres" (use embedded, redis, mongo, elastic or cql (aliases scylla, cassandra))` {
		t.Errorf("ParseTargetKind(postgres): %v", err)
	}
	if TargetKind("").Valid() || TargetKind("Redis").Valid() {
		t.Error("Valid accepts a value outside the enum")
	}
	for _, k := range []TargetKind{KindScylla, KindCassandra, KindCQL} {
		if CanonicalKind(k) != KindCQL {
			t.Errorf("CanonicalKind(%s) = %s", k, CanonicalKind(k))
		}
	}
	_, err := Parse("bad.yaml", []byte(`
name: bad
target: {kind: postgres}
phases:
  - {name: a, kind: steady, rate: 10, duration: 1s, mix: {read: 100}}
`))
	if err == nil || !strings.Contains(err.Error(), `target.kind`) || !strings.Contains(err.Error(), `unknown target kind "postgres" (use embedded, redis, mongo, elastic or cql (aliases scylla, cassandra))`) {
		t.Errorf("kind postgres: %v", err)
	}
}

// TestRedisProtocol: target.client.protocol parses fast and goredis,
// and a bad value or fast outside standalone mode is reported at its
// file:line.
func TestRedisProtocol(t *testing.T) {
	for _, p := range RedisProtocols() {
		if got, err := ParseRedisProtocol(string(p)); err != nil || got != p {
			t.Errorf("ParseRedisProtocol(%q) = %q, %v", p, got, err)
		}
	}
	if _, err := ParseRedisProtocol("resp3"); err == nil || err.Error() != `unknown client.protocol "resp3" (use fast or goredis)` {
		t.Errorf("ParseRedisProtocol(resp3): %v", err)
	}
	if RedisProtocol("").Valid() || RedisProtocol("Fast").Valid() {
		t.Error("Valid accepts a value outside the enum")
	}
	for _, c := range []struct{ client, want string }{
		{"{protocol: goredis}", ""},
		{"{protocol: fast}", ""},
		{"{protocol: fast, mode: standalone}", ""},
		{"{mode: cluster}", ""},
		{"{protocol: goredis, mode: sentinel, master_name: m}", ""},
		{"{protocol: resp3}", `bad.yaml:3: target.client.protocol: must be fast or goredis, got "resp3"`},
		{"{protocol: fast, mode: cluster}", `bad.yaml:3: target.client.protocol: fast needs client.mode standalone (cluster mode runs on go-redis)`},
	} {
		sc, err := Parse("bad.yaml", []byte(`
name: p
target: {kind: redis, url: "redis://127.0.0.1:6379", client: `+c.client+`}
phases:
  - {name: a, kind: steady, rate: 10, duration: 1s, mix: {get: 100}}
`))
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.client, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: error %v, want %q", c.client, err, c.want)
		case c.want == "" && c.client == "{protocol: goredis}" && sc.Target.Client.Protocol != ProtocolGoRedis:
			t.Errorf("%s: decoded %q", c.client, sc.Target.Client.Protocol)
		}
	}
}
