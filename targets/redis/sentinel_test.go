package redis

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// startSentinel starts a master and a sentinel that monitors it as
// soakmaster, and returns the master and the sentinel's address.
func startSentinel(t *testing.T) (*Server, string) {
	t.Helper()
	master := startRedis(t)
	dir := t.TempDir()
	port, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(dir, "sentinel.conf")
	body := "port " + strconv.Itoa(port) + "\nbind 127.0.0.1\ndir " + dir + "\nsentinel monitor soakmaster 127.0.0.1 " + strconv.Itoa(master.Port) + " 1\n"
	if err := os.WriteFile(conf, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("redis-server", conf, "--sentinel")
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
	})
	addr := "127.0.0.1:" + strconv.Itoa(port)
	sc := goredis.NewSentinelClient(&goredis.Options{Addr: addr, Protocol: 2, DisableIdentity: true})
	defer sc.Close()
	ctx := ctxT(t)
	deadline := time.Now().Add(5 * time.Second)
	for sc.GetMasterAddrByName(ctx, "soakmaster").Err() != nil {
		if time.Now().After(deadline) {
			t.Fatal("sentinel did not come up")
		}
		time.Sleep(50 * time.Millisecond)
	}
	return master, addr
}

func TestSentinel(t *testing.T) {
	master, addr := startSentinel(t)
	ctx := ctxT(t)
	tg := openTarget(t, scenarios.Target{URL: "redis://" + addr, Client: scenarios.ClientOf(scenarios.ClientCommon{}, ClientConfig{Mode: "sentinel", MasterName: "soakmaster", Addrs: []string{addr}})}, targets.Options{})
	if err := tg.Do(ctx, insertReq(3)); err != nil {
		t.Fatal(err)
	}
	// The write landed on the master the sentinel names.
	if rawClient(t, master).Exists(ctx, string(key(3))).Val() != 1 {
		t.Fatal("record not on the master")
	}
	if _, err := targets.Open(ctx, scenarios.Target{Kind: "redis", URL: "redis://" + addr, Client: scenarios.ClientOf(scenarios.ClientCommon{}, ClientConfig{Mode: "sentinel"})}, targets.Options{}); err == nil {
		t.Fatal("sentinel without master_name accepted")
	}
}
