package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/targets/cql/cqltest"
)

// TestRunCQLShardsMeetAtCounterBarrier runs a scylla scenario as two
// shards of soakd run, in parallel, with --target cql://... against the
// CQL test server: the scheme selects the cql adapter (the scenario's
// scylla alias stays), both shards load their halves and meet before
// each phase at a counter in ycsb.soakd_barriers, and the summaries say
// the target kind and the URL.
func TestRunCQLShardsMeetAtCounterBarrier(t *testing.T) {
	srv, err := cqltest.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	scen := write(t, t.TempDir(), "scylla.yaml", `name: scylla-test
target: {kind: scylla, url: "cql://127.0.0.1:1/ycsb"}
record: {fields: 2, field_bytes: 16}
keyspace: {records: 400}
phases:
  - {name: load, kind: load, concurrency: 4}
  - {name: run, kind: steady, rate: 400, duration: 1s, concurrency: 4, mix: {read: 50, update: 50}}
# What is tested is the barriers and the load: no SLO on latency, the
# achieved rate or drops, which a busy host decides (a shard exited 1
# under a load of 20).
slo: {max_dropped_ratio: 1}
`)
	url := "cql://" + srv.Addr() + "/ycsb?read_consistency=ONE"
	runID := fmt.Sprintf("cql-%d", time.Now().UnixNano())
	dirs := []string{filepath.Join(t.TempDir(), "s0"), filepath.Join(t.TempDir(), "s1")}
	codes := make([]int, 2)
	msgs := make([]string, 2)
	var wg sync.WaitGroup
	for i := range dirs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			var out, errb syncBuf
			app := &App{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }, Now: time.Now}
			codes[i] = app.Main(context.Background(), []string{"run", scen, "--target", url, "--out", dirs[i], "--listen", "", "--quiet",
				"--shard", fmt.Sprintf("%d/2", i), "--run-id", runID, "--barrier-timeout", "20s"})
			msgs[i] = errb.String()
		}(i)
	}
	wg.Wait()
	for i := range dirs {
		if codes[i] != 0 {
			t.Fatalf("shard %d: exit %d\n%s", i, codes[i], msgs[i])
		}
		s, err := rundir.ReadSummary(dirs[i])
		if err != nil {
			t.Fatal(err)
		}
		if s.Target.Kind != "scylla" || !strings.HasPrefix(s.Target.URL, "cql://"+srv.Addr()) {
			t.Errorf("shard %d: target %+v", i, s.Target)
		}
	}
	if n := srv.Rows("ycsb.usertable"); n != 400 {
		t.Errorf("rows %d, want 400 (each shard loads its half)", n)
	}
	// One counter per phase barrier, each at 2.
	barriers := 0
	for _, r := range srv.Requests() {
		if strings.HasPrefix(r.Stmt, "UPDATE ycsb.soakd_barriers SET n = n + 1") && r.Opcode == cqltest.OpExecute {
			barriers++
			key := string(r.Values[0])
			row := srv.Row("ycsb.soakd_barriers", key)
			if row == nil || binary.BigEndian.Uint64([]byte(row["n"])) != 2 {
				t.Errorf("barrier %s: %v", key, row)
			}
		}
	}
	if barriers != 4 {
		t.Errorf("%d barrier arrivals, want 2 shards x 2 phases", barriers)
	}
}
