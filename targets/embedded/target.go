package embedded

import (
	"context"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
	"github.com/soakd/soakd/targets/redis"
	"github.com/soakd/soakd/targets/resp"
)

func init() {
	// Only the shared client: options; no URL (scenarios picks this kind
	// for a target without one); the redis adapter's pipeline.
	targets.Register(string(scenarios.KindEmbedded), targets.Adapter{
		Open: Open, Order: 10, DefaultMaxBatch: redis.DefaultMaxBatch,
		Family: resp.Family, Scratch: true,
		Note: "target: embedded — figures measure soakd itself, not a database",
		Help: "embedded: an in-process Redis-protocol store; figures measure soakd itself",
	})
}

// Target is the redis adapter connected to an embedded server that it
// owns: closing the target stops the server.
type Target struct {
	*redis.Target
	srv *Server
}

// Open starts an embedded server on a free loopback port and connects
// the redis adapter to it.
func Open(ctx context.Context, t scenarios.Target, o targets.Options) (targets.Target, error) {
	srv, err := Start(Config{StallEvery: t.Embedded.StallEvery.D(), StallFor: t.Embedded.StallFor.D(), Restricted: t.Embedded.Restricted})
	if err != nil {
		return nil, err
	}
	rt := t
	rt.Kind = "redis"
	rt.URL = srv.URL()
	rt.Managed = nil
	o.AllowDestructive = true // soakd's own store, made for this run
	tg, err := redis.Open(ctx, rt, o)
	if err != nil {
		srv.Close()
		return nil, err
	}
	return &Target{Target: tg.(*redis.Target), srv: srv}, nil
}

// Server returns the embedded server.
func (t *Target) Server() *Server { return t.srv }

// Describe says plainly that figures measure soakd, not a database.
func (t *Target) Describe() string { return "in-process Redis-protocol store" }

// ServerStats reports the embedded store's key count.
func (t *Target) ServerStats(ctx context.Context) (map[string]float64, error) {
	return map[string]float64{"keys": float64(t.srv.Keys()), "stalls_total": float64(t.srv.Stalls())}, nil
}

// Close stops the client and the server.
func (t *Target) Close() error {
	err := t.Target.Close()
	if e := t.srv.Close(); err == nil {
		err = e
	}
	return err
}

// Arrive counts an arrival at barrier key with INCR. The embedded store
// lives and dies with one soakd process, so a barrier on it only ever
// joins runs inside that process (tests); it needs no expiry, and the
// redis adapter's MULTI/EXPIRE is not implemented by the embedded server.
// Arrived is the redis adapter's GET.
func (t *Target) Arrive(ctx context.Context, key string) (int, error) {
	n, err := t.Client().Incr(ctx, key).Result()
	return int(n), err
}
