package redis

import "testing"

// TestParseCommandStats: commandstats gives each command's calls and the
// server's time on them, latencystats its percentiles; the totals leave
// INFO (the sampler's own command) out.
func TestParseCommandStats(t *testing.T) {
	text := "# Commandstats\r\n" +
		"cmdstat_get:calls=1000,usec=2500,usec_per_call=2.50,rejected_calls=0,failed_calls=0\r\n" +
		"cmdstat_client|setname:calls=4,usec=8,usec_per_call=2.00,rejected_calls=0,failed_calls=0\r\n" +
		"cmdstat_info:calls=10,usec=4000,usec_per_call=400.00,rejected_calls=0,failed_calls=0\r\n" +
		"cmdstat_broken:calls=x\r\n" +
		"# Latencystats\r\n" +
		"latency_percentiles_usec_get:p50=2.003,p99=9.023,p99.9=20.031\r\n"
	st := map[string]float64{}
	ParseCommandStats(text, st)
	want := map[string]float64{
		"cmd_get_calls_total": 1000, "cmd_get_seconds_total": 0.0025,
		"cmd_client|setname_calls_total": 4, "cmd_client|setname_seconds_total": 8e-6,
		"cmd_info_calls_total": 10, "cmd_info_seconds_total": 0.004,
		"cmd_get_p50_seconds": 2.003e-6, "cmd_get_p99_seconds": 9.023e-6, "cmd_get_p99.9_seconds": 20.031e-6,
		ServerCalls: 1004, ServerBusy: 0.002508,
	}
	if len(st) != len(want) {
		t.Fatalf("%d figures, want %d: %v", len(st), len(want), st)
	}
	for k, v := range want {
		if got, ok := st[k]; !ok || got < v*0.999999 || got > v*1.000001 {
			t.Errorf("%s = %v (present %v), want %v", k, got, ok, v)
		}
	}
	empty := map[string]float64{}
	ParseCommandStats("# Commandstats\r\n", empty)
	if len(empty) != 0 {
		t.Fatalf("no commands gave %v", empty)
	}
	if !hasLatencyStats("redis_version:7.0.15\r\n") || hasLatencyStats("redis_version:6.2.1\r\n") || hasLatencyStats("") {
		t.Fatal("latencystats is Redis 7's")
	}
}
