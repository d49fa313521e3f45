package redis

import (
	"strconv"
	"strings"
	"testing"

	"github.com/soakd/soakd/internal/testutil"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// TestParseInfoAllocs: INFO is parsed once an interval on the pacer's
// Ps, so it keeps only the figures it reports instead of copying every
// line into a map: a 150-line INFO costs the result map's few
// allocations, not one or more per line (it was ~210).
func TestParseInfoAllocs(t *testing.T) {
	var b strings.Builder
	b.WriteString("# Server\r\nredis_version:7.2.4\r\nprocess_id:42\r\ntcp_port:6379\r\n# Memory\r\nused_memory:1000\r\nmaxmemory:0\r\n")
	for i := 0; i < 140; i++ {
		b.WriteString("filler_field_" + strconv.Itoa(i) + ":" + strconv.Itoa(i*1000) + "\r\n")
	}
	b.WriteString("# Stats\r\nevicted_keys:7\r\ntotal_commands_processed:123456\r\n# Keyspace\r\ndb0:keys=12,expires=0,avg_ttl=0\r\n")
	info := b.String()
	st, pid := ParseInfo(info)
	if pid != 42 || st["used_memory_bytes"] != 1000 || st["evicted_keys_total"] != 7 || st["commands_processed_total"] != 123456 || st["keys"] != 12 || len(st) != 5 {
		t.Fatalf("%v pid %d", st, pid)
	}
	if got := infoField(info, "tcp_port"); got != "6379" {
		t.Fatalf("tcp_port %q", got)
	}
	allocs := testing.AllocsPerRun(20, func() { ParseInfo(info) })
	t.Logf("%.0f allocations a parse of %d lines", allocs, strings.Count(info, "\n"))
	if allocs > 8 {
		t.Fatalf("%.0f allocations a parse, want at most 8 (the result map)", allocs)
	}
	if allocs := testing.AllocsPerRun(20, func() { infoField(info, "tcp_port") }); allocs != 0 {
		t.Fatalf("infoField: %.0f allocations, want 0", allocs)
	}
}

// TestServerStatsPausesBetweenPieces: against a server on this host,
// ServerStats sleeps (statsPause) before each of its /proc reads, after
// INFO's parse, so the pacer runs between them on one P instead of
// after all of them.
func TestServerStatsPausesBetweenPieces(t *testing.T) {
	testutil.NeedTool(t, "redis-server")
	s, err := StartServer(t.Context(), ServerConfig{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Stop() })
	tg := openTarget(t, scenarios.Target{URL: s.URL()}, targets.Options{})
	if !tg.local {
		t.Fatalf("a server on %s not taken for this host's", s.URL())
	}
	pauses := 0
	tg.statsPause = func() { pauses++ }
	st, err := tg.ServerStats(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := st["host_swap_total_bytes"]; !ok {
		t.Fatalf("no host swap figure: %v", st)
	}
	// After the parse, before the swap of the process (its cmdline
	// named our port), before the host's swap.
	if pauses != 3 {
		t.Fatalf("%d pauses, want 3", pauses)
	}
}
