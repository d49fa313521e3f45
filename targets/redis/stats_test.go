package redis

import (
	"os"
	"testing"
)

func TestParseInfo(t *testing.T) {
	info := "# Server\r\nredis_version:7.0.15\r\nprocess_id:4242\r\n# Memory\r\nused_memory:1048576\r\nused_memory_rss:2097152\r\n" +
		"maxmemory:0\r\nmem_fragmentation_ratio:1.25\r\n# Persistence\r\nrdb_bgsave_in_progress:1\r\naof_rewrite_in_progress:0\r\n" +
		"# Stats\r\nevicted_keys:7\r\nexpired_keys:3\r\ntotal_commands_processed:99\r\nlatest_fork_usec:1500\r\n" +
		"# Clients\r\nconnected_clients:5\r\n# Keyspace\r\ndb0:keys=10,expires=0,avg_ttl=0\r\ndb1:keys=5,expires=1,avg_ttl=9\r\n"
	got := parseInfo(info)
	want := map[string]float64{
		"used_memory_bytes": 1 << 20, "rss_bytes": 2 << 20, "maxmemory_bytes": 0, "mem_fragmentation_ratio": 1.25,
		"rdb_bgsave_in_progress": 1, "aof_rewrite_in_progress": 0, "evicted_keys_total": 7, "expired_keys_total": 3,
		"commands_processed_total": 99, "latest_fork_seconds": 0.0015, "connected_clients": 5, "keys": 15, "process_id": 4242,
	}
	if len(got) != len(want) {
		t.Errorf("got %d stats, want %d: %v", len(got), len(want), got)
	}
	for k, v := range want {
		if g, ok := got[k]; !ok || g != v {
			t.Errorf("%s = %v (present %v), want %v", k, g, ok, v)
		}
	}
}

func TestProcSwapAndLocal(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc")
	}
	if sw, err := procSwap(os.Getpid()); err != nil || sw < 0 {
		t.Fatalf("procSwap(self) = %v, %v", sw, err)
	}
	for addr, want := range map[string]bool{"127.0.0.1:6379": true, "localhost:1": true, "[::1]:6379": true, "10.0.0.5:6379": false, "bad": false} {
		if local(addr) != want {
			t.Errorf("local(%q) != %v", addr, want)
		}
	}
}
