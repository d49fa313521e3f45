package redis

import (
	"context"
	"strings"
	"testing"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
	_ "github.com/soakd/soakd/targets/elastic" // names the store that takes refresh
)

// scenarioWith is a redis scenario whose target.client block is client
// (starting on line 5).
func scenarioWith(client string) []byte {
	return []byte("name: c\ntarget:\n  kind: redis\n  url: \"redis://127.0.0.1:6379\"\n  client:\n" + client +
		"phases:\n  - {name: a, kind: steady, rate: 10, duration: 1s, mix: {get: 100}}\n")
}

// TestClientConfigDecode: the redis client: options decode into
// ClientConfig, and each bad one is refused at validate with file:line:
// field, together with the others.
func TestClientConfigDecode(t *testing.T) {
	sc, err := targets.ParseScenario("ok.yaml", scenarioWith("    pool_size: 4\n    protocol: goredis\n    mode: sentinel\n    master_name: m\n    addrs: [\"127.0.0.1:26379\"]\n    search: hash\n"))
	if err != nil {
		t.Fatal(err)
	}
	cc, err := clientSchema.Decode(sc.Target)
	if err != nil || cc.Protocol != ProtocolGoRedis || cc.Mode != ModeSentinel || cc.MasterName != "m" || len(cc.Addrs) != 1 || cc.Search != SearchHash || sc.Target.Client.PoolSize != 4 {
		t.Errorf("decoded %+v, pool_size %d, %v", cc, sc.Target.Client.PoolSize, err)
	}
	_, err = targets.ParseScenario("bad.yaml", scenarioWith("    pool_size: 4\n    protocol: resp3\n    mode: Cluster\n    search: xml\n    addrs: nope\n    refresh: wait_for\n    bogus: 1\n"))
	if err == nil {
		t.Fatal("accepted")
	}
	for _, want := range []string{
		`bad.yaml:7: target.client.protocol: must be fast or goredis, got "resp3"`,
		`bad.yaml:8: target.client.mode: unknown "Cluster" (use standalone, cluster or sentinel)`,
		`bad.yaml:9: target.client.search: unknown "xml" (use auto, json or hash)`,
		`bad.yaml:10: target.client.addrs: cannot unmarshal a string into []string`,
		`bad.yaml:11: target.client.refresh: only an elastic target takes refresh (this is a redis target)`,
		`bad.yaml:12: target.client.bogus: unknown key "bogus" (a redis target's client takes pool_size, dial_timeout, read_timeout, write_timeout, max_batch, mode, master_name, addrs, search, protocol, require_safe_user)`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("problems lack %q:\n%v", want, err)
		}
	}
	for _, c := range []struct{ client, want string }{
		{"    protocol: fast\n    mode: cluster\n", `bad.yaml:6: target.client.protocol: fast needs client.mode standalone (cluster mode runs on go-redis)`},
		{"    mode: sentinel\n", `bad.yaml:6: target.client.mode: sentinel needs client.master_name`},
		{"    pool_size: many\n", `bad.yaml:6: target.client.pool_size: many is not a number`},
	} {
		if _, err := targets.ParseScenario("bad.yaml", scenarioWith(c.client)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.client, err, c.want)
		}
	}
}

// TestOpenChecksClient: a scenario parsed without the registry
// (scenarios.Parse) is checked when its target opens, before any dial,
// and the error still names file:line: field.
func TestOpenChecksClient(t *testing.T) {
	sc, err := scenarios.Parse("late.yaml", scenarioWith("    protocol: resp3\n"))
	if err != nil {
		t.Fatalf("scenarios.Parse checks the store's options: %v", err)
	}
	_, err = targets.Open(context.Background(), sc.Target, targets.Options{})
	if err == nil || !strings.Contains(err.Error(), `late.yaml:6: target.client.protocol: must be fast or goredis, got "resp3"`) {
		t.Errorf("open: %v", err)
	}
}
