package redis

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"

	"github.com/soakd/soakd/internal/testutil"
)

func TestServerStats(t *testing.T) {
	s := startRedis(t)
	tg := openURL(t, s)
	ctx := ctxT(t)
	for n := int64(0); n < 25; n++ {
		if err := tg.Do(ctx, insertReq(n)); err != nil {
			t.Fatal(err)
		}
	}
	st, err := tg.ServerStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// 25 record hashes plus the scan index.
	if st["keys"] != 26 {
		t.Errorf("keys = %v, want 26", st["keys"])
	}
	for _, k := range []string{"used_memory_bytes", "used_memory_rss_bytes", "mem_fragmentation_ratio", "connected_clients"} {
		if st[k] <= 0 {
			t.Errorf("%s = %v, want > 0", k, st[k])
		}
	}
	for _, k := range []string{"maxmemory_bytes", "evicted_keys_total", "expired_keys_total", "rdb_bgsave_in_progress", "aof_rewrite_in_progress", "aof_enabled", "latest_fork_seconds"} {
		if v, ok := st[k]; !ok || v != 0 {
			t.Errorf("%s = %v (present %v), want 0", k, v, ok)
		}
	}
	if _, ok := st["aof_delayed_fsync_total"]; ok {
		t.Error("aof_delayed_fsync_total reported with AOF off")
	}
	if v, ok := st["process_swap_bytes"]; !ok || v < 0 {
		t.Errorf("process_swap_bytes missing for a local server: %v", st)
	}
	// A BGSAVE forks: latest_fork_seconds becomes positive.
	rc := rawClient(t, s)
	if err := rc.BgSave(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		st, _ = tg.ServerStats(ctx)
		if st["latest_fork_seconds"] > 0 && st["rdb_bgsave_in_progress"] == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no fork seen: %v", st)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestParseInfo(t *testing.T) {
	info := "# Server\r\nprocess_id:42\r\n# Memory\r\nused_memory:1000\r\nmaxmemory:0\r\nmem_fragmentation_ratio:1.5\r\n# Persistence\r\naof_enabled:1\r\naof_delayed_fsync:3\r\nlatest_fork_usec:2500\r\n# Keyspace\r\ndb0:keys=12,expires=0,avg_ttl=0\r\n"
	st, pid := ParseInfo(info)
	if pid != 42 || st["used_memory_bytes"] != 1000 || st["mem_fragmentation_ratio"] != 1.5 || st["aof_delayed_fsync_total"] != 3 || st["latest_fork_seconds"] != 0.0025 || st["keys"] != 12 || st["aof_enabled"] != 1 {
		t.Fatalf("%v pid %d", st, pid)
	}
	if _, ok := st["evicted_keys_total"]; ok {
		t.Fatal("absent figure reported")
	}
	st, _ = ParseInfo("# Keyspace\r\n")
	if v, ok := st["keys"]; !ok || v != 0 {
		t.Fatal("empty keyspace should be keys=0")
	}
	if procServesPort(os.Getpid(), "6379") {
		t.Fatal("the test process taken for a redis-server")
	}
	// VmSwap is absent from /proc on kernels built without swap: a
	// property of the host, not a missing tool, so a skip even in CI.
	if _, ok := ProcSwapBytes(os.Getpid()); !ok {
		testutil.HostSkip(t, "no VmSwap in /proc on this host")
	}
}

func managedTarget(t *testing.T, m scenarios.Managed) *Target {
	t.Helper()
	testutil.NeedTool(t, "redis-server")
	return openTarget(t, scenarios.Target{Kind: "redis", Managed: &m}, targets.Options{})
}

func TestManagedServer(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	tg := managedTarget(t, scenarios.Managed{DataDir: dir, Persistence: "aof:everysec", MaxMemory: 64 << 20, Policy: "allkeys-lru", Args: []string{"--hz", "20"}})
	ms := tg.Managed()
	if ms == nil {
		t.Fatal("no managed server")
	}
	ctx := ctxT(t)
	rc := rawClient(t, ms)
	cfg := rc.ConfigGet(ctx, "*").Val()
	want := map[string]string{"appendonly": "yes", "appendfsync": "everysec", "save": "", "maxmemory": strconv.Itoa(64 << 20), "maxmemory-policy": "allkeys-lru", "hz": "20", "dir": dir}
	for k, v := range want {
		if cfg[k] != v {
			t.Errorf("config %s = %q, want %q", k, cfg[k], v)
		}
	}
	if err := tg.Do(ctx, insertReq(1)); err != nil {
		t.Fatal(err)
	}
	st, _ := tg.ServerStats(ctx)
	if st["aof_enabled"] != 1 || st["maxmemory_bytes"] != 64<<20 {
		t.Fatalf("stats %v", st)
	}
	if _, ok := st["aof_delayed_fsync_total"]; !ok {
		t.Error("aof_delayed_fsync_total missing with AOF on")
	}
	if !strings.Contains(tg.Describe(), "managed by soakd (persistence aof:everysec)") {
		t.Errorf("describe %q", tg.Describe())
	}
	if err := tg.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ms.Exited():
	case <-time.After(StopGrace + time.Second):
		t.Fatal("Close did not stop the managed server")
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("a data dir the user named must stay: %v", err)
	}
}

