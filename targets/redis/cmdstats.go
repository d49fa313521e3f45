package redis

import (
	"strconv"
	"strings"
)

// The server's own time per command (Redis 2.6+ INFO commandstats; the
// percentiles from Redis 7's INFO latencystats), what a verdict compares
// with the client's latency to say whether the server confirms a
// slowdown (verdict/serverside.go). Keys in the stats map:
//
//	cmd_<name>_calls_total    calls of the command since the server's start (or CONFIG RESETSTAT)
//	cmd_<name>_seconds_total  the server's time executing them (usec / 1e6)
//	cmd_<name>_p50_seconds, cmd_<name>_p99_seconds, cmd_<name>_p99.9_seconds
//	                          Redis 7's per-command percentiles since the start
//	server_calls_total, server_busy_seconds_total
//	                          the same summed over every command but INFO (the stats sampler's own)
//
// Names are lower case; a subcommand keeps its bar (cmd_client|setname_...).
// The totals are counters: a verdict takes their deltas between samples.
const (
	ServerCalls = "server_calls_total"
	ServerBusy  = "server_busy_seconds_total"
)

// ParseCommandStats adds INFO commandstats and latencystats text (either
// or both sections) to st.
func ParseCommandStats(text string, st map[string]float64) {
	var calls, busy float64
	seen := false
	for rest := text; rest != ""; {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		line = strings.TrimSpace(line)
		if name, v, ok := strings.Cut(line, ":"); ok {
			if cmd, ok := strings.CutPrefix(name, "cmdstat_"); ok {
				c, okc := kvField(v, "calls")
				u, oku := kvField(v, "usec")
				if !okc || !oku {
					continue
				}
				st["cmd_"+cmd+"_calls_total"] = c
				st["cmd_"+cmd+"_seconds_total"] = u * 1e-6
				if cmd != "info" {
					calls += c
					busy += u * 1e-6
					seen = true
				}
			} else if cmd, ok := strings.CutPrefix(name, "latency_percentiles_usec_"); ok {
				for _, q := range []string{"p50", "p99", "p99.9"} {
					if f, ok := kvField(v, q); ok {
						st["cmd_"+cmd+"_"+q+"_seconds"] = f * 1e-6
					}
				}
			}
		}
	}
	if seen {
		st[ServerCalls] = calls
		st[ServerBusy] = busy
	}
}

// kvField reads name=<number> out of "a=1,b=2".
func kvField(kvs, name string) (float64, bool) {
	for kvs != "" {
		var kv string
		kv, kvs, _ = strings.Cut(kvs, ",")
		if v, ok := strings.CutPrefix(kv, name+"="); ok {
			f, err := strconv.ParseFloat(v, 64)
			return f, err == nil
		}
	}
	return 0, false
}

// hasLatencyStats: INFO latencystats exists from Redis 7 (an older
// server takes one INFO section argument and knows no such section).
func hasLatencyStats(info string) bool {
	v := infoField(info, "redis_version")
	major, _, _ := strings.Cut(v, ".")
	n, err := strconv.Atoi(major)
	return err == nil && n >= 7
}
