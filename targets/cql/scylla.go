package cql

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// scyllaMetrics are the figures ServerStats takes from each node's
// Prometheus endpoint (URL option metrics_port, ScyllaDB's is 9180),
// summed over the node's shards and over the nodes; utilization is the
// mean over every shard. Counters get a _total suffix. A node that does
// not answer adds to cql_metrics_scrape_errors_total instead.
var scyllaMetrics = map[string]string{
	"scylla_cache_bytes_used":                            "scylla_cache_bytes_used",
	"scylla_cache_bytes_total":                           "scylla_cache_bytes_total",
	"scylla_lsa_total_space_bytes":                       "scylla_lsa_total_space_bytes",
	"scylla_memory_allocated_memory":                     "scylla_memory_allocated_bytes",
	"scylla_memory_free_memory":                          "scylla_memory_free_bytes",
	"scylla_compaction_manager_compactions":              "scylla_compactions_running",
	"scylla_storage_proxy_coordinator_read_timeouts":     "scylla_coordinator_read_timeouts_total",
	"scylla_storage_proxy_coordinator_write_timeouts":    "scylla_coordinator_write_timeouts_total",
	"scylla_storage_proxy_coordinator_read_unavailable":  "scylla_coordinator_read_unavailable_total",
	"scylla_storage_proxy_coordinator_write_unavailable": "scylla_coordinator_write_unavailable_total",
	"scylla_transport_requests_served":                   "scylla_cql_requests_served_total",
	"scylla_database_total_reads":                        "scylla_reads_total",
	"scylla_database_total_writes":                       "scylla_writes_total",
}

const scyllaUtilization = "scylla_reactor_utilization"

// scrapeScylla adds the Scylla figures of every node the driver sees up.
func (t *Target) scrapeScylla(ctx context.Context, out map[string]float64) {
	addrs := t.hosts.Load().upAddrs()
	sums := map[string]float64{}
	var utilSum float64
	var utilN, errs int
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, a := range addrs {
		wg.Add(1)
		go func(a string) {
			defer wg.Done()
			s, us, un, err := scrapeNode(ctx, "http://"+net.JoinHostPort(a, strconv.Itoa(t.cfg.MetricsPort))+"/metrics")
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs++
				return
			}
			for k, v := range s {
				sums[k] += v
			}
			utilSum += us
			utilN += un
		}(a)
	}
	wg.Wait()
	t.scrapeErrors.Add(int64(errs))
	out["cql_metrics_scrape_errors_total"] = float64(t.scrapeErrors.Load())
	for k, v := range sums {
		out[k] = v
	}
	if utilN > 0 {
		out["scylla_reactor_utilization_percent"] = utilSum / float64(utilN)
	}
}

func scrapeNode(ctx context.Context, url string) (map[string]float64, float64, int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, 0, 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, 0, 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, 0, 0, fmt.Errorf("%s: %s", url, resp.Status)
	}
	return parseScylla(io.LimitReader(resp.Body, 64<<20))
}

// parseScylla reads the Prometheus text format: "name{labels} value
// [timestamp]" lines, summing the wanted families over their series.
func parseScylla(r io.Reader) (sums map[string]float64, utilSum float64, utilN int, err error) {
	sums = map[string]float64{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		name, rest := line, ""
		if i := strings.IndexAny(line, "{ "); i >= 0 {
			name, rest = line[:i], line[i:]
		}
		if strings.HasPrefix(rest, "{") {
			j := strings.LastIndexByte(rest, '}')
			if j < 0 {
				continue
			}
			rest = rest[j+1:]
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			continue
		}
		v, perr := strconv.ParseFloat(f[0], 64)
		if perr != nil {
			continue
		}
		if name == scyllaUtilization {
			utilSum += v
			utilN++
			continue
		}
		if out, ok := scyllaMetrics[strings.TrimSuffix(name, "_total")]; ok {
			sums[out] += v
		}
	}
	return sums, utilSum, utilN, sc.Err()
}