func TestPersistenceArgs(t *testing.T) {
	for p, want := range map[string]string{
		"":             "--save  --appendonly no",
		"none":         "--save  --appendonly no",
		"rdb:300":      "--save 300 1 --appendonly no",
		"aof:everysec": "--appendonly yes --appendfsync everysec --save ",
		"aof:always":   "--appendonly yes --appendfsync always --save ",
	} {
		got, err := PersistenceArgs(p)
		if err != nil || strings.Join(got, " ") != want {
			t.Errorf("%q: %q %v", p, got, err)
		}
	}
	if _, err := PersistenceArgs("rdb:x"); err == nil {
		t.Error("rdb:x accepted")
	}
}

// TestManagedServerDiesMidRun: ops against a server that died fail fast
// with the connection class instead of hanging.
func TestManagedServerDiesMidRun(t *testing.T) {
	tg := managedTarget(t, scenarios.Managed{Persistence: "none"})
	ctx := ctxT(t)
	for n := int64(0); n < 10; n++ {
		if err := tg.Do(ctx, insertReq(n)); err != nil {
			t.Fatal(err)
		}
	}
	tg.Managed().Kill()
	for i := 0; i < 50; i++ {
		start := time.Now()
		err := tg.Do(ctx, &targets.Request{Op: scenarios.OpRead, KeyNum: 1, Key: key(1)})
		if el := time.Since(start); el > 1500*time.Millisecond {
			t.Fatalf("op %d took %s against a dead server", i, el)
		}
		if err == nil {
			t.Fatal("op succeeded against a dead server")
		}
		if c := targets.Classify(tg, err); c != targets.ClassConnection {
			t.Fatalf("op %d: class %s for %v", i, c, err)
		}
	}
}

func TestOOMClass(t *testing.T) {
	s := startRedis(t, "--maxmemory", "2mb", "--maxmemory-policy", "noeviction")
	tg := openURL(t, s)
	ctx := ctxT(t)
	big := make([]byte, 4096)
	var err error
	for n := int64(0); n < 5000 && err == nil; n++ {
		err = tg.Do(ctx, &targets.Request{Op: scenarios.OpInsert, KeyNum: n, Key: key(n), Fields: []targets.Field{{Name: "field0", Value: big}}})
	}
	if err == nil {
		t.Fatal("no error filling a 2mb noeviction server")
	}
	if c := targets.Classify(tg, err); c != targets.ClassOOM {
		t.Fatalf("class %s for %v", c, err)
	}
	// Reads still work on a full server.
	if err := tg.Do(ctx, &targets.Request{Op: scenarios.OpRead, KeyNum: 0, Key: key(0)}); err != nil {
		t.Fatal(err)
	}
}

