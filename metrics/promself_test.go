package metrics

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/soakd/soakd/internal/selfhealth"
)

func TestExporterSelfHealth(t *testing.T) {
	e := NewExporter("s", "1/1", nil, nil)
	if n := testutil.CollectAndCount(e, "soakd_self_cpu_seconds_total", "soakd_host_load1"); n != 0 {
		t.Fatalf("%d self metrics before the first sample", n)
	}
	e.SetSelfHealth(selfhealth.Sample{CPU: 1.5, ThreadCPUMax: 0.75, RunqueueDelay: 0.25, Load1: 3.5, Steal: 0.125, Threads: 9,
		CPUSeconds: 42, RunqueueDelaySeconds: 7})
	want := `
# HELP soakd_host_load1 The host's 1-minute load average.
# TYPE soakd_host_load1 gauge
soakd_host_load1{scenario="s",shard="1/1"} 3.5
# HELP soakd_host_steal_ratio Share of the host's CPU time stolen by the hypervisor over the last interval (0..1).
# TYPE soakd_host_steal_ratio gauge
soakd_host_steal_ratio{scenario="s",shard="1/1"} 0.125
# HELP soakd_self_cpu_cores soakd's own process CPU over the last interval in cores (CPU-seconds per second).
# TYPE soakd_self_cpu_cores gauge
soakd_self_cpu_cores{scenario="s",shard="1/1"} 1.5
# HELP soakd_self_cpu_seconds_total soakd's own process CPU time (user + system), from /proc/self/stat.
# TYPE soakd_self_cpu_seconds_total counter
soakd_self_cpu_seconds_total{scenario="s",shard="1/1"} 42
# HELP soakd_self_runqueue_delay_ratio Seconds soakd's threads waited for a CPU per second over the last interval (summed over threads).
# TYPE soakd_self_runqueue_delay_ratio gauge
soakd_self_runqueue_delay_ratio{scenario="s",shard="1/1"} 0.25
# HELP soakd_self_runqueue_delay_seconds_total Time soakd's threads spent runnable but waiting for a CPU (schedstat run_delay, summed over threads).
# TYPE soakd_self_runqueue_delay_seconds_total counter
soakd_self_runqueue_delay_seconds_total{scenario="s",shard="1/1"} 7
# HELP soakd_self_thread_cpu_max_cores CPU of soakd's busiest thread over the last interval (1 = a whole core: a single-thread bottleneck).
# TYPE soakd_self_thread_cpu_max_cores gauge
soakd_self_thread_cpu_max_cores{scenario="s",shard="1/1"} 0.75
# HELP soakd_self_threads soakd's threads.
# TYPE soakd_self_threads gauge
soakd_self_threads{scenario="s",shard="1/1"} 9
`
	if err := testutil.CollectAndCompare(e, strings.NewReader(want), "soakd_self_cpu_seconds_total", "soakd_self_cpu_cores", "soakd_self_thread_cpu_max_cores",
		"soakd_self_runqueue_delay_seconds_total", "soakd_self_runqueue_delay_ratio", "soakd_host_load1", "soakd_host_steal_ratio", "soakd_self_threads"); err != nil {
		t.Fatal(err)
	}
}
