package redis

import (
	"context"
	"errors"

	goredis "github.com/redis/go-redis/v9"

	"github.com/soakd/soakd/targets"
)

var _ targets.Barrier = (*Target)(nil)

// Arrive counts this shard in at barrier key: INCR and EXPIRE in one
// MULTI, so the counter never outlives targets.BarrierTTL. One key, so
// it works on a cluster (the key's slot owner holds it) and through
// sentinel alike.
func (t *Target) Arrive(ctx context.Context, key string) (int, error) {
	var incr *goredis.IntCmd
	_, err := t.c.TxPipelined(ctx, func(p goredis.Pipeliner) error {
		incr = p.Incr(ctx, key)
		p.Expire(ctx, key, targets.BarrierTTL)
		return nil
	})
	if err != nil {
		return 0, err
	}
	return int(incr.Val()), nil
}

// Arrived reads barrier key's counter (GET); an absent key is 0.
func (t *Target) Arrived(ctx context.Context, key string) (int, error) {
	n, err := t.c.Get(ctx, key).Int()
	if errors.Is(err, goredis.Nil) {
		return 0, nil
	}
	return n, err
}
