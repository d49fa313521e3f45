package redis

import (
	"bufio"
	"context"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// infoStats maps INFO fields to soakd_server_* names; scale converts
// units (microseconds to seconds).
var infoStats = []struct {
	field, name string
	scale       float64
}{
	{"used_memory", "used_memory_bytes", 1},
	{"maxmemory", "maxmemory_bytes", 1},
	{"used_memory_rss", "used_memory_rss_bytes", 1},
	{"mem_fragmentation_ratio", "mem_fragmentation_ratio", 1},
	{"evicted_keys", "evicted_keys_total", 1},
	{"expired_keys", "expired_keys_total", 1},
	{"rdb_bgsave_in_progress", "rdb_bgsave_in_progress", 1},
	{"aof_rewrite_in_progress", "aof_rewrite_in_progress", 1},
	{"aof_enabled", "aof_enabled", 1},
	{"rdb_saves", "rdb_saves_total", 1},
	{"aof_rewrites", "aof_rewrites_total", 1},
	{"latest_fork_usec", "latest_fork_seconds", 1e-6},
	{"aof_delayed_fsync", "aof_delayed_fsync_total", 1},
	{"connected_clients", "connected_clients", 1},
	{"rdb_changes_since_last_save", "rdb_changes_since_last_save", 1},
	{"total_commands_processed", "commands_processed_total", 1},
}

// ParseInfo turns INFO text into soakd's server stats. Figures the text
// lacks are absent. keys is db0's key count (0 when the Keyspace section
// is present without db0).
//
// It runs once an interval on the same Ps as the pacer, so it walks the
// text in place and keeps only the figures it reports: no copy of the
// ~150 lines into a map (it made ~210 allocations and ~30 KB a call).
func ParseInfo(info string) (stats map[string]float64, pid int) {
	stats = make(map[string]float64, len(infoStats)+1)
	keyspace, db0 := false, false
	for rest := info; rest != ""; {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if line[0] == '#' {
			if line == "# Keyspace" {
				keyspace = true
			}
			continue
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		switch k {
		case "process_id":
			pid, _ = strconv.Atoi(v)
		case "db0":
			db0 = true
			for kvs := v; kvs != ""; {
				var kv string
				kv, kvs, _ = strings.Cut(kvs, ",")
				if n, ok := strings.CutPrefix(kv, "keys="); ok {
					if f, err := strconv.ParseFloat(n, 64); err == nil {
						stats["keys"] = f
					}
				}
			}
		default:
			for _, s := range infoStats {
				if s.field == k {
					if f, err := strconv.ParseFloat(v, 64); err == nil {
						stats[s.name] = f * s.scale
					}
					break
				}
			}
		}
	}
	if !db0 && keyspace {
		stats["keys"] = 0
	}
	return stats, pid
}

// ProcSwapBytes reads VmSwap of a process from /proc (ok false when the
// figure is unavailable).
func ProcSwapBytes(pid int) (float64, bool) {
	if pid <= 0 {
		return 0, false
	}
	return meminfoBytes("/proc/"+strconv.Itoa(pid)+"/status", "VmSwap")
}

// ServerStats reads INFO (memory, persistence, stats, clients, keyspace)
// and, for a server on this host, its process's swap. In a cluster the
// masters' figures are summed (ratios and flags take the maximum).
func (t *Target) ServerStats(ctx context.Context) (map[string]float64, error) {
	if cc, ok := t.c.(*goredis.ClusterClient); ok {
		var mu sync.Mutex
		total := map[string]float64{}
		err := cc.ForEachMaster(ctx, func(ctx context.Context, c *goredis.Client) error {
			info, err := c.Info(ctx).Result()
			if err != nil {
				return err
			}
			st, _ := ParseInfo(info)
			if cs, err := c.Info(ctx, "commandstats").Result(); err == nil {
				ParseCommandStats(cs, st)
			}
			mu.Lock()
			defer mu.Unlock()
			for k, v := range st {
				switch k {
				case "mem_fragmentation_ratio", "rdb_bgsave_in_progress", "aof_rewrite_in_progress", "aof_enabled", "latest_fork_seconds":
					if v > total[k] {
						total[k] = v
					}
				default:
					total[k] += v
				}
			}
			return nil
		})
		return total, err
	}
	info, err := t.c.Info(ctx).Result()
	if err != nil {
		return nil, err
	}
	st, pid := ParseInfo(info)
	if cs, err := t.c.Info(ctx, "commandstats").Result(); err == nil {
		ParseCommandStats(cs, st)
	}
	if hasLatencyStats(info) {
		if ls, err := t.c.Info(ctx, "latencystats").Result(); err == nil {
			ParseCommandStats(ls, st)
		}
	}
	if t.local {
		t.pause()
		if procServesPort(pid, infoField(info, "tcp_port")) {
			t.pause()
			if sw, ok := ProcSwapBytes(pid); ok {
				st["process_swap_bytes"] = sw
			}
		}
		t.pause()
		if sw, ok := HostSwapBytes(); ok {
			st["host_swap_total_bytes"] = sw
		}
	}
	if t.managed != nil {
		for k, v := range t.managed.CgroupStats() {
			st[k] = v
		}
	}
	return st, nil
}

// statsNap is the sleep between ServerStats's pieces on this host: the
// INFO parse and each /proc read (tens of microseconds each, a syscall
// that holds the P). With one P (GOMAXPROCS=1) the pacer, parked in the
// netpoller, runs only when this goroutine blocks, and a yield would
// hand the P straight back; a short sleep parks it on a timer, so the
// scheduler polls the network first (the collector does the same:
// engine/pause.go).
const statsNap = 20 * time.Microsecond

// pause lets the pacer run between ServerStats's pieces.
func (t *Target) pause() {
	if t.statsPause != nil {
		t.statsPause()
		return
	}
	time.Sleep(statsNap)
}

// HostSwapBytes reads SwapTotal from /proc/meminfo (ok false when the
// figure is unavailable).
func HostSwapBytes() (float64, bool) { return meminfoBytes("/proc/meminfo", "SwapTotal") }

// meminfoBytes reads a "Field:   123 kB" line of a /proc file.
func meminfoBytes(path, field string) (float64, bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			fs := strings.Fields(v)
			if len(fs) == 0 {
				return 0, false
			}
			n, err := strconv.ParseFloat(fs[0], 64)
			if err != nil {
				return 0, false
			}
			if len(fs) > 1 && strings.EqualFold(fs[1], "kB") {
				n *= 1024
			}
			return n, true
		}
	}
	return 0, false
}

// procServesPort checks that process pid on this host is the server we
// talk to: redis-server's process title ends in ":<port>". A server in a
// container reached through a forwarded port reports a pid of its own
// namespace, which must not be read from this host's /proc.
func procServesPort(pid int, port string) bool {
	if pid <= 0 || port == "" {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return false
	}
	title := strings.TrimRight(strings.ReplaceAll(string(b), "\x00", " "), " ")
	return strings.Contains(title, ":"+port+" ") || strings.HasSuffix(title, ":"+port)
}
