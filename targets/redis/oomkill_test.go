package redis

import (
	"bytes"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/soakd/soakd/internal/testutil"
)

// A managed server that outgrows its cgroup's memory cap is OOM-killed
// by the kernel, and its exit reason says so (not "signal: killed",
// which every SIGKILL reads as, nor the client's "broken pipe").
func TestManagedOOMKillNamed(t *testing.T) {
	needCgroup(t)
	testutil.NeedFile(t, "/usr/bin/redis-server")
	ctx := ctxT(t)
	s, err := StartServer(ctx, ServerConfig{Persistence: "none", CgroupMemory: 32 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	c := goredis.NewClient(&goredis.Options{Addr: s.Addr(), MaxRetries: -1})
	defer c.Close()
	val := bytes.Repeat([]byte("x"), 1<<20)
	for i := 0; i < 512; i++ { // 512 MB at most, 16 times the cap
		if err := c.Set(ctx, "k"+string(rune('a'+i%26))+strings.Repeat("z", i/26), val, 0).Err(); err != nil {
			break
		}
	}
	select {
	case <-s.Exited():
	case <-time.After(30 * time.Second):
		t.Fatal("the server outgrew its 32 MB cap and is still running")
	}
	if r := s.ExitReason(); !strings.Contains(r, "OOM-killed by the kernel: its cgroup's memory cap (32.0 MB) was reached") {
		t.Fatalf("exit reason %q", r)
	}
}
