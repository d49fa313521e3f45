package redis

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	goredis "github.com/redis/go-redis/v9"

	"github.com/soakd/soakd/scenarios"
)

// DefaultPopFill is how many elements Prepare puts in a structure that
// pops read when the scenario does not bound its pops (a closed-loop
// phase by duration alone, capacity, growth): redis-benchmark's default
// -n. A pop that still finds the structure empty is counted as a miss.
const DefaultPopFill = 100000

// fillBatch is how many elements one pre-fill command carries.
const fillBatch = 10000

// PopFill returns how many elements the structure popped by ops must
// hold before the run so that no pop finds it empty: every pop the
// scenario can issue (scenarios.MaxOps), or DefaultPopFill when that is
// unbounded. Pushes in earlier phases are not counted on: they may fail,
// and sadd/zadd members repeat.
func PopFill(sc *scenarios.Scenario, ops ...scenarios.Op) int64 {
	n, bounded := sc.MaxOps(ops...)
	if !bounded && n < DefaultPopFill {
		n = DefaultPopFill
	}
	return n
}

// prefill makes the redis-benchmark structures hold what the scenario's
// ops need, as redis-benchmark's own order does (LPUSH before LPOP, SADD
// before SPOP, ZADD before ZPOPMIN, "LPUSH (needed to benchmark LRANGE)"):
// mylist holds every lpop and rpop plus LRangeFill elements for lrange
// ops; myset and myzset hold every spop and zpopmin. Each is filled up
// to that size, so a second Prepare (a persistence variant, another
// shard) adds nothing to a structure that is already full.
func (t *Target) prefill(ctx context.Context, sc *scenarios.Scenario) error {
	list := int64(0)
	if sc.Uses(scenarios.OpLPop) || sc.Uses(scenarios.OpRPop) {
		list = PopFill(sc, scenarios.OpLPop, scenarios.OpRPop)
	}
	for _, op := range []scenarios.Op{scenarios.OpLRange100, scenarios.OpLRange300, scenarios.OpLRange500, scenarios.OpLRange600} {
		if sc.Uses(op) {
			list += LRangeFill
			break
		}
	}
	if list > 0 {
		if err := t.fillList(ctx, list, sc.Record.FieldBytes); err != nil {
			return fmt.Errorf("pre-fill %s: %w", benchList, err)
		}
	}
	if sc.Uses(scenarios.OpSPop) {
		n := PopFill(sc, scenarios.OpSPop)
		if err := t.fillMembers(ctx, n, func(c goredis.Pipeliner, from, to int64) {
			args := make([]any, 0, to-from)
			for i := from; i < to; i++ {
				args = append(args, "fill:"+strconv.FormatInt(i, 10))
			}
			c.SAdd(ctx, benchSet, args...)
		}, func() (int64, error) { return t.c.SCard(ctx, benchSet).Result() }); err != nil {
			return fmt.Errorf("pre-fill %s: %w", benchSet, err)
		}
	}
	if sc.Uses(scenarios.OpZPopMin) {
		n := PopFill(sc, scenarios.OpZPopMin)
		if err := t.fillMembers(ctx, n, func(c goredis.Pipeliner, from, to int64) {
			zs := make([]goredis.Z, 0, to-from)
			for i := from; i < to; i++ {
				zs = append(zs, goredis.Z{Score: float64(i), Member: "fill:" + strconv.FormatInt(i, 10)})
			}
			c.ZAdd(ctx, benchZSet, zs...)
		}, func() (int64, error) { return t.c.ZCard(ctx, benchZSet).Result() }); err != nil {
			return fmt.Errorf("pre-fill %s: %w", benchZSet, err)
		}
	}
	return nil
}

// fillList makes mylist hold at least n elements of size bytes.
func (t *Target) fillList(ctx context.Context, n int64, size int) error {
	have, err := t.c.LLen(ctx, benchList).Result()
	if err != nil || have >= n {
		return err
	}
	if size <= 0 {
		size = 3
	}
	v := strings.Repeat("x", size)
	pipe := t.c.Pipeline()
	for have < n {
		k := n - have
		if k > fillBatch {
			k = fillBatch
		}
		args := make([]any, k)
		for i := range args {
			args[i] = v
		}
		pipe.RPush(ctx, benchList, args...)
		have += k
	}
	_, err = pipe.Exec(ctx)
	return err
}

// fillMembers makes a set or sorted set hold at least n members: it
// adds the members fill:0..fill:n-1 (add queues [from, to) of them)
// unless card already reports n or more.
func (t *Target) fillMembers(ctx context.Context, n int64, add func(c goredis.Pipeliner, from, to int64), card func() (int64, error)) error {
	have, err := card()
	if err != nil || have >= n {
		return err
	}
	pipe := t.c.Pipeline()
	for from := int64(0); from < n; from += fillBatch {
		to := from + fillBatch
		if to > n {
			to = n
		}
		add(pipe, from, to)
	}
	_, err = pipe.Exec(ctx)
	return err
}
