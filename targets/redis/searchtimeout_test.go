package redis

import (
	"strings"
	"testing"

	"github.com/soakd/soakd/internal/testutil"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// The target line names RediSearch's query timeout and what the server
// does when a search runs past it: under ON_TIMEOUT RETURN (the default)
// a search cut short is a short, successful reply, and the line says so.
// RediSearch 1.2 is read from its load arguments (it has no FT.CONFIG).
func TestSearchTimeoutDescribed(t *testing.T) {
	testutil.NeedFile(t, redisearchSO)
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "query timeout 500 ms, ON_TIMEOUT return: a search cut short counts as done"},
		{[]string{"TIMEOUT", "0"}, "no query timeout"},
		{[]string{"TIMEOUT", "200", "ON_TIMEOUT", "FAIL"}, "query timeout 200 ms fails the search"},
	} {
		s := startRedis(t, append([]string{"--loadmodule", redisearchSO}, c.args...)...)
		tg := openURL(t, s)
		if err := tg.Prepare(ctxT(t), searchScenario()); err != nil {
			t.Fatal(err)
		}
		if d := tg.Describe(); !strings.Contains(d, "RediSearch 1.2.") || !strings.Contains(d, "("+c.want+")") {
			t.Errorf("module args %q: target line %q, want %q", c.args, d, c.want)
		}
	}
}

// RediSearch 2.x answers FT.CONFIG GET, which wins over the defaults:
// a list of pairs under RESP2, a map under RESP3.
func TestSearchTimeoutFromFTConfig(t *testing.T) {
	for _, asMap := range []bool{false, true} {
		f := startFake(t, [2]any{"search", 20804})
		f.mu.Lock()
		f.ftconf = map[string]string{"TIMEOUT": "100", "ON_TIMEOUT": "FAIL"}
		f.ftconfMap = asMap
		f.mu.Unlock()
		tg := openTarget(t, scenarios.Target{URL: f.url()}, targets.Options{})
		if err := tg.Prepare(ctxT(t), searchScenarioPrefix("doc:")); err != nil {
			t.Fatal(err)
		}
		if d := tg.Describe(); !strings.Contains(d, "RediSearch 2.8.4 (query timeout 100 ms fails the search)") {
			t.Errorf("map reply %v: target line %q", asMap, d)
		}
		if got := f.commands("FT.CONFIG"); len(got) != 2 {
			t.Fatalf("FT.CONFIG sent %q", got)
		}
	}
}
