package redis

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"

	"github.com/soakd/soakd/internal/testutil"
)

// startCluster starts three cluster-enabled redis-servers and joins them
// with redis-cli --cluster create (no replicas).
func startCluster(t *testing.T) []*Server {
	t.Helper()
	testutil.NeedTool(t, "redis-cli")
	var nodes []*Server
	var addrs []string
	for i := 0; i < 3; i++ {
		dir := t.TempDir()
		s := startRedisOn(t, 0, dir, "--cluster-enabled", "yes", "--cluster-config-file", dir+"/nodes.conf", "--cluster-node-timeout", "2000")
		nodes = append(nodes, s)
		addrs = append(addrs, s.Addr())
	}
	args := append([]string{"--cluster", "create"}, addrs...)
	args = append(args, "--cluster-replicas", "0", "--cluster-yes")
	out, err := exec.Command("redis-cli", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("redis-cli --cluster create: %v\n%s", err, out)
	}
	ctx := ctxT(t)
	for _, n := range nodes {
		c := goredis.NewClient(&goredis.Options{Addr: n.Addr(), Protocol: 2, DisableIdentity: true})
		deadline := time.Now().Add(10 * time.Second)
		for !strings.Contains(c.ClusterInfo(ctx).Val(), "cluster_state:ok") {
			if time.Now().After(deadline) {
				t.Fatalf("cluster not ok on %s", n.Addr())
			}
			time.Sleep(50 * time.Millisecond)
		}
		c.Close()
	}
	return nodes
}

func TestCluster(t *testing.T) {
	nodes := startCluster(t)
	addrs := []string{nodes[0].Addr(), nodes[1].Addr(), nodes[2].Addr()}
	tg := openTarget(t, scenarios.Target{Kind: "redis", URL: nodes[0].URL(), Client: scenarios.ClientOf(scenarios.ClientCommon{}, ClientConfig{Mode: "cluster", Addrs: addrs})}, targets.Options{})
	ctx := ctxT(t)
	var reqs []*targets.Request
	for n := int64(0); n < 60; n++ {
		reqs = append(reqs, insertReq(n))
	}
	errs := make([]error, len(reqs))
	tg.DoBatch(ctx, reqs, errs)
	for i, err := range errs {
		if err != nil {
			t.Fatalf("insert %d: %v", i, err)
		}
	}
	for _, r := range []*targets.Request{
		{Op: scenarios.OpRead, KeyNum: 7, Key: key(7)},
		{Op: scenarios.OpScan, KeyNum: 10, Key: key(10), ScanLen: 20},
		{Op: scenarios.OpRMW, KeyNum: 8, Key: key(8), Fields: []targets.Field{{Name: "field0", Value: []byte("x")}}},
		{Op: scenarios.OpMSet, KeyNum: 9, Key: []byte("key:9"), Fields: []targets.Field{{Name: "field0", Value: []byte("x")}}},
		{Op: scenarios.OpDelete, KeyNum: 9, Key: key(9)},
	} {
		if err := tg.Do(ctx, r); err != nil {
			t.Fatalf("%s: %v", r.Op, err)
		}
	}
	// Records spread over the masters; stats sum them.
	var perNode []int64
	var total int64
	for _, n := range nodes {
		c := goredis.NewClient(&goredis.Options{Addr: n.Addr(), Protocol: 2, DisableIdentity: true})
		k := c.DBSize(ctx).Val()
		c.Close()
		perNode = append(perNode, k)
		total += k
	}
	for i, k := range perNode {
		if k == 0 {
			t.Fatalf("node %d holds no keys: %v", i, perNode)
		}
	}
	st, err := tg.ServerStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if int64(st["keys"]) != total || st["used_memory_bytes"] <= 0 {
		t.Fatalf("cluster stats keys %v, want %d (%v)", st["keys"], total, perNode)
	}
	// A plain client on one node sees MOVED for a key it does not own.
	direct := openTarget(t, scenarios.Target{Kind: "redis", URL: nodes[0].URL()}, targets.Options{})
	moved := 0
	for n := int64(0); n < 20; n++ {
		err := direct.Do(ctx, &targets.Request{Op: scenarios.OpGet, Key: []byte("k" + strconv.FormatInt(n, 10))})
		if err != nil && targets.Classify(direct, err) == targets.ClassMoved {
			moved++
		}
	}
	if moved == 0 {
		t.Fatal("no MOVED classified from a single-node client")
	}
}
