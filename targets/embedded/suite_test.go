package embedded

import (
	"context"
	"testing"

	"github.com/soakd/soakd/engine"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// TestSuiteOnEmbedded runs the shipped redis-benchmark suite (scaled to
// 500 requests per test) on the embedded store through engine.Run: its
// server takes ping_inline's inline PING, ZADD and ZPOPMIN, and no pop
// finds an empty structure.
func TestSuiteOnEmbedded(t *testing.T) {
	sc, err := scenarios.LoadFile("../../scenarios/redis-benchmark-suite.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sc.Target = scenarios.Target{Kind: "embedded"}
	const n = 500
	for i := range sc.Phases {
		sc.Phases[i].Requests = n
	}
	ctx := context.Background()
	tg, err := targets.Open(ctx, sc.Target, targets.Options{Concurrency: sc.MaxConcurrency()})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	sum, err := engine.Run(ctx, engine.Options{Scenario: sc, Target: tg, TargetKind: "embedded", OutDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range sum.Phases {
		if p.Completed != n || p.Errors != 0 {
			t.Errorf("phase %s: completed %d errors %d, want %d without errors", p.Name, p.Completed, p.Errors, n)
		}
		for op, r := range p.Ops {
			if r.Misses != 0 && op != "get" {
				t.Errorf("phase %s: %d %s ops missed", p.Name, r.Misses, op)
			}
		}
	}
}

// TestDequeList: LPUSH/RPUSH/LPOP/RPOP/LRANGE keep list order across
// both ends of the deque.
func TestDequeList(t *testing.T) {
	var d deque
	for _, s := range []string{"c", "b", "a"} {
		d.pushFront([]byte(s))
	}
	for _, s := range []string{"d", "e"} {
		d.pushBack([]byte(s))
	}
	got := ""
	for i := 0; i < d.len(); i++ {
		got += string(d.at(i))
	}
	if got != "abcde" {
		t.Fatalf("order %q", got)
	}
	if string(d.popBack()) != "e" || string(d.popFront()) != "a" || string(d.popBack()) != "d" || string(d.popBack()) != "c" || string(d.popFront()) != "b" || d.len() != 0 {
		t.Fatal("pops out of order")
	}
}
