package redis

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/soakd/soakd/engine"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// TestPingInlineSendsInline: ping_inline writes the bare line
// "PING\r\n" (redis-benchmark's PING_INLINE) on a connection that
// authenticated first, and ping stays a RESP array.
func TestPingInlineSendsInline(t *testing.T) {
	f := startFake(t)
	tg := openTarget(t, scenarios.Target{URL: f.url(), Auth: scenarios.Auth{PasswordEnv: "PW"}},
		targets.Options{Env: func(string) string { return "s3cret" }})
	ctx := ctxT(t)
	f.reset()
	for i := 0; i < 3; i++ {
		if err := tg.Do(ctx, &targets.Request{Op: scenarios.OpPingInline}); err != nil {
			t.Fatal(err)
		}
	}
	if got := f.commands("INLINE"); strings.Join(got, ",") != "INLINE PING,INLINE PING,INLINE PING" {
		t.Errorf("inline commands %q, want three bare PING lines", got)
	}
	if got := f.commands("AUTH"); len(got) != 1 || got[0] != "AUTH s3cret" {
		t.Errorf("the inline connection sent %q before its first PING, want one AUTH", got)
	}
	f.reset()
	if err := tg.Do(ctx, &targets.Request{Op: scenarios.OpPing}); err != nil {
		t.Fatal(err)
	}
	if got := f.commands(""); len(got) != 1 || got[0] != "PING" {
		t.Errorf("ping sent %q, want one RESP PING", got)
	}
}

// TestPopsOnEmptyAreMisses: a pop of an empty structure is a miss, not
// a silent success.
func TestPopsOnEmptyAreMisses(t *testing.T) {
	s := mustRedis(t)
	tg := openURL(t, s)
	ctx := ctxT(t)
	for _, op := range []scenarios.Op{scenarios.OpLPop, scenarios.OpRPop, scenarios.OpSPop, scenarios.OpZPopMin} {
		err := tg.Do(ctx, &targets.Request{Op: op, KeyNum: 1, Key: []byte("key:1")})
		if !errors.Is(err, targets.ErrMiss) || targets.Classify(tg, err) != targets.ClassMiss {
			t.Errorf("%s on an empty structure: %v, want a miss", op, err)
		}
	}
}

// suiteScenario is the shipped redis-benchmark suite with each phase's
// request count scaled down to n, aimed at url.
func suiteScenario(t *testing.T, url string, n int64) *scenarios.Scenario {
	t.Helper()
	sc, err := scenarios.LoadFile("../../scenarios/redis-benchmark-suite.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sc.Target.URL = url
	for i := range sc.Phases {
		sc.Phases[i].Requests = n
	}
	return sc
}

// TestSuitePopsNeverMiss runs the redis-benchmark suite through
// engine.Run on a real redis-server, with the pools sized as soakd run
// sizes them: every phase runs exactly its requests, no op errs and no
// pop (lpop, rpop, spop, zpopmin) finds its structure empty.
func TestSuitePopsNeverMiss(t *testing.T) {
	s := mustRedis(t)
	const n = 2000
	sc := suiteScenario(t, s.URL(), n)
	tg := openTarget(t, sc.Target, targets.Options{Concurrency: sc.MaxConcurrency()})
	sum, err := engine.Run(context.Background(), engine.Options{Scenario: sc, Target: tg, TargetKind: "redis", OutDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Phases) != len(sc.Phases) {
		t.Fatalf("%d phases ran, want %d", len(sum.Phases), len(sc.Phases))
	}
	for _, p := range sum.Phases {
		if p.Completed != n || p.Errors != 0 || p.Dropped != 0 {
			t.Errorf("phase %s: completed %d errors %d dropped %d, want %d ops without errors", p.Name, p.Completed, p.Errors, p.Dropped, n)
		}
		for op, r := range p.Ops {
			if r.Misses != 0 && op != "get" {
				t.Errorf("phase %s: %d of %d %s ops missed", p.Name, r.Misses, r.Count, op)
			}
		}
	}
	if got := tg.Client().PoolStats().TotalConns; got > 50 {
		t.Errorf("pool holds %d connections, more than the suite's 50 clients", got)
	}
}
