package cql

import (
	"context"

	"github.com/gocql/gocql"
)

// BarrierTable holds the shards' phase barriers in the scenario's
// keyspace, one counter row per barrier (k text PRIMARY KEY, n counter).
// Prepare creates it; truncate it at will between runs.
const BarrierTable = "soakd_barriers"

// Arrive adds one to barrier key's counter and reads it back, both at
// QUORUM whatever the scenario's consistency, so every shard reads what
// a majority of replicas hold. Two shards may arrive between one's
// increment and its read; both then read the larger count, which only
// lets them pass together. A counter update is not idempotent: it is
// sent once, never retried.
func (t *Target) Arrive(ctx context.Context, key string) (int, error) {
	ctx, cancel := t.timeouts.Context(ctx, true)
	defer cancel()
	err := t.sess().Query("UPDATE "+t.cfg.Keyspace+"."+BarrierTable+" SET n = n + 1 WHERE k = ?", key).
		WithContext(ctx).Consistency(gocql.Quorum).Exec()
	if err != nil {
		return 0, t.scrub(err)
	}
	return t.arrived(ctx, key)
}

// Arrived reads barrier key's counter; no row is 0.
func (t *Target) Arrived(ctx context.Context, key string) (int, error) {
	ctx, cancel := t.timeouts.Context(ctx, false)
	defer cancel()
	return t.arrived(ctx, key)
}

func (t *Target) arrived(ctx context.Context, key string) (int, error) {
	var n int64
	err := t.sess().Query("SELECT n FROM "+t.cfg.Keyspace+"."+BarrierTable+" WHERE k = ?", key).
		WithContext(ctx).Consistency(gocql.Quorum).Idempotent(true).Scan(&n)
	if err == gocql.ErrNotFound {
		return 0, nil
	}
	if err != nil {
		return 0, t.scrub(err)
	}
	return int(n), nil
}
