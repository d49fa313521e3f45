package engine

import (
	"bytes"
	"context"
	"flag"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/soakd/soakd/internal/testutil"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/targets"
	redistarget "github.com/soakd/soakd/targets/redis"
)

var updateCapture = flag.Bool("update-capture", false, "rewrite testdata/monitor-capture.txt from the capture TestReplayMonitorCapture records")

// shippedCapture is the MONITOR capture this test records (-update-capture).
const shippedCapture = "testdata/monitor-capture.txt"

// A built-in run against a real redis-server, recorded by redis-cli
// MONITOR beside it, replayed into a fresh redis-server leaves the same
// keys with the same values; the capture's CLIENT and the like are
// counted as skipped.
func TestReplayMonitorCapture(t *testing.T) {
	needRedis(t)
	cli := testutil.NeedTool(t, "redis-cli")
	rec := scenario(t, `
target: {kind: redis, managed: {persistence: none}}
record: {fields: 2, field_bytes: 12}
keyspace: {records: 80}
phases:
  - {name: load, kind: load, concurrency: 1}
  - {name: mixed, kind: steady, rate: 300, duration: 600ms, concurrency: 1, mix: {read: 20, update: 20, set: 20, incr: 10, lpush: 10, delete: 10, get: 10}}
`)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	tg, err := targets.Open(ctx, rec.Target, targets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	src := tg.(*redistarget.Target).Client()
	addr := src.(*goredis.Client).Options().Addr
	host, port, _ := net.SplitHostPort(addr)

	capPath := filepath.Join(t.TempDir(), "capture.txt")
	out, err := os.Create(capPath)
	if err != nil {
		t.Fatal(err)
	}
	mon := exec.Command(cli, "-h", host, "-p", port, "MONITOR")
	mon.Stdout = out
	if err := mon.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { mon.Process.Kill(); mon.Wait() }()
	waitFor(t, capPath, "OK\n")
	if _, err := Run(ctx, Options{Scenario: rec, Target: tg, TargetKind: rec.Target.Kind, OutDir: t.TempDir(), Interval: 200 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	// The ECHO marks the capture's end: once MONITOR printed it,
	// everything the run sent is in the file.
	if err := src.Do(ctx, "ECHO", "soakd-capture-end").Err(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, capPath, `"soakd-capture-end"`)
	mon.Process.Kill()
	mon.Wait()
	out.Close()
	data, _ := os.ReadFile(capPath)
	if *updateCapture {
		if err := os.WriteFile(shippedCapture, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	for _, c := range []struct{ name, path, client string }{{"recorded", capPath, ""}, {"shipped", shippedCapture, ""}, {"shipped-goredis", shippedCapture, ", client: {protocol: goredis}"}} {
		t.Run(c.name, func(t *testing.T) {
			abs, _ := filepath.Abs(c.path)
			data, err := os.ReadFile(abs)
			if err != nil {
				t.Fatal(err)
			}
			if len(data) > 100<<10 {
				t.Fatalf("%s is %d bytes; keep the capture under 100 KB", c.path, len(data))
			}
			rp := scenario(t, `
target: {kind: redis, managed: {persistence: none}`+c.client+`}
phases:
  - {name: replay, kind: replay, source: `+abs+`, format: monitor, speed: 4, concurrency: 1}
`)
			sum, _, dst := runRedis(t, rp, rundir.Shard{})
			p := sum.Phases[0]
			if p.Result.Completed != p.Replay.Ops || p.Result.Dropped != 0 {
				t.Fatalf("replay: completed %d of %d ops, dropped %d", p.Result.Completed, p.Replay.Ops, p.Result.Dropped)
			}
			for _, g := range []string{"HSET", "HGETALL", "SET", "GET"} {
				if p.Result.Ops[g].Count == 0 {
					t.Errorf("no %s ops replayed: %v", g, keysOf(p.Result.Ops))
				}
			}
			if c.name == "recorded" {
				compareKeys(t, src, dst)
			} else if n, _ := dst.DBSize(context.Background()).Result(); n < 50 {
				t.Errorf("the shipped capture left %d keys", n)
			}
			t.Logf("%s: %d lines, %d ops, skipped %v, groups %v", c.name, p.Replay.Lines, p.Replay.Ops, p.Replay.Skipped, keysOf(p.Result.Ops))
		})
	}
}

func keysOf[V any](m map[string]V) []string {
	return slices.Sorted(func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	})
}

// compareKeys fails unless a and b hold the same keys with the same values.
func compareKeys(t *testing.T, a, b goredis.UniversalClient) {
	t.Helper()
	ctx := context.Background()
	ka, err := a.Keys(ctx, "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	kb, err := b.Keys(ctx, "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(ka)
	slices.Sort(kb)
	if len(ka) < 50 || !slices.Equal(ka, kb) {
		t.Fatalf("recorded server has %d keys, the replayed one %d (%d differ)", len(ka), len(kb), len(symDiff(ka, kb)))
	}
	for _, k := range ka {
		da, _ := a.Dump(ctx, k).Result()
		db, _ := b.Dump(ctx, k).Result()
		if da != db {
			t.Fatalf("key %s differs after the replay", k)
		}
	}
}

func symDiff(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	for _, x := range b {
		if !slices.Contains(a, x) {
			out = append(out, x)
		}
	}
	return out
}

// waitFor waits (up to 10 s) until file path contains s.
func waitFor(t *testing.T, path, s string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if b, _ := os.ReadFile(path); bytes.Contains(b, []byte(s)) {
			return
		}
	}
	b, _ := os.ReadFile(path)
	t.Fatalf("%s never showed %q (has %q)", path, s, strings.TrimSpace(string(b[:min(len(b), 200)])))
}

// A MONITOR capture that switches db is replayed with each db's keys
// under "dbN:" (after key_prefix), so the dbs stay apart in the
// target's one db; the summary lists the dbs.
func TestReplayMonitorDBs(t *testing.T) {
	capPath := writeCapture(t, "dbs.txt", []string{
		"OK",
		`1.000 [0 127.0.0.1:5000] "SET" "a" "zero"`,
		`1.001 [0 127.0.0.1:5000] "SELECT" "3"`,
		`1.002 [3 127.0.0.1:5000] "SET" "a" "three"`,
		`1.003 [3 127.0.0.1:5000] "HSET" "h" "f" "v3"`,
		`1.004 [0 127.0.0.1:5001] "INCR" "n"`,
		`1.005 [3 127.0.0.1:5000] "DEL" "a" "h"`,
		`1.006 [3 127.0.0.1:5000] "SET" "b" "x"`,
	})
	sc := scenario(t, `
target: {kind: redis, managed: {persistence: none}}
phases:
  - {name: replay, kind: replay, source: `+capPath+`, key_prefix: "r:", concurrency: 1}
`)
	sum, _, dst := runRedis(t, sc, rundir.Shard{})
	p := sum.Phases[0]
	if p.Result.Completed != 6 || p.Result.Errors != 0 || !slices.Equal(p.Replay.DBs, []int{0, 3}) || p.Replay.Skipped["SELECT"] != 1 {
		t.Fatalf("completed %d errors %d dbs %v skipped %v", p.Result.Completed, p.Result.Errors, p.Replay.DBs, p.Replay.Skipped)
	}
	ctx := context.Background()
	keys, _ := dst.Keys(ctx, "*").Result()
	slices.Sort(keys)
	if !slices.Equal(keys, []string{"r:db0:a", "r:db0:n", "r:db3:b"}) {
		t.Fatalf("keys %q", keys)
	}
	if v, _ := dst.Get(ctx, "r:db0:a").Result(); v != "zero" {
		t.Errorf("db0's a = %q", v)
	}
}
