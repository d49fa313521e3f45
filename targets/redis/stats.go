package redis

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
)

// infoStats maps INFO fields to soakd_server_* names and a scale factor.
var infoStats = []struct {
	field, name string
	scale       float64
}{
	{"used_memory", "used_memory_bytes", 1},
	{"maxmemory", "maxmemory_bytes", 1},
	{"used_memory_rss", "rss_bytes", 1},
	{"mem_fragmentation_ratio", "mem_fragmentation_ratio", 1},
	{"evicted_keys", "evicted_keys_total", 1},
	{"expired_keys", "expired_keys_total", 1},
	{"total_commands_processed", "commands_processed_total", 1},
	{"connected_clients", "connected_clients", 1},
	{"rdb_bgsave_in_progress", "rdb_bgsave_in_progress", 1},
	{"aof_rewrite_in_progress", "aof_rewrite_in_progress", 1},
	{"latest_fork_usec", "latest_fork_seconds", 1e-6},
	{"rdb_changes_since_last_save", "rdb_changes_since_last_save", 1},
}

// ServerStats reads INFO: memory used and limit, rss, evictions,
// persistence in progress, the last fork time, keys, and the swap of the
// server process when it runs on this host (from /proc).
func (t *Target) ServerStats(ctx context.Context) (map[string]float64, error) {
	info, err := t.c.Info(ctx).Result()
	if err != nil {
		return nil, err
	}
	st := parseInfo(info)
	if pid, ok := st["process_id"]; ok {
		delete(st, "process_id")
		if local(t.addr) {
			if sw, err := procSwap(int(pid)); err == nil {
				st["swap_bytes"] = sw
			}
		}
	}
	return st, nil
}

// parseInfo turns INFO text into soakd stats names.
func parseInfo(info string) map[string]float64 {
	raw := map[string]string{}
	var keys float64
	sc := bufio.NewScanner(strings.NewReader(info))
	for sc.Scan() {
		k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), ":")
		if !ok || strings.HasPrefix(k, "#") {
			continue
		}
		if strings.HasPrefix(k, "db") { // db0:keys=1,expires=0,avg_ttl=0
			for _, kv := range strings.Split(v, ",") {
				if n, ok := strings.CutPrefix(kv, "keys="); ok {
					f, _ := strconv.ParseFloat(n, 64)
					keys += f
				}
			}
			continue
		}
		raw[k] = v
	}
	st := map[string]float64{"keys": keys}
	for _, s := range infoStats {
		if v, ok := raw[s.field]; ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				st[s.name] = f * s.scale
			}
		}
	}
	if v, ok := raw["process_id"]; ok {
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			st["process_id"] = f
		}
	}
	return st
}

func local(addr string) bool {
	h, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	ip := net.ParseIP(h)
	return h == "localhost" || (ip != nil && ip.IsLoopback())
}

// procSwap reads VmSwap of a local process in bytes.
func procSwap(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmSwap:"); ok {
			f := strings.Fields(v)
			if len(f) >= 1 {
				kb, err := strconv.ParseFloat(f[0], 64)
				return kb * 1024, err
			}
		}
	}
	return 0, fmt.Errorf("no VmSwap for pid %d", pid)
}