// TestReconnectAfterRestart: kill -9 the server mid-loop, restart it on
// the same port; ops succeed again within about a second.
func TestReconnectAfterRestart(t *testing.T) {
	dir := t.TempDir()
	s := startRedisOn(t, 0, dir)
	tg := openTarget(t, scenarios.Target{URL: s.URL(), Client: scenarios.ClientOf(scenarios.ClientCommon{PoolSize: 8}, nil)}, targets.Options{})
	ctx := ctxT(t)
	ping := &targets.Request{Op: scenarios.OpPing}
	for i := 0; i < 100; i++ {
		if err := tg.Do(ctx, ping); err != nil {
			t.Fatal(err)
		}
	}
	s.Kill()
	var failed int
	for i := 0; i < 20; i++ {
		if err := tg.Do(ctx, ping); err != nil {
			if c := targets.Classify(tg, err); c != targets.ClassConnection {
				t.Fatalf("class %s for %v", c, err)
			}
			failed++
		}
	}
	if failed != 20 {
		t.Fatalf("%d of 20 ops failed against a killed server", failed)
	}
	s2 := startRedisOn(t, s.Port, dir)
	up := time.Now()
	for {
		err := tg.Do(ctx, ping)
		if err == nil {
			break
		}
		if time.Since(up) > 2500*time.Millisecond {
			t.Fatalf("no success %s after restart: %v", time.Since(up), err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Logf("ops succeeded again %s after the restarted server answered PING", time.Since(up).Round(time.Millisecond))
	_ = s2
}

func TestACLFromEnv(t *testing.T) {
	s := startRedis(t)
	rc := rawClient(t, s)
	ctx := ctxT(t)
	const pw = "s3cret-pw-123"
	if err := rc.Do(ctx, "ACL", "SETUSER", "soak", "on", ">"+pw, "~*", "+@all").Err(); err != nil {
		t.Fatal(err)
	}
	if err := rc.Do(ctx, "ACL", "SETUSER", "default", "off").Err(); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"R_USER": "soak", "R_PASS": pw}
	st := scenarios.Target{Kind: "redis", URL: s.URL(), Auth: scenarios.Auth{UsernameEnv: "R_USER", PasswordEnv: "R_PASS"}}
	tg := openTarget(t, st, targets.Options{Env: func(k string) string { return env[k] }})
	if err := tg.Do(ctx, insertReq(1)); err != nil {
		t.Fatal(err)
	}
	if who := tg.Client().Do(ctx, "ACL", "WHOAMI").Val(); who != "soak" {
		t.Fatalf("connected as %v", who)
	}
	env["R_PASS"] = "wrong-" + pw
	_, err := targets.Open(ctx, st, targets.Options{Env: func(k string) string { return env[k] }})
	if err == nil {
		t.Fatal("wrong password accepted")
	}
	if strings.Contains(err.Error(), pw) {
		t.Fatalf("error leaks the password: %v", err)
	}
	// Without credentials the default user is off: NOAUTH.
	_, err = targets.Open(ctx, scenarios.Target{Kind: "redis", URL: s.URL()}, targets.Options{})
	if err == nil {
		t.Fatal("no-auth connect accepted")
	}
}

func TestOpenErrorsRedactURL(t *testing.T) {
	port, _ := FreePort()
	_, err := targets.Open(context.Background(), scenarios.Target{Kind: "redis", URL: "redis://u:hunter2@127.0.0.1:" + strconv.Itoa(port)}, targets.Options{})
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("%v", err)
	}
	if c := targets.ClassifyGeneric(errors.Unwrap(err)); c != targets.ClassConnection {
		t.Fatalf("class %s for %v", c, err)
	}
}
